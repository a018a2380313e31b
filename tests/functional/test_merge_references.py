"""contacts.merge moves references wherever they sit (contract parties inside a list,
responsibilities), and refuses a merge that would break an entity's rules."""

from __future__ import annotations

from typing import Any

from tests.client import Tenant


def _lease(tenant: Tenant, *contacts: dict[str, Any]) -> dict[str, Any]:
    obj = tenant.ok("objects.create", {"object": {"name": "Haus", "type": "rental"}})["object"]
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "1.01", "type": "apartment"}})["unit"]
    parties = [{"contactId": c["id"], "role": "tenant" if i == 0 else "coTenant"} for i, c in enumerate(contacts)]
    payload = {"unitId": unit["id"], "type": "lease", "startDate": "2024-01-01", "parties": parties}
    return dict(tenant.ok("contracts.create", {"contract": payload})["contract"])


def test_merge_repoints_contract_parties(tenant: Tenant) -> None:
    duplicate, original = tenant.contact(lastName="Meier"), tenant.contact(lastName="Meyer")
    lease = _lease(tenant, duplicate)
    result = tenant.ok("contacts.merge", {"sourceContact": duplicate["id"], "targetContact": original["id"]})
    assert result["merge"]["movedReferences"] == 1
    parties = tenant.get("contracts.show", {"contract": lease["id"]})["contract"]["parties"]
    assert [p["contactId"] for p in parties] == [original["id"]]
    # the source no longer blocks anything, the target is now referenced
    assert tenant.command("contacts.delete", {"contact": original["id"]}).body["code"] == "still_referenced"


def test_merge_that_would_list_one_person_twice_is_refused_whole(tenant: Tenant) -> None:
    a, b = tenant.contact(lastName="A"), tenant.contact(lastName="B")
    lease = _lease(tenant, a, b)
    answer = tenant.command("contacts.merge", {"sourceContact": a["id"], "targetContact": b["id"]})
    assert answer.status == 409 and answer.body["code"] == "merge_conflict"
    assert tenant.get("contacts.show", {"contact": a["id"]})["contact"]["id"] == a["id"]
    parties = tenant.get("contracts.show", {"contract": lease["id"]})["contract"]["parties"]
    assert [p["contactId"] for p in parties] == [a["id"], b["id"]]
