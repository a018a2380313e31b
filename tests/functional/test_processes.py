"""Processes and their timeline (process updates) through HTTP: the object argument, list filters,
archive rules, references of process updates by id or alias, delete guards."""

from __future__ import annotations

from typing import Any

from tests.client import Tenant


def make_object(tenant: Tenant, name: str = "WEG Musterstraße 12") -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": name, "type": "weg"}})["object"])


def make_contract(tenant: Tenant, object_id: str, contact_id: str, number: str = "1.01") -> dict[str, Any]:
    unit = tenant.ok("units.create", {"unit": {"objectId": object_id, "number": number, "type": "apartment"}})["unit"]
    contract = {
        "unitId": unit["id"],
        "type": "lease",
        "startDate": "2024-01-01",
        "parties": [{"contactId": contact_id, "role": "tenant"}],
    }
    return dict(tenant.ok("contracts.create", {"contract": contract})["contract"])


def make_process(tenant: Tenant, object_ref: str, **fields: Any) -> dict[str, Any]:
    payload = {"title": "Heizungsausfall", **fields}
    return dict(tenant.ok("processes.create", {"process": payload, "object": object_ref})["process"])


def test_the_object_argument_files_the_process_at_that_object_by_alias(tenant: Tenant) -> None:
    """Beyond the lifecycle sweep (test_lifecycles.py): the object is an argument beside the payload,
    and the process keeps it through delete and restore."""
    obj = make_object(tenant)
    tenant.alias("weg-12", obj["id"], "object")
    made = make_process(tenant, "weg-12")
    assert made["id"].startswith("prc_") and made["objectId"] == obj["id"]
    tenant.ok("processes.delete", {"process": made["id"]})
    restored = tenant.ok("processes.restore", {"process": made["id"]})["process"]
    assert restored["objectId"] == obj["id"] and restored["isArchived"] is False


def test_new_process_defaults(tenant: Tenant) -> None:
    obj = make_object(tenant)
    created = make_process(tenant, obj["id"])
    assert created["status"] == "open" and created["priority"] == "normal" and created["isArchived"] is False
    assert created["objectId"] == obj["id"]


def test_create_needs_the_object_argument_and_a_title(tenant: Tenant) -> None:
    obj = make_object(tenant)
    missing_object = tenant.command("processes.create", {"process": {"title": "X"}})
    assert missing_object.status == 400
    no_title = tenant.command("processes.create", {"process": {"description": "ohne Titel"}, "object": obj["id"]})
    assert no_title.status == 400 and no_title.body["errors"][0] == {"path": "process.title", "message": "required"}
    cleared = tenant.command(
        "processes.update", {"process": {"id": make_process(tenant, obj["id"])["id"], "title": None}}
    )
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "process.title"
    in_payload = tenant.command(
        "processes.create", {"process": {"title": "X", "objectId": obj["id"]}, "object": obj["id"]}
    )
    assert in_payload.status == 400
    unknown = tenant.command("processes.create", {"process": {"title": "X"}, "object": "no-such-object"})
    assert unknown.status == 404 and unknown.body["errors"][0]["path"] == "object"


def test_object_is_fixed_after_creation(tenant: Tenant) -> None:
    a, b = make_object(tenant, "A"), make_object(tenant, "B")
    p = make_process(tenant, a["id"])
    answer = tenant.command("processes.update", {"process": {"id": p["id"], "objectId": b["id"]}})
    assert answer.status == 400


