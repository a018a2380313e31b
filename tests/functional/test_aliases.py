"""Aliases through HTTP, and alias resolution on every reference argument."""

from __future__ import annotations

from chalicelib import clock, ids
from tests.client import Tenant


def test_upsert_list_resolve(tenant: Tenant) -> None:
    a, b = tenant.contact(), tenant.contact()
    obj = tenant.ok("objects.create", {"object": {"name": "Haus", "type": "rental"}})["object"]
    stored = tenant.ok(
        "aliases.upsert",
        {
            "entries": [
                {"alias": "c-b", "id": b["id"], "type": "contact"},
                {"alias": "c-a", "id": a["id"], "type": "contact"},
                {"alias": "o-1", "id": obj["id"], "type": "object"},
            ]
        },
    )["aliases"]
    assert len(stored) == 3
    listed = tenant.get("aliases.list", {"limit": 10, "offset": 0})
    assert [e["alias"] for e in listed["aliases"]] == ["c-a", "c-b", "o-1"]
    assert listed["pagination"]["total"] == 3
    assert all(not e["alias"].startswith("$") for e in listed["aliases"])
    resolved = tenant.get(
        "aliases.resolve",
        [("aliases", "o-1"), ("aliases", "nothing"), ("ids", a["id"]), ("ids", "con_01K00000000000000000000000")],
    )
    assert resolved["aliases"] == [
        {"alias": "o-1", "id": obj["id"], "type": "object"},
        {"alias": "c-a", "id": a["id"], "type": "contact"},
    ]


