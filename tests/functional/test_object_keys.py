"""Keys limited to objects (issue 30, point 3): `apikeys.create` takes `objects`; such a key
reads and writes only the entities of those objects (README "Object-limited keys")."""

from __future__ import annotations

import uuid
from typing import Any

from tests.client import Tenant

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


def test_commands_outside_the_keys_objects_are_refused(tenant: Tenant) -> None:
    a, b = _estate(tenant, "A"), _estate(tenant, "B")
    key = _limited_key(tenant, [a["object"]], ["read", "write", "destructive"])["key"]

    refused = tenant.command(
        "units.create", {"unit": {"objectId": b["object"], "number": "9", "type": "other"}}, key=key
    )
    assert refused.status == 403 and refused.body["code"] == "outside_key_objects", refused.body
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
    # all of B stays as it was
    assert tenant.get("units.show", {"unit": b["unit"]})["unit"]["number"] == "1.01"
    assert (
        tenant.get("responsibilities.show", {"responsibility": a["responsibility"]})["responsibility"]["objectId"]
        == a["object"]
    )
