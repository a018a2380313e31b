"""Paging: exact totals and stable order across the pages of a 2,500-contact tenant."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib.context import CallContext
from chalicelib.resources.contacts import CONTACT
from chalicelib.resources.objects import OBJECT
from chalicelib.store import entities
from tests.client import Tenant


def _fill(tenant: Tenant, count: int, **fields: object) -> list[str]:
    """Create contacts straight through the store (the HTTP path is tested elsewhere):
    2,500 HTTP round trips would only slow the suite down."""
    ctx = CallContext(
        tenant_id=tenant.id, key_id="key_fill", agent_name="fill", scopes=frozenset(), operation="contacts.create"
    )
    return [
        entities.create(ctx, CONTACT, {"personType": "natural", "lastName": f"N{i:05d}", **fields}, path="contact").id
        or ""
        for i in range(count)
    ]


@pytest.fixture(autouse=True)
def drained(stack: Any) -> Iterator[None]:
    """Thousands of creations leave as many stream records behind: the audit trail of them is
    written before the next test begins, or that test's waits on the stream would pay for it."""
    yield
    assert stack.poller.wait_idle(180), "the stream poller did not catch up"


def test_total_is_exact_across_pages_of_2500(tenant: Tenant) -> None:
    created = _fill(tenant, 2500)
    seen: list[str] = []
    for offset in range(0, 2500, 1000):
        page = tenant.get("contacts", {"limit": 1000, "offset": offset})
        more = {"nextOffset": offset + 1000} if offset + 1000 < 2500 else {}
        assert page["pagination"] == {"total": 2500, "limit": 1000, "offset": offset, **more}
        seen += [c["id"] for c in page["contacts"]]
    assert seen == created  # creation order, every contact once
    tail = tenant.get("contacts", {"limit": 1000, "offset": 2400})
    assert len(tail["contacts"]) == 100 and tail["pagination"]["total"] == 2500
    beyond = tenant.get("contacts", {"limit": 10, "offset": 5000})
    assert beyond["contacts"] == [] and beyond["pagination"]["total"] == 2500


def test_filtered_total_is_exact_and_order_stable(tenant: Tenant) -> None:
    company = tenant.contact(personType="legal", companyName="Groß AG")
    staff = _fill(tenant, 150, companyId=company["id"])
    _fill(tenant, 50)
    first = tenant.get("contacts", {"limit": 100, "offset": 0, "companyId": company["id"]})
    second = tenant.get("contacts", {"limit": 100, "offset": 100, "companyId": company["id"]})
    assert first["pagination"]["total"] == second["pagination"]["total"] == 150
    assert [c["id"] for c in first["contacts"] + second["contacts"]] == staff
    assert tenant.get("contacts", {"limit": 1, "offset": 0})["pagination"]["total"] == 201


def test_merged_contacts_leave_lists_and_totals(tenant: Tenant) -> None:
    a, b, c = tenant.contact(), tenant.contact(), tenant.contact()
    tenant.ok("contacts.merge", {"sourceContact": b["id"], "targetContact": a["id"]})
    page = tenant.get("contacts", {"limit": 10, "offset": 0})
    assert page["pagination"]["total"] == 2
    assert [x["id"] for x in page["contacts"]] == [a["id"], c["id"]]


def test_a_list_without_paging_arguments_says_when_more_than_1000_follow(tenant: Tenant) -> None:
    """`objects` takes no paging in the interface: past 1,000 it answers the first 1,000 and
    `pagination.nextOffset`, never a silent cut."""
    ctx = CallContext(
        tenant_id=tenant.id, key_id="key_fill", agent_name="fill", scopes=frozenset(), operation="objects.create"
    )
    for i in range(1001):
        entities.create(ctx, OBJECT, {"name": f"Objekt {i:04d}", "type": "weg"}, path="object")
    first = tenant.get("objects")
    assert len(first["objects"]) == 1000
    assert first["pagination"] == {"total": 1001, "limit": 1000, "offset": 0, "nextOffset": 1000}
    rest = tenant.get("objects", {"offset": first["pagination"]["nextOffset"]})
    assert [o["name"] for o in rest["objects"]] == ["Objekt 1000"] and "nextOffset" not in rest["pagination"]
