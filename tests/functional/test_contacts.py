"""Contacts through HTTP: create, show, list with filters, update, merge."""

from __future__ import annotations

from tests.client import Tenant


def test_create_show_update_round_trip(tenant: Tenant) -> None:
    created = tenant.contact(
        salutation="ms",
        firstName="Erika",
        lastName="Mustermann",
        emails=[{"address": "erika@example.org", "type": "private", "primary": True}],
        phones=[{"number": "+49 30 1234567", "type": "mobile"}],
        address={
            "street": "Musterstraße",
            "houseNumber": "12a",
            "postalCode": "10115",
            "city": "Berlin",
            "countryCode": "DE",
        },
        language="de",
        dateOfBirth="1980-02-29",
    )
    assert created["id"].startswith("con_")
    assert created["version"] == 1 and created["aliases"] == []
    assert created["createdAt"].endswith("Z")
    shown = tenant.get("contacts.show", {"contact": created["id"]})["contact"]
    assert shown == created
    updated = tenant.ok(
        "contacts.update", {"contact": {"id": created["id"], "firstName": "Erika M.", "dateOfBirth": None}}
    )["contact"]
    assert updated["firstName"] == "Erika M."
    assert "dateOfBirth" not in updated
    assert updated["version"] == 2
    assert updated["lastName"] == "Mustermann"


def test_natural_person_needs_last_name_and_legal_person_company_name(tenant: Tenant) -> None:
    natural = tenant.command("contacts.create", {"contact": {"personType": "natural", "firstName": "Nur"}})
    legal = tenant.command("contacts.create", {"contact": {"personType": "legal", "lastName": "X"}})
    assert natural.status == legal.status == 400
    assert natural.body["errors"][0]["path"] == "contact.lastName"
    assert legal.body["errors"][0]["path"] == "contact.companyName"


def test_update_cannot_break_the_person_rules(tenant: Tenant) -> None:
    c = tenant.contact()
    answer = tenant.command("contacts.update", {"contact": {"id": c["id"], "lastName": None}})
    assert answer.status == 400


def test_invalid_date_is_400(tenant: Tenant) -> None:
    answer = tenant.command(
        "contacts.create", {"contact": {"personType": "natural", "lastName": "X", "dateOfBirth": "2023-02-30"}}
    )
    assert answer.status == 400


def test_stale_version_is_409(tenant: Tenant) -> None:
    c = tenant.contact()
    tenant.ok("contacts.update", {"contact": {"id": c["id"], "notes": "first"}})
    answer = tenant.command("contacts.update", {"contact": {"id": c["id"], "notes": "second", "version": 1}})
    assert answer.status == 409
    assert answer.body["code"] == "stale_version"
    assert answer.body["currentVersion"] == 2


def test_an_update_of_id_and_version_alone_is_400_and_changes_nothing(tenant: Tenant) -> None:
    c = tenant.contact()
    for payload in ({"id": c["id"], "version": 1}, {"id": c["id"]}):
        answer = tenant.command("contacts.update", {"contact": payload})
        assert answer.status == 400, payload
        assert "at least one field to change" in answer.body["errors"][0]["message"]
    assert tenant.get("contacts.show", {"contact": c["id"]})["contact"]["version"] == 1
    assert (
        tenant.ok("contacts.update", {"contact": {"id": c["id"], "version": 1, "notes": "n"}})["contact"]["version"]
        == 2
    )


def test_company_reference_must_exist(tenant: Tenant) -> None:
    answer = tenant.command(
        "contacts.create",
        {"contact": {"personType": "natural", "lastName": "X", "companyId": "con_01K00000000000000000000000"}},
    )
    assert answer.status == 404
    assert answer.body["errors"][0]["path"] == "contact.companyId"
    assert tenant.get("contacts", {"limit": 10, "offset": 0})["pagination"]["total"] == 0


def test_contact_cannot_belong_to_itself(tenant: Tenant) -> None:
    c = tenant.contact(personType="legal", companyName="Self AG")
    answer = tenant.command("contacts.update", {"contact": {"id": c["id"], "companyId": c["id"]}})
    assert answer.status == 400


