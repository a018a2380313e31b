"""Delete guard and restore rules for contacts and objects (their lifecycle: test_lifecycles.py)."""

from __future__ import annotations

from tests.client import Tenant


def test_a_referenced_contact_cannot_be_deleted(tenant: Tenant) -> None:
    company = tenant.contact(personType="legal", companyName="Firma GmbH")
    staff = tenant.contact(companyId=company["id"])
    refused = tenant.command("contacts.delete", {"contact": company["id"]})
    assert refused.status == 409
    assert refused.body["code"] == "still_referenced"
    assert refused.body["referencedBy"] == [{"type": "contact", "id": staff["id"], "path": "companyId"}]
    tenant.ok("contacts.update", {"contact": {"id": staff["id"], "companyId": None}})
    tenant.ok("contacts.delete", {"contact": company["id"]})


def test_a_deleted_referrer_no_longer_blocks_and_cannot_come_back_alone(tenant: Tenant) -> None:
    company = tenant.contact(personType="legal", companyName="Firma GmbH")
    staff = tenant.contact(companyId=company["id"])
    tenant.ok("contacts.delete", {"contact": staff["id"]})
    tenant.ok("contacts.delete", {"contact": company["id"]})
    refused = tenant.command("contacts.restore", {"contact": staff["id"]})
    assert refused.status == 409 and refused.body["code"] == "reference_deleted"
    tenant.ok("contacts.restore", {"contact": company["id"]})
    assert tenant.ok("contacts.restore", {"contact": staff["id"]})["contact"]["companyId"] == company["id"]


def test_referencing_a_deleted_entity_is_404(tenant: Tenant) -> None:
    company = tenant.contact(personType="legal", companyName="Weg GmbH")
    tenant.ok("contacts.delete", {"contact": company["id"]})
    answer = tenant.command(
        "contacts.create", {"contact": {"personType": "natural", "lastName": "X", "companyId": company["id"]}}
    )
    assert answer.status == 404 and answer.body["errors"][0]["path"] == "contact.companyId"


def test_restore_of_a_live_entity_is_409(tenant: Tenant) -> None:
    c = tenant.contact()
    answer = tenant.command("contacts.restore", {"contact": c["id"]})
    assert answer.status == 409 and answer.body["code"] == "not_deleted"


def test_merged_contact_cannot_be_restored(tenant: Tenant) -> None:
    a, b = tenant.contact(), tenant.contact()
    tenant.ok("contacts.merge", {"sourceContact": a["id"], "targetContact": b["id"]})
    answer = tenant.command("contacts.restore", {"contact": a["id"]})
    assert answer.status == 409 and answer.body["code"] == "merged"


def test_delete_needs_the_destructive_scope(tenant: Tenant) -> None:
    writer = tenant.new_key(["read", "write"], agent="writer")
    c = tenant.contact()
    assert tenant.command("contacts.delete", {"contact": c["id"]}, key=writer).status == 403