def test_an_entity_can_have_several_aliases_and_upsert_is_repeatable(tenant: Tenant) -> None:
    c = tenant.contact()
    body = {
        "entries": [
            {"alias": "x1", "id": c["id"], "type": "contact"},
            {"alias": "x2", "id": c["id"], "type": "contact"},
        ]
    }
    tenant.ok("aliases.upsert", body)
    tenant.ok("aliases.upsert", body)
    assert tenant.get("contacts.show", {"contact": "x2"})["contact"]["aliases"] == ["x1", "x2"]
    assert tenant.get("aliases.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 2


def test_taken_alias_is_409_naming_the_entry_and_nothing_is_written(tenant: Tenant) -> None:
    a, b = tenant.contact(), tenant.contact()
    tenant.ok("aliases.upsert", {"entries": [{"alias": "taken", "id": a["id"], "type": "contact"}]})
    answer = tenant.command(
        "aliases.upsert",
        {
            "entries": [
                {"alias": "fresh", "id": b["id"], "type": "contact"},
                {"alias": "taken", "id": b["id"], "type": "contact"},
            ]
        },
    )
    assert answer.status == 409
    assert answer.body["code"] == "alias_taken"
    assert "entries[1]" in answer.body["detail"]
    assert tenant.get("aliases.resolve", {"aliases": ["fresh"]})["aliases"] == []


def test_alias_of_an_unknown_entity_is_404(tenant: Tenant) -> None:
    answer = tenant.command(
        "aliases.upsert", {"entries": [{"alias": "ghost", "id": "con_01K00000000000000000000000", "type": "contact"}]}
    )
    assert answer.status == 404
    assert answer.body["errors"][0]["path"] == "entries[0].id"


def test_alias_type_must_match_the_entity(tenant: Tenant) -> None:
    c = tenant.contact()
    assert (
        tenant.command("aliases.upsert", {"entries": [{"alias": "a", "id": c["id"], "type": "object"}]}).status == 404
    )
    assert (
        tenant.command("aliases.upsert", {"entries": [{"alias": "a", "id": c["id"], "type": "dragon"}]}).status == 400
    )


def test_aliases_are_bare_and_never_look_like_ids(tenant: Tenant) -> None:
    c = tenant.contact()
    assert (
        tenant.command("aliases.upsert", {"entries": [{"alias": "$x", "id": c["id"], "type": "contact"}]}).status == 400
    )
    assert (
        tenant.command("aliases.upsert", {"entries": [{"alias": c["id"], "id": c["id"], "type": "contact"}]}).status
        == 400
    )


def test_an_id_from_elsewhere_of_the_entrys_type_may_be_an_alias(tenant: Tenant) -> None:
    """Issue 52, 1: as the upserts map an export's id, aliases.upsert maps a document's (pmctl import)."""
    c = tenant.contact()
    elsewhere = ids.new_id("con")  # another tenant's contact, say
    mapped = tenant.command("aliases.upsert", {"entries": [{"alias": elsewhere, "id": c["id"], "type": "contact"}]})
    assert mapped.status == 200, mapped.body
    resolved = tenant.get("aliases.resolve", {"aliases": elsewhere})["aliases"]
    assert resolved == [{"alias": elsewhere, "id": c["id"], "type": "contact"}]
    assert tenant.query("contacts.show", {"contact": elsewhere}).status == 404, "a command reads an id as an id"
    other_type = tenant.command(
        "aliases.upsert", {"entries": [{"alias": ids.new_id("obj"), "id": c["id"], "type": "contact"}]}
    )
    assert other_type.status == 400 and other_type.body["errors"][0]["path"] == "entries[0].alias"
    own = tenant.contact()
    refused = tenant.command("aliases.upsert", {"entries": [{"alias": own["id"], "id": c["id"], "type": "contact"}]})
    assert refused.status == 400 and "of this tenant" in refused.body["detail"], refused.body


def test_entries_of_unknown_entity_types_are_omitted_from_listings(tenant: Tenant) -> None:
    from chalicelib.context import CallContext
    from chalicelib.store.aliases import ALIAS_SK, alias_list_pk, alias_pk
    from chalicelib.store.model import Item

    c = tenant.contact()
    tenant.ok("aliases.upsert", {"entries": [{"alias": "known", "id": c["id"], "type": "contact"}]})
    ctx = CallContext(tenant_id=tenant.id, key_id="", agent_name="", scopes=frozenset())
    # An entry written by some older version for a type this service no longer knows:
    Item(alias_pk(ctx, "relic"), ALIAS_SK, type="alias", tenantId=tenant.id, id="zzz_01K00000000000000000000000",
         data={"alias": "relic", "id": "zzz_01K00000000000000000000000", "type": "retiredThing"},
         createdAt=clock.now_iso(), gsi1pk=alias_list_pk(ctx), gsi1sk="relic").save()  # fmt: skip
    listed = tenant.get("aliases.list", {"limit": 10, "offset": 0})["aliases"]
    assert [e["alias"] for e in listed] == ["known"]
    assert tenant.get("aliases.resolve", {"aliases": ["relic"]})["aliases"] == []


def test_deleted_entities_do_not_resolve(tenant: Tenant) -> None:
    a, b = tenant.contact(), tenant.contact()
    tenant.ok("aliases.upsert", {"entries": [{"alias": "dup", "id": a["id"], "type": "contact"}]})
    tenant.ok("contacts.merge", {"sourceContact": b["id"], "targetContact": a["id"]})
    assert tenant.get("aliases.resolve", {"ids": [b["id"]]})["aliases"] == []


# Alias resolution on every reference argument of every operation is proven by
# tests/functional/test_catalogue.py, which runs each operation's example with aliases;
# the test below walks the foundation's references one by one.


def test_alias_resolution_on_every_reference_argument(tenant: Tenant) -> None:
    company = tenant.contact(personType="legal", companyName="Firma")
    person = tenant.contact()
    spare = tenant.contact()
    obj = tenant.ok("objects.create", {"object": {"name": "Haus", "type": "rental"}})["object"]
    tenant.ok(
        "aliases.upsert",
        {
            "entries": [
                {"alias": "firma", "id": company["id"], "type": "contact"},
                {"alias": "person", "id": person["id"], "type": "contact"},
                {"alias": "spare", "id": spare["id"], "type": "contact"},
                {"alias": "haus", "id": obj["id"], "type": "object"},
            ]
        },
    )
    employee = tenant.ok(
        "contacts.create", {"contact": {"personType": "natural", "lastName": "A", "companyId": "firma"}}
    )["contact"]
    assert employee["companyId"] == company["id"]
    assert (
        tenant.get("contacts", {"limit": 10, "offset": 0, "companyId": "firma"})["contacts"][0]["id"] == employee["id"]
    )
    assert tenant.get("contacts.show", {"contact": "person"})["contact"]["id"] == person["id"]
    updated = tenant.ok("contacts.update", {"contact": {"id": "person", "companyId": "firma"}})["contact"]
    assert updated["id"] == person["id"] and updated["companyId"] == company["id"]
    assert tenant.get("objects.show", {"object": "haus"})["object"]["id"] == obj["id"]
    assert tenant.ok("objects.update", {"object": {"id": "haus", "notes": "n"}})["object"]["notes"] == "n"
    key = tenant.ok("apikeys.create", {"apiKey": {"agentName": "p", "scopes": ["read"], "person": "person"}})["apiKey"]
    assert key["binding"]["contactId"] == person["id"]
    merged = tenant.ok("contacts.merge", {"sourceContact": "spare", "targetContact": "person"})
    assert merged["merge"] == {
        "sourceContact": spare["id"],
        "targetContact": person["id"],
        "movedReferences": 0,
        "movedAliases": 1,
    }
