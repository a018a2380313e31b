"""Read per area (issue 30): `read:<area>` opens the queries of one area, `read` all of them;
the queries of no area (info, tenant, status, openapi.spec, ...) take any read scope. Bank data
and direct debit mandates are the `accounting` area, so a key can read contacts without IBANs."""

from __future__ import annotations

from typing import Any

from tests.client import Api, Tenant
from tests.eventually import eventually
from tests.mcp_client import McpSession

PAGE = {"limit": 50, "offset": 0}


def _object(tenant: Tenant) -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": "WEG Rosenweg 5", "type": "weg"}})["object"])


def test_a_contacts_reader_lists_contacts_and_is_refused_units_and_bank_data(tenant: Tenant) -> None:
    anna = tenant.contact(lastName="Anna")
    tenant.ok(
        "accounting.bankaccountinfos.create.contact",
        {"contact": anna["id"], "bankAccountInfo": {"iban": "DE89370400440532013000", "accountHolder": "Anna"}},
    )
    reader = tenant.new_key(["read:contacts"])

    listed = tenant.get("contacts", PAGE, key=reader)
    assert [c["id"] for c in listed["contacts"]] == [anna["id"]]
    assert tenant.get("contacts.show", {"contact": anna["id"]}, key=reader)["contact"]["lastName"] == "Anna"
    assert "DE89" not in str(listed)

    for name, params in (
        ("units", PAGE),
        ("accounting.bankaccountinfos.list", PAGE),
        ("accounting.bankaccountinfos.list", {**PAGE, "contact": anna["id"]}),
    ):
        answer = tenant.query(name, params, key=reader)
        assert answer.status == 403, (name, answer.body)
        assert answer.body["code"] == "missing_scope"
        scope = "read:units" if name == "units" else "read:accounting"
        assert scope in answer.body["detail"] and answer.body["requiredScopes"] == [scope]


def test_queries_of_no_area_take_any_read_scope_and_none_without_one(tenant: Tenant) -> None:
    reader = tenant.new_key(["read:contacts"])
    for name in ("info", "tenant", "status", "openapi.spec", "webhooks.eventTypes", "documents.typemappings"):
        assert tenant.query(name, key=reader).status == 200, name
    writer = tenant.new_key(["write:contacts"])
    answer = tenant.query("info", key=writer)
    assert answer.status == 403 and answer.body["code"] == "missing_scope"
    assert answer.body["detail"] == "This key lacks the scope a read scope (`read` or `read:<area>`) needed for info."


def test_read_covers_every_area_and_an_area_scope_only_its_own(tenant: Tenant) -> None:
    obj = _object(tenant)
    everything, objects_only = tenant.new_key(["read"]), tenant.new_key(["read:objects"])
    assert tenant.get("objects", key=everything)["objects"][0]["id"] == obj["id"]
    assert tenant.get("objects.show", {"object": obj["id"]}, key=objects_only)["object"]["id"] == obj["id"]
    assert tenant.get("unitgroups.listforobject", {"object": obj["id"]}, key=objects_only) is not None
    assert tenant.query("contacts", PAGE, key=objects_only).status == 403
    assert tenant.query("contacts", PAGE, key=everything).status == 200


def test_a_contacts_reader_finds_only_its_areas_tools_and_paths(api: Api, tenant: Tenant) -> None:
    reader = tenant.new_key(["read:contacts"])
    spec = tenant.get("openapi.spec", key=reader)
    queries = {path.rsplit("/", 1)[1] for path in spec["paths"]}
    assert {"contacts", "contacts.show", "info", "openapi.spec"} <= queries
    assert not [q for q in queries if q.startswith(("units", "accounting.", "objects"))]

    with McpSession(api.base, reader) as mcp:
        found = mcp.ok("meta.tools.search", {"query": "units of an object Wohnungen", "limit": 50})
        names = {tool["name"] for tool in found["tools"]}
        assert not [n for n in names if n.startswith("units")], names
        all_names = {
            tool["name"]
            for offset in (0, 50, 100)
            for tool in mcp.ok("meta.tools.search", {"limit": 50, "offset": offset})["tools"]
        }
        assert "contacts.show" in all_names and "units.show" not in all_names
        refused = mcp.execute("units", {"limit": 5, "offset": 0})
        assert refused.is_error and "read:units" in str(refused.structured_content)


def test_a_key_hands_on_only_the_read_it_holds(tenant: Tenant) -> None:
    area_admin = tenant.new_key(["read:contacts", "admin"])
    answer = tenant.command("apikeys.create", {"apiKey": {"agentName": "x", "scopes": ["read"]}}, key=area_admin)
    assert answer.status == 403 and answer.body["code"] == "scope_escalation"
    answer = tenant.command("apikeys.create", {"apiKey": {"agentName": "y", "scopes": ["read:units"]}}, key=area_admin)
    assert answer.status == 403 and answer.body["code"] == "scope_escalation"
    made = tenant.command("apikeys.create", {"apiKey": {"agentName": "z", "scopes": ["read:contacts"]}}, key=area_admin)
    assert made.status == 200 and made.body["apiKey"]["scopes"] == ["read:contacts"]
    full_admin = tenant.new_key(["read", "admin"])
    made = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "w", "scopes": ["read:accounting"]}}, key=full_admin
    )
    assert made.status == 200


def test_every_query_names_a_read_scope_of_an_area_or_any_read(tenant: Tenant) -> None:
    """The docs say which: `read:<area>` or any read scope."""
    spec = tenant.get("openapi.spec")
    for path, methods in spec["paths"].items():
        if "get" not in methods or "/v2/query/" not in path:
            continue
        scopes = methods["get"]["x-scopes"]
        assert scopes == ["admin"] or scopes == ["read"] or scopes[0].startswith("read:"), (path, scopes)


def test_the_audit_trail_shows_a_key_the_changes_of_the_areas_it_reads(tenant: Tenant) -> None:
    anna = tenant.contact(lastName="Anna")
    obj = _object(tenant)
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "1", "type": "apartment"}})["unit"]
    everything = tenant.new_key(["read"])
    unit_record = eventually(lambda: next(iter(_records(tenant, everything, unit["id"])), None))
    eventually(lambda: _records(tenant, everything, anna["id"]))

    reader = tenant.new_key(["read:contacts"])
    listed = tenant.get("audit.list", PAGE, key=reader)
    assert {r["entityType"] for r in listed["auditRecords"]} == {"contact"}
    assert listed["pagination"]["total"] == len(listed["auditRecords"]) == 1
    assert tenant.get("audit.list", {**PAGE, "entityId": unit["id"]}, key=reader)["pagination"]["total"] == 0
    assert tenant.query("audit.show", {"auditRecord": unit_record["id"]}, key=reader).status == 404
    assert tenant.query("audit.show", {"auditRecord": unit_record["id"]}, key=everything).status == 200


def _records(tenant: Tenant, key: str, entity_id: str) -> list[dict[str, Any]]:
    return list(tenant.get("audit.list", {**PAGE, "entityId": entity_id}, key=key)["auditRecords"])
