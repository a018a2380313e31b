"""Exports (issue 34), over HTTP: exports.create queues an export, the worker writes the tenant's
entities as NDJSON lines (and the documents' files as a zip), exports.show hands them out; the file
re-imported into another tenant by `pmctl import` reproduces every list's total and every alias."""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import io
import json
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

import pytest

from chalicelib import clock, config, ids
from chalicelib.exports import worker as export_worker
from chalicelib.registry import REGISTRY
from chalicelib.store import exports as exports_store
from tests.client import Api, Tenant
from tests.functional.test_document_uploads import building, one_upload, upload_json
from tests.functional.test_untrusted_text import _pmctl, _vendor
from tests.moments import clock_at
from tests.uploads import pdf, post_file, wait_settled
from tests.world import World


def _wait(tenant: Tenant, export_id: str, key: str | None = None) -> dict[str, Any]:
    for _ in range(300):
        shown = tenant.get("exports.show", {"export": export_id}, **({"key": key} if key else {}))["export"]
        if shown["status"] in ("done", "failed"):
            return dict(shown)
        time.sleep(0.1)
    raise AssertionError(f"export {export_id} did not settle: {shown}")


def _download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return bytes(answer.read())


def _lines(shown: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in gzip.decompress(_download(shown["downloadUrl"])).splitlines()]


def _export(tenant: Tenant, key: str | None = None, **args: Any) -> dict[str, Any]:
    started = tenant.ok("exports.create", args, **({"key": key} if key else {}))
    assert started["status"] == "pending"
    shown = _wait(tenant, started["id"], key)
    assert shown["status"] == "done", shown
    return shown


def _list_ops() -> dict[str, str]:
    """entity type -> the list query answering its total (one without a required filter)."""
    found: dict[str, str] = {}
    for op in REGISTRY.values():
        required = set(op.args.get("required", [])) - {"limit", "offset"}
        if op.kind == "query" and op.paged and op.surface == "v2" and not required:
            plural = next((p for p in op.result.get("properties", {}) if p != "pagination"), None)
            found[op.name] = str(plural)
    return found


def _totals(tenant: Tenant) -> dict[str, int]:
    """Every list's total for this tenant (those that need no filter), and the per-parent lists
    summed over their parents."""
    totals = {}
    for name in _list_ops():
        if name.startswith(("webhooks", "apikeys", "aliases", "audit")):
            continue
        totals[name] = tenant.get(name, {"limit": 1, "offset": 0})["pagination"]["total"]
    objects = tenant.get("objects", {"limit": 1000, "offset": 0})["objects"]
    processes = tenant.get("processes.list", {"limit": 1000, "offset": 0})["processes"]
    totals["unitgroups.listforobject"] = sum(
        tenant.get("unitgroups.listforobject", {"object": o["id"], "limit": 1, "offset": 0})["pagination"]["total"]
        for o in objects
    )
    totals["accounting.inboundinvoices.list"] = sum(
        tenant.get("accounting.inboundinvoices.list", {"object": o["id"], "limit": 1, "offset": 0})["pagination"][
            "total"
        ]
        for o in objects
    )
    totals["uvi.list"] = sum(
        tenant.get("uvi.list", {"object": o["id"], "limit": 1, "offset": 0})["pagination"]["total"] for o in objects
    )
    totals["processes.updates.list"] = sum(
        tenant.get("processes.updates.list", {"process": p["id"], "limit": 1, "offset": 0})["pagination"]["total"]
        for p in processes
    )
    return totals


def _aliases(tenant: Tenant) -> set[tuple[str, str]]:
    entries = tenant.get("aliases.list", {"limit": 1000, "offset": 0})["aliases"]
    return {(e["alias"], e["type"]) for e in entries}