def test_filters_by_company_and_person_type(tenant: Tenant) -> None:
    acme = tenant.contact(personType="legal", companyName="ACME GmbH")
    other = tenant.contact(personType="legal", companyName="Other GmbH")
    staff = [tenant.contact(lastName=f"Staff{i}", companyId=acme["id"]) for i in range(3)]
    tenant.contact(lastName="Elsewhere", companyId=other["id"])
    by_company = tenant.get("contacts", {"limit": 10, "offset": 0, "companyId": acme["id"]})
    assert [c["id"] for c in by_company["contacts"]] == [s["id"] for s in staff]
    assert by_company["pagination"] == {"total": 3, "limit": 10, "offset": 0}
    legal = tenant.get("contacts", {"limit": 10, "offset": 0, "personType": "legal"})
    assert {c["id"] for c in legal["contacts"]} == {acme["id"], other["id"]}
    both = tenant.get("contacts", {"limit": 10, "offset": 0, "personType": "legal", "companyId": acme["id"]})
    assert both["pagination"]["total"] == 0


def test_filter_by_company_accepts_an_alias(tenant: Tenant) -> None:
    acme = tenant.contact(personType="legal", companyName="ACME GmbH")
    person = tenant.contact(companyId=acme["id"])
    tenant.ok("aliases.upsert", {"entries": [{"alias": "acme", "id": acme["id"], "type": "contact"}]})
    listed = tenant.get("contacts", {"limit": 10, "offset": 0, "companyId": "acme"})
    assert [c["id"] for c in listed["contacts"]] == [person["id"]]


def test_changing_the_company_moves_the_contact_between_filters(tenant: Tenant) -> None:
    a = tenant.contact(personType="legal", companyName="A")
    b = tenant.contact(personType="legal", companyName="B")
    p = tenant.contact(companyId=a["id"])
    tenant.ok("contacts.update", {"contact": {"id": p["id"], "companyId": b["id"]}})
    assert tenant.get("contacts", {"limit": 10, "offset": 0, "companyId": a["id"]})["pagination"]["total"] == 0
    assert tenant.get("contacts", {"limit": 10, "offset": 0, "companyId": b["id"]})["pagination"]["total"] == 1


def test_merge_answers_200_and_the_source_is_gone(tenant: Tenant) -> None:
    source = tenant.contact(lastName="Duplikat")
    target = tenant.contact(lastName="Original")
    tenant.ok("aliases.upsert", {"entries": [{"alias": "crm-17", "id": source["id"], "type": "contact"}]})
    answer = tenant.command("contacts.merge", {"sourceContact": "crm-17", "targetContact": target["id"]})
    assert answer.status == 200
    assert answer.body["contact"]["id"] == target["id"]
    assert answer.body["contact"]["aliases"] == ["crm-17"]
    assert tenant.query("contacts.show", {"contact": source["id"]}).status == 404
    assert tenant.get("contacts.show", {"contact": "crm-17"})["contact"]["id"] == target["id"]
    listed = tenant.get("contacts", {"limit": 100, "offset": 0})
    assert [c["id"] for c in listed["contacts"]] == [target["id"]]
    assert listed["pagination"]["total"] == 1


def test_merge_moves_company_references_to_the_target(tenant: Tenant) -> None:
    old = tenant.contact(personType="legal", companyName="Alt GmbH")
    new = tenant.contact(personType="legal", companyName="Neu GmbH")
    staff = [tenant.contact(lastName=f"P{i}", companyId=old["id"]) for i in range(3)]
    result = tenant.ok("contacts.merge", {"sourceContact": old["id"], "targetContact": new["id"]})
    assert result["merge"]["movedReferences"] == 3
    moved = tenant.get("contacts", {"limit": 10, "offset": 0, "companyId": new["id"]})
    assert {c["id"] for c in moved["contacts"]} == {s["id"] for s in staff}
    assert all(c["companyId"] == new["id"] for c in moved["contacts"])


def test_merge_into_itself_is_409_also_through_an_alias(tenant: Tenant) -> None:
    c = tenant.contact()
    tenant.ok("aliases.upsert", {"entries": [{"alias": "me", "id": c["id"], "type": "contact"}]})
    answer = tenant.command("contacts.merge", {"sourceContact": "me", "targetContact": c["id"]})
    assert answer.status == 409
    assert answer.body["code"] == "merge_into_self"


def test_merge_of_an_unknown_contact_is_404(tenant: Tenant) -> None:
    c = tenant.contact()
    answer = tenant.command("contacts.merge", {"sourceContact": "nobody", "targetContact": c["id"]})
    assert answer.status == 404
    assert answer.body["errors"][0]["path"] == "sourceContact"
