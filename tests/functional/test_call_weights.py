"""The rate limit weighs a call by its work (issue 51, 12): an upsert counts its items, a recovery
the events it queues, an export a fixed large weight; each operation's reference says so."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest

from chalicelib import account, registry
from chalicelib.store import keys
from tests.client import Tenant, inside_one_window
from tests.receiver import Receiver

BURST = 20  # calls per key in a window of 200 s (rate 0.1 a second)


@pytest.fixture()
def limited(tenant: Tenant) -> Iterator[Tenant]:
    keys.set_throttle(tenant.id, {"perKey": {"rate": BURST / 200, "burst": BURST}})
    account.forget_tenant(tenant.id)
    inside_one_window(200, 30)
    try:
        yield tenant
    finally:
        keys.set_throttle(tenant.id, None)
        account.forget_tenant(tenant.id)


def _calls_left(tenant: Tenant, key: str | None = None) -> int:
    """How many cheap calls the key still makes before a 429 (each counts one)."""
    for made in range(BURST + 1):
        if tenant.query("info", key=key or tenant.key).status == 429:
            return made
    return BURST + 1


def test_an_upsert_of_ten_items_counts_as_ten_calls(limited: Tenant) -> None:
    key = limited.new_key(["read", "write"])
    items = [{"alias": f"crm-{n}", "lastName": f"P{n}", "personType": "natural"} for n in range(10)]
    assert limited.ok("contacts.upsert", {"items": items}, key=key)["counts"]["created"] == 10
    assert _calls_left(limited, key) == BURST - 10, "the upsert counted ten (the key's creation was not its call)"


def test_an_export_counts_as_many_calls(limited: Tenant) -> None:
    key = limited.new_key(["read", "write:exports"])
    weight = registry.REGISTRY["exports.create"].weight
    assert weight >= BURST  # heavier than the whole window here
    assert limited.command("exports.create", {"entityTypes": ["contact"]}, key=key).status == 200
    assert limited.query("info", key=key).status == 429


def test_a_recovery_counts_the_events_it_queues(limited: Tenant, receiver: Receiver) -> None:
    key = limited.new_key(["read", "write"], agent="recoverer")
    hook = limited.ok("webhooks.create", {"name": "w", "url": receiver.url, "events": ["contact.created"]}, key=key)
    since = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    for n in range(5):
        limited.contact(lastName=f"R{n}")  # the owner's key: not this key's calls
    receiver.wait_for(5)
    answer = limited.ok("webhooks.deliveries.recover", {"webhook": hook["webhook"]["id"], "since": since}, key=key)
    assert answer["recovered"] == 5
    assert _calls_left(limited, key) == BURST - 1 - 5, "webhooks.create, then the recovery counting five"


def test_each_weighed_operation_says_so_in_its_reference() -> None:
    from chalicelib import docs

    for name in ("contacts.upsert", "units.upsert", "exports.create", "webhooks.deliveries.recover"):
        page = docs.render(registry.REGISTRY[name])
        assert "Counts as" in page, name