def test_an_export_lists_each_entity_once_in_an_order_that_can_be_re_imported(tenant: Tenant) -> None:
    tenant.ok("objects.upsert", {"items": [{"alias": "obj-1", "name": "Haus 1", "type": "rental"}]})
    tenant.ok(
        "units.upsert", {"items": [{"alias": "we-1", "objectId": "obj-1", "number": "WE 1", "type": "apartment"}]}
    )
    firm = tenant.ok("contacts.upsert", {"items": [{"alias": "firma", "personType": "legal", "companyName": "Firma"}]})
    tenant.ok(
        "contacts.upsert",
        {"items": [{"alias": "erika", "lastName": "Mustermann", "personType": "natural", "companyId": "firma"}]},
    )
    plain = tenant.contact(lastName="Ohnealias")  # no alias: its id stands in

    shown = _export(tenant)
    lines = _lines(shown)
    assert shown["counts"]["object"] == 1 and shown["counts"]["unit"] == 1 and shown["counts"]["contact"] == 3
    assert shown["lines"] == len(lines) == sum(shown["counts"].values())
    by_alias = {line["alias"]: line for line in lines}
    assert by_alias["we-1"] == {
        "type": "unit",
        "upsert": "units.upsert",
        "alias": "we-1",
        "aliases": ["we-1"],
        "data": {"objectId": "obj-1", "number": "WE 1", "type": "apartment"},
    }
    assert by_alias["erika"]["data"]["companyId"] == "firma"  # the reference as its alias
    assert by_alias[plain["id"]]["aliases"] == []
    order = [line["alias"] for line in lines]
    assert order.index("obj-1") < order.index("we-1")
    assert order.index("firma") < order.index("erika"), "a company before its people"
    assert firm["results"][0]["id"] not in json.dumps(lines), "references are aliases where there are"