def test_list_filters_by_archive_flag_object_and_contract(tenant: Tenant) -> None:
    a, b = make_object(tenant, "A"), make_object(tenant, "B")
    renter = tenant.contact(lastName="Mieter")
    contract = make_contract(tenant, a["id"], renter["id"])
    tenant.alias("obj-a", a["id"], "object")
    tenant.alias("lease-1", contract["id"], "contract")
    p1 = make_process(tenant, a["id"], contractId=contract["id"])
    p2 = make_process(tenant, a["id"], status="done", isArchived=True)
    p3 = make_process(tenant, b["id"])

    def ids(params: dict[str, Any]) -> list[str]:
        listed = tenant.get("processes.list", {"limit": 100, "offset": 0, **params})
        assert listed["pagination"]["total"] == len(listed["processes"])
        return [p["id"] for p in listed["processes"]]

    assert ids({}) == [p1["id"], p2["id"], p3["id"]]
    assert ids({"isArchived": False}) == [p1["id"], p3["id"]]
    assert ids({"isArchived": True}) == [p2["id"]]
    assert ids({"object": "obj-a"}) == [p1["id"], p2["id"]]
    assert ids({"object": b["id"]}) == [p3["id"]]
    assert ids({"contract": "lease-1"}) == [p1["id"]]
    assert ids({"contract": contract["id"], "isArchived": True}) == []
    assert ids({"object": a["id"], "isArchived": False}) == [p1["id"]]
    assert ids({"object": a["id"], "contract": contract["id"], "isArchived": False}) == [p1["id"]]
    assert tenant.query("processes.list", {"limit": 100, "offset": 0, "isArchived": "yes"}).status == 400


def test_contract_must_belong_to_the_process_object(tenant: Tenant) -> None:
    a, b = make_object(tenant, "A"), make_object(tenant, "B")
    contract = make_contract(tenant, a["id"], tenant.contact()["id"])
    answer = tenant.command(
        "processes.create", {"process": {"title": "X", "contractId": contract["id"]}, "object": b["id"]}
    )
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "process.contractId"
    p = make_process(tenant, b["id"])
    moved = tenant.command("processes.update", {"process": {"id": p["id"], "contractId": contract["id"]}})
    assert moved.status == 400


def test_archiving_needs_a_closed_process(tenant: Tenant) -> None:
    obj = make_object(tenant)
    p = make_process(tenant, obj["id"], status="inProgress")
    refused = tenant.command("processes.update", {"process": {"id": p["id"], "isArchived": True}})
    assert refused.status == 409 and refused.body["code"] == "process_not_closed"
    on_create = tenant.command("processes.create", {"process": {"title": "X", "isArchived": True}, "object": obj["id"]})
    assert on_create.status == 409 and on_create.body["code"] == "process_not_closed"
    archived = tenant.ok("processes.update", {"process": {"id": p["id"], "status": "done", "isArchived": True}})[
        "process"
    ]
    assert archived["isArchived"] is True and archived["status"] == "done"
    cancelled = make_process(tenant, obj["id"], status="cancelled")
    assert (
        tenant.ok("processes.update", {"process": {"id": cancelled["id"], "isArchived": True}})["process"]["isArchived"]
        is True
    )


def test_an_archived_process_accepts_only_unarchiving(tenant: Tenant) -> None:
    obj = make_object(tenant)
    p = make_process(tenant, obj["id"], status="done", isArchived=True)
    for change in ({"title": "Neu"}, {"status": "open"}, {"isArchived": True}, {"dueDate": None}):
        answer = tenant.command("processes.update", {"process": {"id": p["id"], **change}})
        assert answer.status == 409 and answer.body["code"] == "process_archived", change
    assert tenant.get("processes.show", {"process": p["id"]})["process"]["version"] == p["version"]
    # Unarchive and reopen in one call:
    reopened = tenant.ok("processes.update", {"process": {"id": p["id"], "isArchived": False, "status": "inProgress"}})[
        "process"
    ]
    assert reopened["isArchived"] is False and reopened["status"] == "inProgress"
    assert tenant.ok("processes.update", {"process": {"id": p["id"], "title": "Neu"}})["process"]["title"] == "Neu"


def test_unarchiving_alone_keeps_the_status(tenant: Tenant) -> None:
    obj = make_object(tenant)
    p = make_process(tenant, obj["id"], status="cancelled", isArchived=True)
    unarchived = tenant.ok("processes.update", {"process": {"id": p["id"], "isArchived": False}})["process"]
    assert unarchived["isArchived"] is False and unarchived["status"] == "cancelled"
    listed = tenant.get("processes.list", {"limit": 10, "offset": 0, "isArchived": False})
    assert [x["id"] for x in listed["processes"]] == [p["id"]]


