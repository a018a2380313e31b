"""Keys and scopes through HTTP: who may call what."""

from __future__ import annotations

import pytest

from chalicelib import auth, keyformat
from tests.client import Api, Tenant


def test_missing_key_is_401_problem(api: Api) -> None:
    answer = api.query("contacts", {"limit": 10, "offset": 0})
    assert answer.status == 401
    assert answer.content_type.startswith("application/problem+json")
    assert answer.body["code"] == "missing_key"


def test_malformed_key_is_401(api: Api) -> None:
    answer = api.query("info", key="not-a-key")
    assert answer.status == 401 and answer.body["code"] == "invalid_key" and "format" in answer.body["detail"]


def test_key_with_wrong_checksum_is_401_without_lookup(
    api: Api, tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked_up: list[str] = []
    monkeypatch.setattr(auth, "key_facts", lambda hashed: looked_up.append(hashed))
    broken = tenant.key[:-1] + ("A" if tenant.key[-1] != "A" else "B")
    answer = api.query("info", key=broken)
    assert answer.status == 401 and answer.body["code"] == "invalid_key" and "checksum" in answer.body["detail"]
    assert looked_up == [], "a key with a wrong checksum was looked up in the table"


def test_well_formed_unknown_key_is_401(api: Api) -> None:
    answer = api.query("info", key=keyformat.new_secret())
    assert answer.status == 401 and answer.body["code"] == "invalid_key" and answer.body["detail"] == "Unknown API key."


def test_status_needs_a_key_but_version_does_not(api: Api) -> None:
    status = api.query("status")
    assert status.status == 401 and status.body["code"] == "missing_key"
    version = api.request("GET", "/api/platform/v1/query/version")
    assert version.status == 200 and version.body["version"]


def test_disabled_key_is_401(tenant: Tenant) -> None:
    created = tenant.ok("apikeys.create", {"apiKey": {"agentName": "temp-bot", "scopes": ["read"]}})["apiKey"]
    assert tenant.query("info", key=created["key"]).status == 200
    tenant.ok("apikeys.disable", {"apiKey": created["id"]})
    answer = tenant.query("info", key=created["key"])
    assert answer.status == 401
    assert answer.body["code"] == "key_disabled"


def test_read_only_key_cannot_run_commands(tenant: Tenant) -> None:
    reader = tenant.new_key(["read"], agent="reader")
    answer = tenant.command("contacts.create", {"contact": {"personType": "natural", "lastName": "X"}}, key=reader)
    assert answer.status == 403
    assert answer.body["code"] == "missing_scope"
    assert tenant.query("contacts", {"limit": 5, "offset": 0}, key=reader).status == 200


def test_read_only_key_sees_no_commands_in_its_openapi(tenant: Tenant) -> None:
    reader = tenant.new_key(["read"], agent="reader")
    spec = tenant.get("openapi.spec", key=reader)
    methods = {method for path in spec["paths"].values() for method in path}
    assert methods == {"get"}
    assert not [p for p in spec["paths"] if "/command/" in p]
    assert "/propertymanagement/v2/query/apikeys.list" not in spec["paths"]  # admin only


def test_area_write_scope_is_limited_to_its_area(tenant: Tenant) -> None:
    contacts_writer = tenant.new_key(["read", "write:contacts"], agent="crm-sync")
    assert (
        tenant.command(
            "contacts.create", {"contact": {"personType": "legal", "companyName": "X GmbH"}}, key=contacts_writer
        ).status
        == 200
    )
    answer = tenant.command("objects.create", {"object": {"name": "Haus", "type": "rental"}}, key=contacts_writer)
    assert answer.status == 403 and answer.body["code"] == "missing_scope" and "write:objects" in answer.body["detail"]


def test_destructive_needs_its_own_scope(tenant: Tenant) -> None:
    writer = tenant.new_key(["read", "write"], agent="writer")
    a, b = tenant.contact(), tenant.contact()
    answer = tenant.command("contacts.merge", {"sourceContact": a["id"], "targetContact": b["id"]}, key=writer)
    assert answer.status == 403 and answer.body["code"] == "missing_scope"
    assert "destructive" in answer.body["detail"]


def test_a_key_cannot_grant_more_than_it_holds(tenant: Tenant) -> None:
    admin_reader = tenant.new_key(["read", "admin"], agent="key-admin")
    answer = tenant.command("apikeys.create", {"apiKey": {"agentName": "x", "scopes": ["write"]}}, key=admin_reader)
    assert answer.status == 403
    assert answer.body["code"] == "scope_escalation"


def test_key_management_needs_admin(tenant: Tenant) -> None:
    writer = tenant.new_key(["read", "write", "destructive"], agent="writer")
    answer = tenant.query("apikeys.list", {"limit": 10, "offset": 0}, key=writer)
    assert answer.status == 403 and answer.body["code"] == "missing_scope" and "admin" in answer.body["detail"]


def test_key_list_never_shows_secrets(tenant: Tenant) -> None:
    secret = tenant.new_key(["read"], agent="listed")
    answer = tenant.query("apikeys.list", {"limit": 100, "offset": 0})
    assert answer.status == 200
    assert secret not in answer.raw.decode()
    assert tenant.key not in answer.raw.decode()
    assert all("key" not in k for k in answer.body["apiKeys"])
    assert {k["agentName"] for k in answer.body["apiKeys"]} >= {"setup", "listed"}


def test_person_bound_key_reports_its_person(tenant: Tenant) -> None:
    person = tenant.contact(firstName="Petra", lastName="Verwalterin")
    key = tenant.new_key(["read"], agent="petra-assistant", person=person["id"])
    info = tenant.get("info", key=key)
    assert info["key"]["binding"] == {"type": "person", "contactId": person["id"]}
    assert info["key"]["agentName"] == "petra-assistant"


def test_person_binding_must_name_a_contact_of_the_tenant(tenant: Tenant, other_tenant: Tenant) -> None:
    foreign = other_tenant.contact()
    answer = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "x", "scopes": ["read"], "person": foreign["id"]}}
    )
    assert answer.status == 404 and answer.body["code"] == "not_found"
    assert answer.body["errors"][0]["path"] == "apiKey.person"


def test_signup_key_holds_every_scope(tenant: Tenant) -> None:
    assert set(tenant.get("info")["key"]["scopes"]) == {"read", "write", "destructive", "admin"}


def test_key_use_is_recorded(tenant: Tenant) -> None:
    tenant.get("info")
    keys = tenant.get("apikeys.list", {"limit": 10, "offset": 0})["apiKeys"]
    assert keys[0]["lastUsedAt"]


def test_expired_key_is_401(tenant: Tenant) -> None:
    import datetime as dt

    from chalicelib import clock

    soon = clock.iso(clock.now() + dt.timedelta(hours=1))
    key = tenant.ok("apikeys.create", {"apiKey": {"agentName": "short-lived", "scopes": ["read"], "expiresAt": soon}})[
        "apiKey"
    ]
    assert key["expiresAt"] == soon
    assert tenant.query("info", key=key["key"]).status == 200
    clock.set_clock(lambda: dt.datetime.now(dt.UTC) + dt.timedelta(hours=2))
    try:
        answer = tenant.query("info", key=key["key"])
    finally:
        clock.set_clock(None)
    assert answer.status == 401 and answer.body["code"] == "key_expired"


def test_expiry_in_the_past_is_400(tenant: Tenant) -> None:
    answer = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "x", "scopes": ["read"], "expiresAt": "2000-01-01T00:00:00Z"}}
    )
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "apiKey.expiresAt"