def test_exports_show_takes_the_export_and_answers_it_under_its_name_and_the_old_form_still_works(
    tenant: Tenant, api: Api
) -> None:
    """Issue 52, 3: exports.show took `id` and answered the export's fields at the top level, where
    every other show takes the thing's name and answers it under that name. The old form is kept
    for a release, marked deprecated in the OpenAPI document."""
    started = tenant.ok("exports.create", {"entityTypes": ["object"]})
    shown = _wait(tenant, started["id"])
    assert shown["id"] == started["id"] and shown["status"] == "done"
    new = tenant.get("exports.show", {"export": started["id"]})
    old = tenant.get("exports.show", {"id": started["id"]})
    for answer in (new, old):
        assert answer["export"]["id"] == started["id"] and answer["export"]["counts"] == shown["counts"]
        assert {k: v for k, v in answer.items() if k != "export"}.keys() == answer["export"].keys()
        assert answer["status"] == answer["export"]["status"], "the old top-level fields, beside `export`"
    same = tenant.query("exports.show", [("export", started["id"]), ("id", started["id"])])
    assert same.status == 200, same.body
    other = tenant.ok("exports.create", {"entityTypes": ["object"]})["id"]
    _wait(tenant, other)
    both = tenant.query("exports.show", [("export", started["id"]), ("id", other)])
    assert both.status == 400 and both.body["errors"][0]["path"] == "id", both.body
    assert tenant.query("exports.show", {}).status == 400

    spec = tenant.get("openapi.spec")
    operation = spec["paths"]["/propertymanagement/v2/query/exports.show"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert parameters["export"]["required"] is True and not parameters["export"]["schema"].get("deprecated")
    assert parameters["id"]["schema"]["deprecated"] is True and parameters["id"]["required"] is False
    assert parameters["id"]["deprecated"] is True and "deprecated" not in parameters["export"], "the parameter too"
    answered = operation["responses"]["200"]["content"]["application/json"]["schema"]["properties"]
    assert answered["status"]["deprecated"] is True and not answered["export"].get("deprecated")


def test_an_export_holds_only_what_the_key_may_read_and_is_the_keys_own(tenant: Tenant) -> None:
    tenant.ok("objects.upsert", {"items": [{"alias": "obj-1", "name": "Haus 1", "type": "rental"}]})
    tenant.contact(lastName="Geheim")
    units_only = tenant.new_key(["read:objects", "write:exports", "read:exports"])
    shown = _export(tenant, key=units_only)
    assert set(shown["counts"]) == {"object", "unitGroup", "objectAddress", "objectGroup"}
    assert {line["type"] for line in _lines(shown)} == {"object"}
    refused = tenant.command("exports.create", {"entityTypes": ["contact"]}, key=units_only)
    assert refused.status == 403 and refused.body["code"] == "missing_scope"
    other = tenant.query("exports.show", {"export": shown["id"]})  # the tenant's own key, not the one that asked
    assert other.status == 404 and other.body["code"] == "not_found"
    no_export_scope = tenant.new_key(["read"])
    assert tenant.command("exports.create", {}, key=no_export_scope).status == 403


def test_one_export_of_a_key_runs_at_a_time_and_the_tenants_other_keys_export_meanwhile(
    tenant: Tenant, api: Api, stack: Any
) -> None:
    """Issue 51, 11: the running export is the key's, not the tenant's: one key asking again waits
    for its own, the tenant's other keys export meanwhile, up to the tenant's ceiling."""
    others = [tenant.new_key(["read", "write:exports", "read:exports"]) for _ in range(3)]
    with stack.exports.paused():  # the local export worker takes nothing: the exports stay pending
        first = tenant.ok("exports.create", {})
        second = tenant.command("exports.create", {})
        assert second.status == 409 and second.body["code"] == "export_running"
        assert second.body["runningExportId"] == first["id"]
        assert tenant.get("exports.show", {"export": first["id"]})["export"]["status"] == "pending"
        meanwhile = [tenant.command("exports.create", {}, key=key) for key in others]
        assert [a.status for a in meanwhile[:2]] == [200, 200], "another key of the tenant was held up"
        ceiling = meanwhile[2]
        assert ceiling.status == 409 and ceiling.body["code"] == "export_limit_reached", ceiling.body
        assert ceiling.body["maxRunningExports"] == 3 and "runningExportId" not in ceiling.body
    assert _wait(tenant, first["id"])["status"] == "done"
    assert tenant.command("exports.create", {}).status == 200  # released
    assert tenant.command("exports.create", {}, key=others[2]).status == 200
    assert config.max_running_exports() == config.MAX_RUNNING_EXPORTS == 3  # the documented ceiling
    other = api.signup()
    assert other.command("exports.create", {}).status == 200, "another tenant's export is its own"


def test_the_keys_of_an_integration_share_one_running_export(tenant: Tenant, stack: Any) -> None:
    scopes = ("read", "write:exports", "read:exports")
    integration_id, first_key = _vendor(tenant, "portal-a", scopes)
    flags = [part for scope in scopes for part in ("--scope", scope)]
    second_key = _pmctl(
        "keys", "issue", "--integration", integration_id, "--tenant", tenant.id, "--agent", "portal-b", *flags
    ).strip()
    with stack.exports.paused():
        started = tenant.ok("exports.create", {}, key=first_key)
        refused = tenant.command("exports.create", {}, key=second_key)
        assert refused.status == 409 and refused.body["code"] == "export_running", refused.body
        assert refused.body["runningExportId"] == started["id"]
        assert "this key's integration" in refused.body["detail"]
        assert tenant.command("exports.create", {}).status == 200, "the tenant's own key is no integration's"
    assert _wait(tenant, started["id"], first_key)["status"] == "done"


class WorkerDied(BaseException):
    """The export worker's function ends mid-export (Lambda's timeout, the process killed): no
    `except Exception` of the worker sees it, nothing settles the export."""


def test_a_dead_workers_export_frees_its_place_a_lease_later(tenant: Tenant, stack: Any) -> None:
    with stack.exports.paused():
        first = tenant.ok("exports.create", {})
        export = exports_store.get(tenant.id, first["id"])
        assert export is not None
        with pytest.MonkeyPatch.context() as patch:  # undone before the poller takes the message again

            def dies(*_args: Any) -> Any:
                raise WorkerDied
                yield

            patch.setattr(export_worker.lines, "entities", dies)
            with pytest.raises(WorkerDied):
                export_worker.run(export)
        assert tenant.get("exports.show", {"export": first["id"]})["export"]["status"] == "running"
        assert tenant.command("exports.create", {}).status == 409, "the worker's lease holds while it may live"
        later = clock.now() + dt.timedelta(seconds=config.EXPORT_LEASE_SECONDS + 5)
        with clock_at(later):  # a lease later: no worker renewed it
            assert tenant.get("exports.show", {"export": first["id"]})["export"]["status"] == "failed"
            again = tenant.command("exports.create", {})
            assert again.status == 200, again.body
    # the dead worker's message comes back: it finds its place taken and settles the export failed
    shown = _wait(tenant, again.body["id"])
    assert shown["status"] == "done", shown
    assert _wait(tenant, first["id"])["status"] == "failed"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_tenant_with_every_entity_type_is_reproduced_by_its_export_in_a_new_tenant(
    tenant: Tenant, api: Api, tmp_path: Path
) -> None:
    World(tenant).build()
    tenant.ok(
        "aliases.upsert", {"entries": [{"alias": "zweiter-name", "id": tenant.contact()["id"], "type": "contact"}]}
    )
    source_totals = _totals(tenant)
    shown = _export(tenant)
    exported = {
        "contacts": "contact", "objects": "object", "units": "unit", "contracts": "contract",
        "documents.list": "document", "processes.list": "process", "responsibilities.list": "responsibility",
        "advisors.list": "advisor", "objectaddresses.list": "objectAddress",
        "accounting.bankaccountinfos.list": "bankAccountInfo",
        "accounting.directdebitmandates.list": "directDebitMandate",
        "accounting.inboundinvoices.list": "inboundInvoice", "unitgroups.listforobject": "unitGroup",
        "uvi.list": "uviDocument", "processes.updates.list": "processUpdate",
    }  # fmt: skip
    for list_name, type_name in exported.items():
        assert shown["counts"][type_name] == source_totals[list_name], (list_name, shown["counts"])
    assert all(shown["counts"][t] >= 1 for t in shown["counts"]), shown["counts"]
    assert shown["filesUrl"], "documents' files in the archive"

    export_file, files_file = str(tmp_path / "export.ndjson.gz"), str(tmp_path / "files.zip")
    with open(export_file, "wb") as out:
        out.write(_download(shown["downloadUrl"]))
    archive = _download(shown["filesUrl"])
    with open(files_file, "wb") as out:
        out.write(archive)
    assert (
        len(zipfile.ZipFile(io.BytesIO(archive)).namelist())
        == shown["counts"]["document"] + shown["counts"]["uviDocument"]
    )

    target = api.signup(company="Neue Hausverwaltung GmbH")
    command = [sys.executable, "-m", "chalicelib.ops.pmctl", "import", export_file, "--files", files_file]
    command += ["--key", target.key, "--url", api.base, "--json"]
    first = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr
    assert json.loads(first.stdout)["counts"]["failed"] == 0
    assert _totals(target) == source_totals
    # webhooks are the account's wiring, not its data: not exported (their secrets never leave)
    exported_aliases = {(alias, kind) for alias, kind in _aliases(tenant) if kind != "webhook"}
    assert _aliases(target) >= exported_aliases, "every alias of the source names an entity in the new tenant"

    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    counts = json.loads(again.stdout)["counts"]
    assert counts["created"] == counts["updated"] == counts["failed"] == 0, counts
    assert _totals(target) == source_totals


def _import(target: Tenant, api: Api, export_file: Path, files_file: Path) -> dict[str, Any]:
    command = [sys.executable, "-m", "chalicelib.ops.pmctl", "import", str(export_file), "--files", str(files_file)]
    done = subprocess.run([*command, "--key", target.key, "--url", api.base, "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


@pytest.mark.timeout(300)
def test_an_export_of_entities_without_aliases_files_included_re_imports_idempotently(
    tenant: Tenant, api: Api, tmp_path: Path
) -> None:
    """Issue 52, 1: a document (and a UVI) without an alias is exported under its id; importing
    the export again uploaded it again (4 documents instead of 2). Now every line of the second
    run is unchanged and every total stays the first run's."""
    obj = tenant.ok("objects.create", {"object": {"name": "Ohne Alias 1", "type": "weg"}})["object"]
    tenant.contact(lastName="Ohnealias")
    for name in ("Protokoll.pdf", "Energieausweis.pdf"):
        resource = {"fileName": name, "content": base64.b64encode(pdf(name)).decode()}
        tenant.ok("documents.upload", {"locationId": obj["id"], "resource": resource})
    period = {"categories": ["heating"], "periodStart": "2026-10-01", "periodEnd": "2026-10-31"}
    resource = {"fileName": "UVI.pdf", "content": base64.b64encode(pdf("uvi")).decode()}
    tenant.ok("uvi.upload", {"data": {"objectId": obj["id"], **period}, "resource": resource})
    shown = _export(tenant)
    lines = _lines(shown)
    assert all(ids.looks_like_id(line["alias"]) for line in lines), "every line exported under its id"
    export_file, files_file = tmp_path / "export.ndjson.gz", tmp_path / "files.zip"
    export_file.write_bytes(_download(shown["downloadUrl"]))
    files_file.write_bytes(_download(shown["filesUrl"]))

    target = api.signup(company="Neue Hausverwaltung GmbH")
    first = _import(target, api, export_file, files_file)
    assert first["counts"] == {"created": len(lines), "updated": 0, "unchanged": 0, "failed": 0}, first
    totals = _totals(target)
    assert totals["documents.list"] == 2 and totals["uvi.list"] == 1 and totals["contacts"] == 1, totals

    again = _import(target, api, export_file, files_file)
    assert again["counts"] == {"created": 0, "updated": 0, "unchanged": len(lines), "failed": 0}, again
    assert _totals(target) == totals, "the second run changed a list"


def test_a_key_limited_to_objects_exports_only_what_lies_within_them(tenant: Tenant) -> None:
    objects = [{"alias": f"haus-{n}", "name": f"Haus {n}", "type": "rental"} for n in "ab"]
    created = tenant.ok("objects.upsert", {"items": objects})["results"]
    units = [{"alias": f"we-{n}", "objectId": f"haus-{n}", "number": "WE 1", "type": "apartment"} for n in "ab"]
    tenant.ok("units.upsert", {"items": units})
    limited = tenant.new_key(["read", "write:exports", "read:exports"], objects=[created[0]["id"]])
    lines = _lines(_export(tenant, key=limited, entityTypes=["object", "unit"]))
    assert sorted((line["type"], line["alias"]) for line in lines) == [("object", "haus-a"), ("unit", "we-a")]


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_documents_come_back_with_their_files_over_the_bulk_path_when_large(
    tenant: Tenant, api: Api, tmp_path: Path
) -> None:
    building(tenant)
    large = pdf("large") + b"0" * (5 * 1024 * 1024)  # over the direct upload's 4 MiB
    batch_id, upload = one_upload(tenant, large, fileName="Wirtschaftsplan.pdf", document={"title": "Wirtschaftsplan"})
    post_file(upload, large)
    wait_settled(tenant, batch_id)
    tenant.alias("wirtschaftsplan", upload["documentId"], "document")
    small = upload_json(tenant, pdf("small"), file_name="Protokoll.pdf", document={"title": "Protokoll"}).body
    tenant.alias("protokoll", small["document"]["id"], "document")
    shown = _export(tenant, entityTypes=["object", "document"])
    export_file, files_file = tmp_path / "export.ndjson.gz", tmp_path / "files.zip"
    export_file.write_bytes(_download(shown["downloadUrl"]))
    files_file.write_bytes(_download(shown["filesUrl"]))

    target = api.signup(company="Neue Hausverwaltung GmbH")
    command = [sys.executable, "-m", "chalicelib.ops.pmctl", "import", str(export_file), "--files", str(files_file)]
    done = subprocess.run([*command, "--key", target.key, "--url", api.base, "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    for alias, content in (("wirtschaftsplan", large), ("protokoll", pdf("small"))):
        document = target.get("documents.show", {"document": alias})["document"]
        assert document["size"] == len(content) and _download(document["downloadUrl"]) == content
    assert target.get("documents.show", {"document": "wirtschaftsplan"})["document"]["title"] == "Wirtschaftsplan"


def test_a_live_worker_renews_its_lease_and_one_that_outlived_it_stops(tenant: Tenant, stack: Any) -> None:
    """The worker renews the export's place as it writes (here at every line); a worker stalled past
    its lease finds the place gone at its next renewal and settles the export failed."""
    tenant.ok(
        "objects.upsert", {"items": [{"alias": f"obj-{n}", "name": f"Haus {n}", "type": "rental"} for n in range(3)]}
    )
    with stack.exports.paused(), pytest.MonkeyPatch.context() as patch:
        patch.setattr(export_worker, "RENEW_SECONDS", 0.0)
        renewed: list[bool] = []
        renew = exports_store.renew

        def counted(export: exports_store.Export) -> bool:
            renewed.append(renew(export))
            return renewed[-1]

        patch.setattr(exports_store, "renew", counted)
        alive = tenant.ok("exports.create", {"entityTypes": ["object"]})
        export_worker.run(exports_store.get(tenant.id, alive["id"]))  # type: ignore[arg-type]
        assert renewed and all(renewed), renewed
        assert tenant.get("exports.show", {"export": alive["id"]})["export"]["status"] == "done"

        stalled = tenant.ok("exports.create", {"entityTypes": ["object"]})
        export = exports_store.get(tenant.id, stalled["id"])
        assert export is not None
        entities = export_worker.lines.entities

        later = clock.now() + dt.timedelta(seconds=config.EXPORT_LEASE_SECONDS + 5)

        def stalls(*args: Any) -> Any:  # the worker's clock runs past its lease before it writes
            clock.set_clock(lambda: later)
            yield from entities(*args)

        patch.setattr(export_worker.lines, "entities", stalls)
        try:
            export_worker.run(export)
        finally:
            clock.set_clock(None)
        shown = tenant.get("exports.show", {"export": stalled["id"]})["export"]
        assert shown["status"] == "failed" and "start a new one" in shown["error"], shown
        assert tenant.command("exports.create", {}).status == 200, "the stalled export's place is free"