def test_deleting_an_object_with_a_process_is_409(tenant: Tenant) -> None:
    obj = make_object(tenant)
    p = make_process(tenant, obj["id"])
    refused = tenant.command("objects.delete", {"object": obj["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"
    assert refused.body["referencedBy"] == [{"type": "process", "id": p["id"], "path": "objectId"}]
    tenant.ok("processes.delete", {"process": p["id"]})
    tenant.ok("objects.delete", {"object": obj["id"]})


def test_deleting_a_contact_assigned_to_a_process_is_409(tenant: Tenant) -> None:
    obj = make_object(tenant)
    worker = tenant.contact(lastName="Klempner")
    make_process(tenant, obj["id"], assigneeId=worker["id"])
    refused = tenant.command("contacts.delete", {"contact": worker["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"


# --- process updates ----------------------------------------------------------------------


def test_process_update_lifecycle_by_id(tenant: Tenant) -> None:
    obj = make_object(tenant)
    author = tenant.contact(lastName="Verwalterin")
    p = make_process(tenant, obj["id"])
    tenant.alias("vorgang-1", p["id"], "process")
    created = tenant.ok(
        "processes.updates.create",
        {
            "update": {
                "text": "Handwerker beauftragt.",
                "type": "note",
                "authorId": author["id"],
                "visibility": "portal",
            },
            "process": "vorgang-1",
        },
    )["update"]
    assert created["id"].startswith("pru_") and created["processId"] == p["id"]
    assert created["occurredAt"].endswith("Z") and created["aliases"] == []
    assert tenant.get("processes.updates.show", {"update": created["id"]})["update"] == created
    listed = tenant.get("processes.updates.list", {"process": "vorgang-1", "limit": 10, "offset": 0})
    assert [u["id"] for u in listed["updates"]] == [created["id"]] and listed["pagination"]["total"] == 1
    updated = tenant.ok(
        "processes.updates.update", {"update": {"id": created["id"], "text": "Termin verschoben.", "type": "call"}}
    )["update"]
    assert updated["text"] == "Termin verschoben." and updated["type"] == "call" and updated["version"] == 2
    deleted = tenant.ok("processes.updates.delete", {"update": created["id"]})["deleted"]
    assert deleted["type"] == "processUpdate" and deleted["id"] == created["id"]
    assert tenant.query("processes.updates.show", {"update": created["id"]}).status == 404
    assert (
        tenant.get("processes.updates.list", {"process": p["id"], "limit": 10, "offset": 0})["pagination"]["total"] == 0
    )
    restored = tenant.ok("processes.updates.restore", {"update": created["id"]})["update"]
    assert restored["id"] == created["id"] and restored["text"] == "Termin verschoben."


def test_process_updates_are_referenced_by_id_or_alias(tenant: Tenant) -> None:
    obj = make_object(tenant)
    p = make_process(tenant, obj["id"])
    entry = tenant.ok("processes.updates.create", {"update": {"text": "Notiz"}, "process": p["id"]})["update"]
    assert tenant.query("processes.updates.show", {"update": "eintrag-1"}).status == 404  # not mapped yet
    tenant.alias("eintrag-1", entry["id"], "processUpdate")
    assert tenant.get("processes.updates.show", {"update": "eintrag-1"})["update"]["id"] == entry["id"]
    updated = tenant.ok("processes.updates.update", {"update": {"id": "eintrag-1", "text": "Notiz ergänzt"}})
    assert updated["update"]["id"] == entry["id"] and updated["update"]["text"] == "Notiz ergänzt"
    unknown = tenant.query("processes.updates.show", {"update": "eintrag-2"})
    assert unknown.status == 404 and unknown.body["errors"][0]["path"] == "update"
    assert tenant.ok("processes.updates.delete", {"update": "eintrag-1"})["deleted"]["id"] == entry["id"]


def test_process_update_needs_a_process_and_text_and_keeps_its_process(tenant: Tenant) -> None:
    obj = make_object(tenant)
    p, q = make_process(tenant, obj["id"]), make_process(tenant, obj["id"])
    assert tenant.command("processes.updates.create", {"update": {"text": "x"}}).status == 400
    assert tenant.command("processes.updates.create", {"update": {"text": "x"}, "process": "unbekannt"}).status == 404
    assert (
        tenant.command("processes.updates.create", {"update": {"text": "x" * 20001}, "process": p["id"]}).status == 400
    )
    long = tenant.ok("processes.updates.create", {"update": {"text": "x" * 20000}, "process": p["id"]})["update"]
    moved = tenant.command("processes.updates.update", {"update": {"id": long["id"], "processId": q["id"]}})
    assert moved.status == 400
    cleared = tenant.command("processes.updates.update", {"update": {"id": long["id"], "text": None}})
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "update.text"


def test_list_of_updates_requires_the_process(tenant: Tenant) -> None:
    assert tenant.query("processes.updates.list", {"limit": 10, "offset": 0}).status == 400


def test_archived_process_refuses_new_and_changed_updates(tenant: Tenant) -> None:
    obj = make_object(tenant)
    p = make_process(tenant, obj["id"])
    entry = tenant.ok("processes.updates.create", {"update": {"text": "Erledigt."}, "process": p["id"]})["update"]
    tenant.ok("processes.update", {"process": {"id": p["id"], "status": "done", "isArchived": True}})
    refused = tenant.command("processes.updates.create", {"update": {"text": "Nachtrag"}, "process": p["id"]})
    assert refused.status == 409 and refused.body["code"] == "process_archived"
    changed = tenant.command("processes.updates.update", {"update": {"id": entry["id"], "text": "geändert"}})
    assert changed.status == 409 and changed.body["code"] == "process_archived"
    assert (
        tenant.get("processes.updates.list", {"process": p["id"], "limit": 10, "offset": 0})["pagination"]["total"] == 1
    )
    tenant.ok("processes.update", {"process": {"id": p["id"], "isArchived": False}})
    tenant.ok("processes.updates.create", {"update": {"text": "Nachtrag"}, "process": p["id"]})


def test_a_process_with_updates_cannot_be_deleted(tenant: Tenant) -> None:
    obj = make_object(tenant)
    p = make_process(tenant, obj["id"])
    entry = tenant.ok("processes.updates.create", {"update": {"text": "Notiz"}, "process": p["id"]})["update"]
    refused = tenant.command("processes.delete", {"process": p["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"
    assert refused.body["referencedBy"] == [{"type": "processUpdate", "id": entry["id"], "path": "processId"}]


def test_updates_are_isolated_per_tenant(tenant: Tenant, other_tenant: Tenant) -> None:
    obj = make_object(tenant)
    p = make_process(tenant, obj["id"])
    entry = tenant.ok("processes.updates.create", {"update": {"text": "Notiz"}, "process": p["id"]})["update"]
    assert other_tenant.query("processes.updates.show", {"update": entry["id"]}).status == 404
    assert other_tenant.query("processes.show", {"process": p["id"]}).status == 404
    assert other_tenant.command("processes.updates.create", {"update": {"text": "x"}, "process": p["id"]}).status == 404


def test_processes_write_scope(tenant: Tenant) -> None:
    obj = make_object(tenant)
    reader = tenant.new_key(["read"], agent="reader")
    writer = tenant.new_key(["read", "write:processes"], agent="writer")
    assert (
        tenant.command("processes.create", {"process": {"title": "X"}, "object": obj["id"]}, key=reader).status == 403
    )
    p = tenant.ok("processes.create", {"process": {"title": "X"}, "object": obj["id"]}, key=writer)["process"]
    assert tenant.command("processes.delete", {"process": p["id"]}, key=writer).status == 403
