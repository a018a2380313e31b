"""Keys limited to objects (issue 30, point 3): `apikeys.create` takes `objects`; such a key
reads and writes only the entities of those objects (docs/concepts/keys-and-scopes.md, "Object-limited keys")."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from tests.client import Tenant
from tests.eventually import eventually
from tests.receiver import Receiver

PAGE = {"limit": 100, "offset": 0}


def _object(tenant: Tenant, name: str) -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": name, "type": "weg"}})["object"])


def _limited_key(tenant: Tenant, objects: list[str], scopes: list[str] | None = None) -> dict[str, Any]:
    body = tenant.ok(
        "apikeys.create",
        {
            "apiKey": {
                "agentName": f"vendor-{uuid.uuid4().hex[:8]}",
                "scopes": scopes or ["read", "write"],
                "objects": objects,
            }
        },
    )
    return dict(body["apiKey"])


# --- the key ------------------------------------------------------------------------------


def test_a_key_limited_to_objects_shows_them_resolved_to_ids(tenant: Tenant) -> None:
    a, b = _object(tenant, "WEG A"), _object(tenant, "WEG B")
    tenant.alias("weg-b", b["id"], "object")
    key = _limited_key(tenant, [a["id"], "weg-b", a["id"]])
    assert key["objects"] == sorted([a["id"], b["id"]])
    assert tenant.get("apikeys.show", {"apiKey": key["id"]})["apiKey"]["objects"] == sorted([a["id"], b["id"]])
    listed = {k["id"]: k for k in tenant.get("apikeys.list", PAGE)["apiKeys"]}
    assert listed[key["id"]]["objects"] == sorted([a["id"], b["id"]])
    assert listed[tenant.get("info")["key"]["id"]]["objects"] is None  # the sign-up's key: every object
    assert tenant.get("info", key=key["key"])["key"]["objects"] == sorted([a["id"], b["id"]])
    assert tenant.get("info")["key"]["objects"] is None


def test_an_unknown_object_is_404_at_its_index(tenant: Tenant) -> None:
    a = _object(tenant, "WEG A")
    missing = "obj_01J0000000000000000000000Z"
    answer = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "vendor", "scopes": ["read"], "objects": [a["id"], missing]}}
    )
    assert answer.status == 404, answer.body
    assert answer.body["errors"][0]["path"] == "apiKey.objects[1]"
    unknown_alias = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "vendor", "scopes": ["read"], "objects": ["no-such-weg"]}}
    )
    assert unknown_alias.status == 404 and unknown_alias.body["errors"][0]["path"] == "apiKey.objects[0]"


def test_a_limited_key_creates_keys_only_within_its_objects(tenant: Tenant) -> None:
    a, b = _object(tenant, "WEG A"), _object(tenant, "WEG B")
    admin = _limited_key(tenant, [a["id"]], ["read", "write", "admin"])["key"]

    unlimited = tenant.command("apikeys.create", {"apiKey": {"agentName": "x", "scopes": ["read"]}}, key=admin)
    assert unlimited.status == 403 and unlimited.body["code"] == "scope_escalation", unlimited.body
    wider = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "x", "scopes": ["read"], "objects": [a["id"], b["id"]]}}, key=admin
    )
    assert wider.status == 403 and wider.body["code"] == "scope_escalation", wider.body
    assert b["id"] in wider.body["detail"]
    narrower = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "x", "scopes": ["read"], "objects": [a["id"]]}}, key=admin
    )
    assert narrower.status == 200 and narrower.body["apiKey"]["objects"] == [a["id"]]


# --- what such a key reaches ------------------------------------------------------------------

PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjEgMCBvYmoKPDw+PgplbmRvYmoKdHJhaWxlcgo8PD4+CiUlRU9GCg=="


def _document(tenant: Tenant, location_id: str, title: str, key: str | None = None) -> Any:
    return tenant.command(
        "documents.upload",
        {
            "locationId": location_id,
            "resource": {"fileName": f"{title}.pdf", "contentType": "application/pdf", "content": PDF},
            "document": {"title": title, "documentType": "invoice", "category": "finance"},
        },
        **({"key": key} if key else {}),
    )


def _estate(tenant: Tenant, name: str) -> dict[str, str]:
    """An object with one of each of its entities, and the contacts linked to it."""
    ids: dict[str, str] = {"object": _object(tenant, name)["id"]}
    ids["unitGroup"] = tenant.ok(
        "unitgroups.create", {"unitGroup": {"objectId": ids["object"], "name": "Haus 1", "type": "building"}}
    )["unitGroup"]["id"]
    ids["unit"] = tenant.ok(
        "units.create",
        {"unit": {"objectId": ids["object"], "number": "1.01", "type": "apartment", "unitGroupId": ids["unitGroup"]}},
    )["unit"]["id"]
    ids["objectAddress"] = tenant.ok(
        "objectaddresses.create",
        {
            "objectAddress": {
                "objectId": ids["object"],
                "street": "Weg",
                "houseNumber": "1",
                "postalCode": "10115",
                "city": "Berlin",
                "countryCode": "DE",
                "type": "additional",
            }
        },
    )["objectAddress"]["id"]
    ids["party"] = tenant.contact(lastName=f"Mieter {name}")["id"]
    ids["contract"] = tenant.ok(
        "contracts.create",
        {
            "contract": {
                "unitId": ids["unit"],
                "type": "lease",
                "startDate": "2024-01-01",
                "parties": [{"contactId": ids["party"], "role": "tenant"}],
            }
        },
    )["contract"]["id"]
    ids["caretaker"] = tenant.contact(lastName=f"Hausmeister {name}")["id"]
    ids["responsibility"] = tenant.ok(
        "responsibilities.create",
        {
            "responsibility": {"categoryId": "caretaker", "validFrom": "2025-01-01"},
            "contact": ids["caretaker"],
            "object": ids["object"],
        },
    )["responsibility"]["id"]
    ids["adviser"] = tenant.contact(lastName=f"Beirat {name}")["id"]
    ids["advisor"] = tenant.ok(
        "advisors.assign",
        {"advisor": {"objectId": ids["object"], "contactId": ids["adviser"], "role": "advisoryBoardChair"}},
    )["advisor"]["id"]
    ids["process"] = tenant.ok("processes.create", {"process": {"title": "Wasserschaden"}, "object": ids["object"]})[
        "process"
    ]["id"]
    ids["processUpdate"] = tenant.ok(
        "processes.updates.create", {"update": {"text": "Handwerker bestellt."}, "process": ids["process"]}
    )["update"]["id"]
    document = _document(tenant, ids["unit"], f"Rechnung {name}")
    assert document.status == 200, document.body
    ids["document"] = document.body["document"]["id"]
    ids["bankAccountInfo"] = tenant.ok(
        "accounting.bankaccountinfos.create.object",
        {"bankAccountInfo": {"iban": "DE89370400440532013000", "accountHolder": name}, "object": ids["object"]},
    )["bankAccountInfo"]["id"]
    ids["bankAccountUse"] = tenant.ok(
        "accounting.bankaccountuse.create",
        {
            "bankAccountUse": {
                "bankAccountInfoId": ids["bankAccountInfo"],
                "purpose": "rent",
                "validFrom": "2024-01-01",
            },
            "contract": ids["contract"],
        },
    )["bankAccountUse"]["id"]
    return ids


def _ids_of(answer: dict[str, Any], plural: str) -> list[str]:
    return [entity["id"] for entity in answer[plural]]


def test_a_key_limited_to_a_lists_exactly_as_entities_and_their_contacts(tenant: Tenant) -> None:
    a, b = _estate(tenant, "A"), _estate(tenant, "B")
    key = _limited_key(tenant, [a["object"]])["key"]

    for name, plural, kind, params in (
        ("objects", "objects", "object", {}),
        ("units", "units", "unit", PAGE),
        ("contracts", "contracts", "contract", PAGE),
        ("documents.list", "documents", "document", PAGE),
        ("processes.list", "processes", "process", PAGE),
        ("responsibilities.list", "responsibilities", "responsibility", PAGE),
        ("advisors.list", "advisors", "advisor", PAGE),
        ("objectaddresses.list", "objectAddresses", "objectAddress", PAGE),
        ("accounting.bankaccountinfos.list", "bankAccountInfos", "bankAccountInfo", PAGE),
    ):
        listed = tenant.get(name, params, key=key)
        assert _ids_of(listed, plural) == [a[kind]], name
        if "pagination" in listed:
            assert listed["pagination"]["total"] == 1, name

    contacts = tenant.get("contacts", PAGE, key=key)
    assert sorted(_ids_of(contacts, "contacts")) == sorted([a["party"], a["caretaker"], a["adviser"]])
    assert contacts["pagination"]["total"] == 3

    mine = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": "Neu"}}, key=key)["contact"]
    contacts = tenant.get("contacts", PAGE, key=key)
    assert mine["id"] in _ids_of(contacts, "contacts") and contacts["pagination"]["total"] == 4
    assert tenant.get("contacts.show", {"contact": mine["id"]}, key=key)["contact"]["lastName"] == "Neu"
    assert b["party"] not in _ids_of(contacts, "contacts")

    # filtered lists: A's by filter, B's empty with total 0
    assert tenant.get("units", {**PAGE, "objectId": a["object"]}, key=key)["pagination"]["total"] == 1
    for name, params in (
        ("units", {**PAGE, "objectId": b["object"]}),
        ("contracts", {**PAGE, "unitId": b["unit"]}),
        ("documents.list", {**PAGE, "locationId": b["unit"]}),
        ("processes.updates.list", {**PAGE, "process": b["process"]}),
        ("unitgroups.listforobject", {"object": b["object"]}),
        ("accounting.object.bankaccountinfos", {"object": b["object"]}),
        ("responsibilities.list", {**PAGE, "contactId": b["caretaker"]}),
    ):
        listed = tenant.get(name, params, key=key)
        assert listed["pagination"]["total"] == 0, (name, listed)
    updates = tenant.get("processes.updates.list", {**PAGE, "process": a["process"]}, key=key)
    assert _ids_of(updates, "updates") == [a["processUpdate"]]
    docs = tenant.get("documents.list", {**PAGE, "locationId": a["unit"]}, key=key)
    assert _ids_of(docs, "documents") == [a["document"]]
    uses = tenant.get(
        "accounting.contract.bankaccountuse.fordate",
        {"contract": a["contract"], "purpose": "rent", "validOn": "2025-01-01"},
        key=key,
    )
    assert uses["bankAccountUse"]["id"] == a["bankAccountUse"]


SHOWS = {
    "object": ("objects.show", "object"),
    "unitGroup": ("unitgroups.show", "unitGroup"),
    "unit": ("units.show", "unit"),
    "objectAddress": ("objectaddresses.show", "objectAddress"),
    "party": ("contacts.show", "contact"),
    "caretaker": ("contacts.show", "contact"),
    "adviser": ("contacts.show", "contact"),
    "contract": ("contracts.show", "contract"),
    "responsibility": ("responsibilities.show", "responsibility"),
    "advisor": ("advisors.show", "advisor"),
    "process": ("processes.show", "process"),
    "processUpdate": ("processes.updates.show", "update"),
    "document": ("documents.show", "document"),
    "bankAccountInfo": ("accounting.bankaccountinfos.detail", "bankAccountInfo"),
    "bankAccountUse": ("accounting.bankaccountuse.detail", "bankAccountUse"),
}


@pytest.mark.slow
def test_every_entity_of_b_answers_404_through_rest_and_mcp_and_as_through_both(api: Any, tenant: Tenant) -> None:
    from tests.mcp_client import McpSession, error_text

    a, b = _estate(tenant, "A"), _estate(tenant, "B")
    key = _limited_key(tenant, [a["object"]])["key"]
    for kind, (name, arg) in SHOWS.items():
        assert tenant.query(name, {arg: a[kind]}, key=key).status == 200, (name, kind)
        missing = tenant.query(name, {arg: b[kind]}, key=key)
        assert missing.status == 404 and missing.body["code"] == "not_found", (name, kind, missing.body)
    with McpSession(api.base, key) as mcp:
        for kind, (name, arg) in SHOWS.items():
            assert not mcp.execute(name, {arg: a[kind]}).is_error, (name, kind)
            assert "404" in error_text(mcp.execute(name, {arg: b[kind]})), (name, kind)
        listed = mcp.ok("meta.tool.execute", {"name": "units", "arguments": PAGE})
        assert "pagination" in str(listed) and b["unit"] not in str(listed) and a["unit"] in str(listed)
        found = mcp.ok("meta.tools.search", {"query": "audit trail aliases list", "limit": 50})
        names = {tool["name"] for tool in found["tools"]}
        assert names and {"aliases.list", "audit.list"} <= names, names


def test_commands_outside_the_keys_objects_are_refused(tenant: Tenant) -> None:
    a, b = _estate(tenant, "A"), _estate(tenant, "B")
    key = _limited_key(tenant, [a["object"]], ["read", "write", "destructive"])["key"]

    refused = tenant.command(
        "units.create", {"unit": {"objectId": b["object"], "number": "9", "type": "other"}}, key=key
    )
    assert refused.status == 403 and refused.body["code"] == "outside_key_objects", refused.body
    assert refused.body["errors"] == [{"path": "unit.objectId", "message": "outside the key's objects"}]
    assert f"object {b['object']} is not one of them" in refused.body["detail"], refused.body
    created = tenant.command(
        "units.create", {"unit": {"objectId": a["object"], "number": "9", "type": "other"}}, key=key
    )
    assert created.status == 200, created.body
    assert tenant.command("objects.create", {"object": {"name": "C", "type": "weg"}}, key=key).body["code"] == (
        "outside_key_objects"
    )

    moved = tenant.command(
        "responsibilities.update", {"responsibility": {"id": a["responsibility"], "objectId": b["object"]}}, key=key
    )
    assert moved.status == 403 and moved.body["code"] == "outside_key_objects", moved.body
    cleared = tenant.command(
        "responsibilities.update", {"responsibility": {"id": a["responsibility"], "objectId": None}}, key=key
    )
    # every responsibility holds an object (its type's required fields): clearing it is no way out either
    assert cleared.status == 400 and cleared.body["code"] == "validation_failed", cleared.body
    assert [e["path"] for e in cleared.body["errors"]] == ["responsibility.objectId"], cleared.body
    unit_moved = tenant.command("units.update", {"unit": {"id": a["unit"], "objectId": b["object"]}}, key=key)
    assert unit_moved.status in (400, 403), unit_moved.body  # a unit's object is fixed: no key moves it
    document_moved = tenant.command(
        "documents.update", {"document": {"id": a["document"], "locationId": b["unit"]}}, key=key
    )
    assert document_moved.status == 404 and document_moved.body["errors"][0]["path"] == "document.locationId"
    contract_moved = tenant.command(
        "contracts.update", {"contract": {"id": a["contract"], "unitId": b["unit"]}}, key=key
    )
    assert contract_moved.status == 404, contract_moved.body

    # B's entities cannot be changed, deleted or referenced
    assert tenant.command("units.update", {"unit": {"id": b["unit"], "number": "x"}}, key=key).status == 404
    assert tenant.command("units.delete", {"unit": b["unit"]}, key=key).status == 404
    at_b = _document(tenant, b["unit"], "Fremd", key=key)
    assert at_b.status == 404 and at_b.body["errors"][0]["path"] == "locationId", at_b.body
    party_of_b = tenant.command(
        "contracts.create",
        {
            "contract": {
                "unitId": a["unit"],
                "type": "lease",
                "startDate": "2025-01-01",
                "parties": [{"contactId": b["party"], "role": "tenant"}],
            }
        },
        key=key,
    )
    assert party_of_b.status == 404 and party_of_b.body["errors"][0]["path"] == "contract.parties[0].contactId"
    assert f"No live contact with id {b['party']} in this tenant." in json.dumps(party_of_b.body), party_of_b.body
    # all of B stays as it was
    assert tenant.get("units.show", {"unit": b["unit"]})["unit"]["number"] == "1.01"
    assert (
        tenant.get("responsibilities.show", {"responsibility": a["responsibility"]})["responsibility"]["objectId"]
        == a["object"]
    )


def test_a_limited_key_changes_its_own_object_and_no_other(tenant: Tenant) -> None:
    a, b = _object(tenant, "WEG A"), _object(tenant, "WEG B")
    key = _limited_key(tenant, [a["id"]])["key"]
    renamed = tenant.command("objects.update", {"object": {"id": a["id"], "name": "WEG A, Lindenstraße"}}, key=key)
    assert renamed.status == 200 and renamed.body["object"]["name"] == "WEG A, Lindenstraße", renamed.body
    other = tenant.command("objects.update", {"object": {"id": b["id"], "name": "Fremd"}}, key=key)
    assert other.status == 404, other.body
    assert tenant.get("objects.show", {"object": b["id"]})["object"]["name"] == "WEG B"


def test_a_limited_key_can_neither_see_nor_revert_a_move_into_its_objects(tenant: Tenant) -> None:
    """Reverting the move would take the entity out of the key's objects: its record, whose state
    before lies outside them, is not the key's to see, and audit.revert is not open to limited keys
    (so the revert's own guard, reach.guard_home with no argument path, is never reached by one)."""
    a, b = _estate(tenant, "A"), _estate(tenant, "B")
    key = _limited_key(tenant, [a["object"]], ["read", "write", "destructive"])["key"]
    tenant.ok("responsibilities.update", {"responsibility": {"id": b["responsibility"], "objectId": a["object"]}})

    def the_move() -> dict[str, Any] | None:  # the audit trail is written from the table's stream
        records = tenant.get("audit.list", {"entityId": b["responsibility"], "limit": 10, "offset": 0})
        return next((r for r in records["auditRecords"] if r["action"] == "updated"), None)

    move = eventually(the_move, message="the move's audit record")
    seen = tenant.get("audit.list", {"entityId": b["responsibility"], "limit": 10, "offset": 0}, key=key)
    assert move["id"] not in [r["id"] for r in seen["auditRecords"]], seen
    refused = tenant.command("audit.revert", {"auditRecord": move["id"]}, key=key)
    assert refused.status == 403 and refused.body["code"] == "outside_key_objects", refused.body
    shown = tenant.get("responsibilities.show", {"responsibility": b["responsibility"]})["responsibility"]
    assert shown["objectId"] == a["object"]


def test_a_world_of_every_type_in_b_is_invisible_to_a_key_limited_to_a(tenant: Tenant) -> None:
    """One entity of every type, in object B (tests/world.py); the key limited to A finds none
    of them through any query: every show answers 404, no list names one."""
    from chalicelib.registry import REGISTRY
    from chalicelib.schemas import map_refs
    from tests.world import World

    world = World(tenant)
    world.build()
    a = _object(tenant, "A")
    key = _limited_key(tenant, [a["id"]], ["read"])["key"]
    hidden = set(world.ids.values())
    open_queries = []
    for op in REGISTRY.values():
        if op.kind != "query" or op.surface != "v2" or not op.authenticated:
            continue
        try:
            args = world.fill(op)
        except LookupError:
            continue
        for name, value in list(args.items()):
            if isinstance(value, str) and value.startswith("<"):
                args.pop(name)  # an example's placeholder that is no reference
        args = map_refs(
            op.args, args, "", lambda path, x_ref, value: world.ids.get(value.removeprefix("world-"), value)
        )
        answer = tenant.query(op.name, args, key=key)
        leaked = sorted(entity_id for entity_id in hidden if entity_id in answer.raw.decode())
        if answer.status == 200:
            open_queries.append(op.name)
        assert answer.status in (200, 400, 403, 404), (op.name, answer.status, answer.body)
        assert not leaked or answer.status != 200, (op.name, leaked, answer.body)
        if op.name.endswith((".show", ".detail")) and hidden & set(map(str, args.values())):
            assert answer.status == 404, (op.name, answer.body)
    assert {"units", "contacts", "documents.list", "objects"} <= set(open_queries)
    spec_paths = {path.rsplit("/", 1)[1] for path in tenant.get("openapi.spec", key=key)["paths"]}
    assert {"units", "aliases.list", "audit.list"} <= spec_paths and "audit.revert" not in spec_paths

    # the tenant's aliases of B's entities name nothing for the key
    resolved = tenant.get(
        "aliases.resolve",
        [("aliases", "world-unit"), ("aliases", "world-contact"), ("ids", world.ids["unit"])],
        key=key,
    )
    assert resolved["aliases"] == []
    by_alias = tenant.query("units.show", {"unit": "world-unit"}, key=key)
    assert by_alias.status == 404 and world.ids["unit"] not in by_alias.raw.decode(), by_alias.body
    assert tenant.get("aliases.resolve", [("aliases", "world-unit")])["aliases"][0]["id"] == world.ids["unit"]


# How an item of an upsert is refused what the command's 400, 403 and 404 refuse.
REFUSED = {"validation_failed", "invalid_request", "outside_key_objects", "not_found"}


@pytest.mark.slow
def test_no_command_of_a_key_limited_to_a_creates_or_changes_anything_in_b(tenant: Tenant) -> None:
    """Every command of the registry, its example pointed at the world in B (by alias, then by id):
    refused (403) or not found (404), never done."""
    from chalicelib.registry import REGISTRY
    from chalicelib.schemas import map_refs
    from tests.world import OWN_TESTS, World

    world = World(tenant)
    world.build()
    a = _object(tenant, "A")
    key = _limited_key(tenant, [a["id"]], ["read", "write", "destructive"])["key"]
    by_id = lambda path, x_ref, value: world.ids.get(value.removeprefix("world-"), value)  # noqa: E731
    outcomes: dict[tuple[str, str], int] = {}
    for op in REGISTRY.values():
        if op.kind != "command" or op.surface != "v2" or not op.authenticated or op.name in OWN_TESTS:
            continue
        if op.name in ("apikeys.create", "webhooks.test"):
            continue
        try:
            by_alias = world.fill(op)
        except LookupError:
            continue
        arg = next(iter(op.args["properties"]))
        if isinstance(by_alias.get(arg), dict) and "id" in op.args["properties"][arg].get("properties", {}):
            type_name = op.args["properties"][arg]["properties"]["id"].get("x-ref")
            if type_name in world.ids:
                by_alias[arg]["id"] = world.ref(type_name)
        for how, args in (("alias", by_alias), ("id", map_refs(op.args, by_alias, "", by_id))):
            answer = tenant.command(op.name, args, key=key)
            outcomes[(op.name, how)] = answer.status
            if op.name == "contacts.create":  # references nothing: a contact of its own, within its reach
                assert answer.status == 200, answer.body
                continue
            if op.name == "webhooks.create":  # a webhook of the key's own objects, hearing of nothing in B
                assert answer.status == 200 and answer.body["webhook"]["objects"] == [a["id"]], answer.body
                continue
            if answer.status == 200 and op.items_checked_alone:  # an upsert: each item answered on its own
                for result in answer.body["results"]:
                    if op.name == "contacts.upsert":  # as contacts.create: a contact of its own
                        assert result["result"] in ("created", "unchanged"), result
                    else:
                        assert result["result"] == "failed" and result["code"] in REFUSED, (op.name, how, result)
                continue
            assert answer.status in (400, 403, 404), (op.name, how, answer.status, answer.body)
    # by alias, B's object is as unknown to the key as a missing one; by id, naming it is refused
    assert outcomes[("units.create", "alias")] == 404 and outcomes[("units.create", "id")] == 403, outcomes
    assert outcomes[("responsibilities.create", "id")] == 403 and outcomes[("processes.create", "id")] == 403
    for name in ("units.update", "units.delete", "contacts.update", "documents.update", "webhooks.delete"):
        assert outcomes[(name, "id")] == 404, (name, outcomes)
    assert outcomes[("objectgroups.create", "id")] == 403


def test_merge_delete_and_uploads_stay_within_the_keys_objects(tenant: Tenant) -> None:
    a, b = _estate(tenant, "A"), _estate(tenant, "B")
    key = _limited_key(tenant, [a["object"]], ["read", "write", "destructive"])["key"]
    # A's tenant is also a party of a lease in B: merging them would change B's contract
    tenant.ok(
        "contracts.create",
        {
            "contract": {
                "unitId": b["unit"],
                "type": "lease",
                "startDate": "2025-01-01",
                "parties": [{"contactId": a["party"], "role": "tenant"}],
            }
        },
    )
    merge = tenant.command("contacts.merge", {"sourceContact": a["party"], "targetContact": a["caretaker"]}, key=key)
    assert merge.status == 403 and merge.body["code"] == "outside_key_objects", merge.body
    assert merge.body["detail"].startswith("This key is limited to objects; entities outside its objects"), merge.body
    assert tenant.get("contacts.show", {"contact": a["party"]})["contact"]["id"] == a["party"]
    mine = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": "Dup"}}, key=key)["contact"]
    merged = tenant.command("contacts.merge", {"sourceContact": mine["id"], "targetContact": a["adviser"]}, key=key)
    assert merged.status == 200, merged.body

    # a refused delete names the referrers the key can see, and no other
    refused = tenant.command("contacts.delete", {"contact": a["party"]}, key=key)
    assert refused.status == 409 and refused.body["code"] == "still_referenced", refused.body
    assert [r["id"] for r in refused.body["referencedBy"]] == [a["contract"]]
    assert "outside this key's objects" in refused.body["detail"]
    assert b["contract"] not in refused.raw.decode() and b["unit"] not in refused.raw.decode()

    # bulk uploads: a location in B is as unknown as a missing one; another key's batch too
    upload = {"fileName": "x.pdf", "contentType": "application/pdf", "size": 100}
    outside = tenant.command("documents.uploads.create", {"uploads": [{**upload, "locationId": b["unit"]}]}, key=key)
    assert outside.status == 404 and outside.body["errors"][0]["path"] == "uploads[0].locationId", outside.body
    inside = tenant.command("documents.uploads.create", {"uploads": [{**upload, "locationId": a["unit"]}]}, key=key)
    assert inside.status == 200, inside.body
    theirs = tenant.ok("documents.uploads.create", {"uploads": [{**upload, "locationId": b["unit"]}]})["batch"]["id"]
    mine_batch = inside.body["batch"]["id"]
    assert tenant.query("documents.uploads.progress", {"batch": mine_batch, **PAGE}, key=key).status == 200
    assert tenant.query("documents.uploads.progress", {"batch": theirs, **PAGE}, key=key).status == 404
    assert tenant.query("documents.uploads.progress", {"batch": theirs, **PAGE}).status == 200


# --- the audit trail ------------------------------------------------------------------------


def test_the_audit_trail_of_a_key_limited_to_a_holds_only_as_changes(tenant: Tenant) -> None:
    a, b = _estate(tenant, "WEG A"), _estate(tenant, "WEG B")
    everything = tenant.new_key(["read", "admin"])
    last_of_b = eventually(lambda: _audit(tenant, everything, {"entityId": b["bankAccountUse"]}))[0]
    eventually(lambda: _audit(tenant, everything, {"entityId": a["bankAccountUse"]}))
    key = _limited_key(tenant, [a["object"]], ["read", "admin"])["key"]

    seen = tenant.get("audit.list", {"limit": 1000, "offset": 0}, key=key)
    entities = {record["entityId"] for record in seen["auditRecords"]}
    assert seen["pagination"]["total"] == len(seen["auditRecords"])
    assert entities == set(a.values()), entities ^ set(a.values())  # each of A's entities, nothing else
    assert tenant.get("audit.list", {**PAGE, "entityId": b["unit"]}, key=key)["pagination"]["total"] == 0
    assert tenant.query("audit.show", {"auditRecord": last_of_b["id"]}, key=key).status == 404
    assert tenant.query("audit.show", {"auditRecord": last_of_b["id"]}, key=everything).status == 200
    own = _audit(tenant, key, {"entityId": a["unit"]})[0]
    assert tenant.get("audit.show", {"auditRecord": own["id"]}, key=key)["auditRecord"]["entityId"] == a["unit"]


def _audit(tenant: Tenant, key: str, filters: dict[str, Any]) -> list[dict[str, Any]]:
    return list(tenant.get("audit.list", {**PAGE, **filters}, key=key)["auditRecords"])


# --- webhooks -------------------------------------------------------------------------------


def test_a_webhook_of_a_key_limited_to_a_hears_only_of_as_entities(tenant: Tenant) -> None:
    portal, everything = Receiver().start(), Receiver().start()
    try:
        a, b = _object(tenant, "WEG A"), _object(tenant, "WEG B")
        key = _limited_key(tenant, [a["id"]], ["read", "write"])["key"]
        hook = tenant.ok("webhooks.create", {"name": "Portal", "url": portal.url, "events": ["unit.created"]}, key=key)[
            "webhook"
        ]
        assert hook["objects"] == [a["id"]]
        assert tenant.get("webhooks.show", {"webhook": hook["id"]}, key=key)["webhook"]["id"] == hook["id"]
        assert _ids_of(tenant.get("webhooks.list", PAGE, key=key), "webhooks") == [hook["id"]]
        own = tenant.ok("webhooks.create", {"name": "All", "url": everything.url, "events": ["unit.created"]})
        assert tenant.query("webhooks.show", {"webhook": own["webhook"]["id"]}, key=key).status == 404

        in_b = tenant.ok("units.create", {"unit": {"objectId": b["id"], "number": "B1", "type": "apartment"}})["unit"]
        in_a = tenant.ok("units.create", {"unit": {"objectId": a["id"], "number": "A1", "type": "apartment"}})["unit"]
        heard_by_all = {d.event["data"]["id"] for d in everything.wait_for(2)}
        assert heard_by_all == {in_a["id"], in_b["id"]}  # B's unit's event was made (after it, A's)
        assert [d.event["data"]["id"] for d in portal.wait_for(1)] == [in_a["id"]]
        assert [d.event["data"]["id"] for d in portal.delivered()] == [in_a["id"]]  # and B's never came
    finally:
        portal.stop()
        everything.stop()


def test_the_alias_list_of_a_key_limited_to_a_names_only_as_entities(tenant: Tenant) -> None:
    a, b = _estate(tenant, "WEG A"), _estate(tenant, "WEG B")
    for estate, prefix in ((a, "a"), (b, "b")):
        for kind in ("unit", "contract", "document", "party"):
            tenant.alias(f"{prefix}-{kind}", estate[kind], "contact" if kind == "party" else kind)
    key = _limited_key(tenant, [a["object"]], ["read"])["key"]
    listed = tenant.get("aliases.list", PAGE, key=key)
    assert [e["alias"] for e in listed["aliases"]] == ["a-contract", "a-document", "a-party", "a-unit"]
    assert listed["pagination"]["total"] == 4
    assert tenant.get("aliases.list", PAGE)["pagination"]["total"] == 8
