"""Tenant A can neither see nor change tenant B's data, by id or by alias."""

from __future__ import annotations

from tests.client import Tenant


def test_tenants_cannot_read_each_others_contacts(tenant: Tenant, other_tenant: Tenant) -> None:
    theirs = other_tenant.contact(lastName="Geheim")
    other_tenant.ok("aliases.upsert", {"entries": [{"alias": "secret", "id": theirs["id"], "type": "contact"}]})
    assert tenant.query("contacts.show", {"contact": theirs["id"]}).status == 404
    assert tenant.query("contacts.show", {"contact": "secret"}).status == 404
    assert tenant.get("contacts", {"limit": 100, "offset": 0})["pagination"]["total"] == 0
    assert tenant.get("aliases.list", {"limit": 100, "offset": 0})["aliases"] == []
    assert tenant.get("aliases.resolve", [("aliases", "secret"), ("ids", theirs["id"])])["aliases"] == []
    assert tenant.get("contacts", {"limit": 10, "offset": 0, "companyId": theirs["id"]})["pagination"]["total"] == 0


def test_tenants_cannot_change_each_others_contacts(tenant: Tenant, other_tenant: Tenant) -> None:
    theirs = other_tenant.contact(lastName="Geheim")
    mine = tenant.contact()
    assert tenant.command("contacts.update", {"contact": {"id": theirs["id"], "lastName": "Hacked"}}).status == 404
    assert tenant.command("contacts.merge", {"sourceContact": theirs["id"], "targetContact": mine["id"]}).status == 404
    assert tenant.command("contacts.merge", {"sourceContact": mine["id"], "targetContact": theirs["id"]}).status == 404
    assert (
        tenant.command(
            "contacts.create", {"contact": {"personType": "natural", "lastName": "X", "companyId": theirs["id"]}}
        ).status
        == 404
    )
    assert (
        tenant.command(
            "aliases.upsert", {"entries": [{"alias": "mine-now", "id": theirs["id"], "type": "contact"}]}
        ).status
        == 404
    )
    assert other_tenant.get("contacts.show", {"contact": theirs["id"]})["contact"]["lastName"] == "Geheim"


def test_same_alias_names_do_not_collide_across_tenants(tenant: Tenant, other_tenant: Tenant) -> None:
    mine, theirs = tenant.contact(lastName="Mine"), other_tenant.contact(lastName="Theirs")
    tenant.ok("aliases.upsert", {"entries": [{"alias": "k-1", "id": mine["id"], "type": "contact"}]})
    other_tenant.ok("aliases.upsert", {"entries": [{"alias": "k-1", "id": theirs["id"], "type": "contact"}]})
    assert tenant.get("contacts.show", {"contact": "k-1"})["contact"]["lastName"] == "Mine"
    assert other_tenant.get("contacts.show", {"contact": "k-1"})["contact"]["lastName"] == "Theirs"


def test_keys_of_another_tenant_cannot_be_disabled(tenant: Tenant, other_tenant: Tenant) -> None:
    their_key = other_tenant.get("info")["key"]["id"]
    assert tenant.command("apikeys.disable", {"apiKey": their_key}).status == 404
    assert other_tenant.query("info").status == 200


def test_info_and_tenant_describe_the_callers_own_tenant(tenant: Tenant, other_tenant: Tenant) -> None:
    assert tenant.get("tenant")["tenant"]["id"] == tenant.id
    assert other_tenant.get("info")["tenant"]["id"] == other_tenant.id
