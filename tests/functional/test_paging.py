"""Paging: exact totals and stable order across the pages of a tenant of more contacts than the
largest page (1,000), read in pages of that size and of a smaller one."""

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


# More than the largest page (limit 1000): a full page of 1,000 with more behind it, and the rest.
# It was 2,500, which also gave a page of 1,000 with pages on both sides; the pages of 400 below
# give such a page (offset 400) at 40 % of the contacts to create.
TOTAL = 1001


def _pages(tenant: Tenant, limit: int) -> list[str]:
    """Every page of `limit`, each checked: the exact total, nextOffset exactly when more follow."""
    seen: list[str] = []
    for offset in range(0, TOTAL, limit):
        page = tenant.get("contacts", {"limit": limit, "offset": offset})
        more = {"nextOffset": offset + limit} if offset + limit < TOTAL else {}
        assert page["pagination"] == {"total": TOTAL, "limit": limit, "offset": offset, **more}
        assert len(page["contacts"]) == min(limit, TOTAL - offset)
        seen += [c["id"] for c in page["contacts"]]
    return seen


@pytest.mark.slow
def test_total_is_exact_across_pages_of_more_than_the_largest_page(tenant: Tenant) -> None:
    created = _fill(tenant, TOTAL)
    assert _pages(tenant, 1000) == created  # creation order, every contact once: a full page, then the rest
    assert _pages(tenant, 400) == created  # and a page with pages before and after it
    tail = tenant.get("contacts", {"limit": 1000, "offset": TOTAL - 100})
    assert len(tail["contacts"]) == 100 and tail["pagination"]["total"] == TOTAL
    beyond = tenant.get("contacts", {"limit": 10, "offset": 5000})
    assert beyond["contacts"] == [] and beyond["pagination"]["total"] == TOTAL


def test_filtered_total_is_exact_and_order_stable(tenant: Tenant) -> None:
    """A filter's total and pages count only its matches, among others (the sizes are the page's:
    15 matches in pages of 10, as 150 in pages of 100 were)."""
    company = tenant.contact(personType="legal", companyName="Groß AG")
    staff = _fill(tenant, 15, companyId=company["id"])
    _fill(tenant, 5)
    first = tenant.get("contacts", {"limit": 10, "offset": 0, "companyId": company["id"]})
    second = tenant.get("contacts", {"limit": 10, "offset": 10, "companyId": company["id"]})
    assert first["pagination"]["total"] == second["pagination"]["total"] == 15
    assert first["pagination"]["nextOffset"] == 10 and "nextOffset" not in second["pagination"]
    assert [c["id"] for c in first["contacts"] + second["contacts"]] == staff
    assert tenant.get("contacts", {"limit": 1, "offset": 0})["pagination"]["total"] == 21


def test_merged_contacts_leave_lists_and_totals(tenant: Tenant) -> None:
    a, b, c = tenant.contact(), tenant.contact(), tenant.contact()
    tenant.ok("contacts.merge", {"sourceContact": b["id"], "targetContact": a["id"]})
    page = tenant.get("contacts", {"limit": 10, "offset": 0})
    assert page["pagination"]["total"] == 2
    assert [x["id"] for x in page["contacts"]] == [a["id"], c["id"]]


@pytest.mark.slow
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
