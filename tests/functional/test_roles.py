"""Roles at objects through HTTP: responsibilities, signatories and advisors."""

from __future__ import annotations

from typing import Any

from tests.client import Tenant


def make_object(tenant: Tenant, name: str = "WEG Lindenallee 3") -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": name, "type": "weg"}})["object"])


# --- responsibilities ---------------------------------------------------------------------


def test_the_contact_and_object_arguments_file_a_responsibility_by_alias(tenant: Tenant) -> None:
    """Beyond the lifecycle sweep (test_lifecycles.py): contact and object are arguments beside the
    payload, and the responsibility keeps them through delete and restore."""
    obj = make_object(tenant)
    caretaker = tenant.contact(lastName="Hausmeister")
    tenant.alias("obj", obj["id"], "object")
    tenant.alias("hm", caretaker["id"], "contact")
    made = _responsibility(tenant, "hm", "obj", "caretaker")
    tenant.ok("responsibilities.delete", {"responsibility": made})
    restored = tenant.ok("responsibilities.restore", {"responsibility": made})["responsibility"]
    assert restored["id"].startswith("rsp_")
    assert restored["contactId"] == caretaker["id"] and restored["objectId"] == obj["id"]


def _responsibility(tenant: Tenant, contact: str, obj: str, category: str) -> str:
    body = {"responsibility": {"categoryId": category}, "contact": contact, "object": obj}
    return str(tenant.ok("responsibilities.create", body)["responsibility"]["id"])


def test_responsibilities_filter_by_contact_object_and_category(tenant: Tenant) -> None:
    a, b = make_object(tenant, "A"), make_object(tenant, "B")
    anna, ben = tenant.contact(lastName="Anna"), tenant.contact(lastName="Ben")
    r1 = _responsibility(tenant, anna["id"], a["id"], "propertyManager")
    r2 = _responsibility(tenant, anna["id"], b["id"], "accountant")
    r3 = _responsibility(tenant, ben["id"], a["id"], "caretaker")
    r4 = _responsibility(tenant, ben["id"], b["id"], "propertyManager")

    def ids(params: dict[str, Any]) -> list[str]:
        listed = tenant.get("responsibilities.list", {"limit": 100, "offset": 0, **params})
        assert listed["pagination"]["total"] == len(listed["responsibilities"])
        return [r["id"] for r in listed["responsibilities"]]

    assert ids({}) == [r1, r2, r3, r4]
    assert ids({"contactId": anna["id"]}) == [r1, r2]
    assert ids({"contactId": ben["id"]}) == [r3, r4]
    assert ids({"objectId": a["id"]}) == [r1, r3]
    assert ids({"categoryId": "propertyManager"}) == [r1, r4]
    assert ids({"categoryId": "winterService"}) == []
    assert ids({"objectId": b["id"], "categoryId": "propertyManager"}) == [r4]
    assert ids({"contactId": anna["id"], "objectId": b["id"], "categoryId": "accountant"}) == [r2]
    assert tenant.query("responsibilities.list", {"limit": 10, "offset": 0, "categoryId": "janitor"}).status == 400


def test_responsibility_validity_and_required_parts(tenant: Tenant) -> None:
    obj = make_object(tenant)
    c = tenant.contact()
    body: dict[str, Any] = {
        "responsibility": {"categoryId": "cleaning", "validFrom": "2025-02-01", "validTo": "2025-01-31"},
        "contact": c["id"],
        "object": obj["id"],
    }
    refused = tenant.command("responsibilities.create", body)
    assert refused.status == 400 and refused.body["errors"][0]["path"] == "responsibility.validTo"
    assert (
        tenant.command(
            "responsibilities.create", {"responsibility": {"categoryId": "cleaning"}, "contact": c["id"]}
        ).status
        == 400
    )
    assert (
        tenant.command(
            "responsibilities.create", {"responsibility": {}, "contact": c["id"], "object": obj["id"]}
        ).status
        == 400
    )
    r = _responsibility(tenant, c["id"], obj["id"], "cleaning")
    cleared = tenant.command("responsibilities.update", {"responsibility": {"id": r, "categoryId": None}})
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "responsibility.categoryId"


def test_responsibility_can_pass_to_another_contact(tenant: Tenant) -> None:
    obj = make_object(tenant)
    old, new = tenant.contact(lastName="Alt"), tenant.contact(lastName="Neu")
    r = _responsibility(tenant, old["id"], obj["id"], "caretaker")
    tenant.alias("neu", new["id"], "contact")
    moved = tenant.ok("responsibilities.update", {"responsibility": {"id": r, "contactId": "neu"}})["responsibility"]
    assert moved["contactId"] == new["id"]
    tenant.ok("contacts.delete", {"contact": old["id"]})  # no longer referenced
    refused = tenant.command("contacts.delete", {"contact": new["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"


# --- signatories --------------------------------------------------------------------------


def test_signatory_rules_and_alias_references(tenant: Tenant) -> None:
    obj = make_object(tenant)
    person = tenant.contact()
    tenant.alias("prokurist", person["id"], "contact")
    tenant.alias("haus", obj["id"], "object")
    created = tenant.ok(
        "signatories.create", {"signatory": {"contactId": "prokurist", "objectId": "haus", "role": "authorizedOfficer"}}
    )["signatory"]
    assert created["contactId"] == person["id"] and created["objectId"] == obj["id"]
    no_contact = tenant.command("signatories.create", {"signatory": {"role": "owner"}})
    assert no_contact.status == 400
    backwards = tenant.command(
        "signatories.update", {"signatory": {"id": created["id"], "validFrom": "2025-01-01", "validTo": "2024-12-31"}}
    )
    assert backwards.status == 400 and backwards.body["errors"][0]["path"] == "signatory.validTo"
    assert (
        tenant.command("signatories.update", {"signatory": {"id": created["id"], "authority": "alone"}}).status == 400
    )
    refused = tenant.command("contacts.delete", {"contact": person["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"


# --- advisors -----------------------------------------------------------------------------


def test_advisors_assign_list_revoke_restore(tenant: Tenant) -> None:
    a, b = make_object(tenant, "A"), make_object(tenant, "B")
    c1, c2 = tenant.contact(lastName="Eins"), tenant.contact(lastName="Zwei")
    tenant.alias("obj-a", a["id"], "object")
    tenant.alias("c1", c1["id"], "contact")
    first = tenant.ok(
        "advisors.assign", {"advisor": {"objectId": "obj-a", "contactId": "c1", "role": "advisoryBoardChair"}}
    )["advisor"]
    assert first["objectId"] == a["id"] and first["contactId"] == c1["id"]
    second = tenant.ok(
        "advisors.assign", {"advisor": {"objectId": a["id"], "contactId": c2["id"], "role": "advisoryBoardMember"}}
    )["advisor"]
    third = tenant.ok("advisors.assign", {"advisor": {"objectId": b["id"], "contactId": c1["id"], "role": "auditor"}})[
        "advisor"
    ]

    def ids(params: dict[str, Any]) -> list[str]:
        return [x["id"] for x in tenant.get("advisors.list", {"limit": 100, "offset": 0, **params})["advisors"]]

    assert ids({}) == [first["id"], second["id"], third["id"]]
    assert ids({"objectId": "obj-a"}) == [first["id"], second["id"]]
    assert ids({"objectId": b["id"]}) == [third["id"]]
    assert ids({"contactId": "c1"}) == [first["id"], third["id"]]

    revoked = tenant.ok("advisors.revoke", {"advisor": second["id"]})["deleted"]
    assert revoked["type"] == "advisor" and revoked["id"] == second["id"]
    assert ids({"objectId": a["id"]}) == [first["id"]]
    assert tenant.query("advisors.show", {"advisor": second["id"]}).status == 404
    again = tenant.command("advisors.revoke", {"advisor": second["id"]})
    assert again.status == 404
    restored = tenant.ok("advisors.restore", {"advisor": second["id"]})["advisor"]
    assert restored["role"] == "advisoryBoardMember"
    assert ids({"objectId": a["id"]}) == [first["id"], second["id"]]
    assert tenant.command("advisors.restore", {"advisor": second["id"]}).body["code"] == "not_deleted"


def test_advisor_rules(tenant: Tenant) -> None:
    obj = make_object(tenant)
    c = tenant.contact()
    missing = tenant.command("advisors.assign", {"advisor": {"objectId": obj["id"], "role": "lawyer"}})
    assert missing.status == 400
    backwards = tenant.command(
        "advisors.assign",
        {
            "advisor": {
                "objectId": obj["id"],
                "contactId": c["id"],
                "role": "lawyer",
                "since": "2025-01-01",
                "until": "2024-01-01",
            }
        },
    )
    assert backwards.status == 400 and backwards.body["errors"][0]["path"] == "advisor.until"
    unknown = tenant.command(
        "advisors.assign", {"advisor": {"objectId": "nirgendwo", "contactId": c["id"], "role": "lawyer"}}
    )
    assert unknown.status == 404 and unknown.body["errors"][0]["path"] == "advisor.objectId"


def test_revoke_is_destructive(tenant: Tenant) -> None:
    obj = make_object(tenant)
    c = tenant.contact()
    writer = tenant.new_key(["read", "write:advisors"], agent="writer")
    adv = tenant.ok(
        "advisors.assign", {"advisor": {"objectId": obj["id"], "contactId": c["id"], "role": "taxAdvisor"}}, key=writer
    )["advisor"]
    assert tenant.command("advisors.revoke", {"advisor": adv["id"]}, key=writer).status == 403
    destroyer = tenant.new_key(["read", "write:advisors", "destructive"], agent="destroyer")
    assert tenant.command("advisors.revoke", {"advisor": adv["id"]}, key=destroyer).status == 200
