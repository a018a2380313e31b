"""A tenant holds a bounded number of live keys (issue 28, finding 7): every path that creates
a key (apikeys.create over REST, the console, the sign-up's first key, and pmctl in
test_pmctl.py) counts against one cap per tenant; disabled and expired keys free their place;
concurrent creates cannot pass it; another tenant is never refused for this tenant's keys."""

from __future__ import annotations

import datetime as dt
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from chalicelib import clock
from tests.client import Answer, Tenant
from tests.console_client import owner_of

CAP = 3


@pytest.fixture()
def capped(monkeypatch: pytest.MonkeyPatch) -> int:
    """A small cap, as an operator sets PM_MAX_KEYS_PER_TENANT (the default is 100)."""
    monkeypatch.setenv("PM_MAX_KEYS_PER_TENANT", str(CAP))
    return CAP


def _create(tenant: Tenant, **extra: str) -> Answer:
    agent = f"agent-{uuid.uuid4().hex[:8]}"
    return tenant.command("apikeys.create", {"apiKey": {"agentName": agent, "scopes": ["read"], **extra}})


def _live(tenant: Tenant) -> list[str]:
    listed = tenant.get("apikeys.list", {"limit": 1000, "offset": 0})["apiKeys"]
    return [key["id"] for key in listed if not key["disabled"]]


def test_a_tenant_holds_at_most_the_cap_of_live_keys(tenant: Tenant, other_tenant: Tenant, capped: int) -> None:
    # the sign-up's first key counts: two more fit, the next is refused
    answers = [_create(tenant) for _ in range(capped)]
    assert [a.status for a in answers] == [200] * (capped - 1) + [409], [a.body for a in answers]
    refused = answers[-1]
    assert refused.body["code"] == "key_limit_reached", refused.body
    assert f"{capped} live keys" in refused.body["detail"]
    assert len(_live(tenant)) == capped
    # counted per tenant: another tenant still creates its keys
    assert _create(other_tenant).status == 200


def test_a_disabled_or_expired_key_frees_its_place(tenant: Tenant, capped: int) -> None:
    disposable = tenant.ok("apikeys.create", {"apiKey": {"agentName": "one-off", "scopes": ["read"]}})["apiKey"]
    short = clock.iso(clock.now() + dt.timedelta(days=1))
    assert _create(tenant, expiresAt=short).status == 200
    assert _create(tenant).status == 409
    tenant.ok("apikeys.disable", {"apiKey": disposable["id"]})
    assert _create(tenant).status == 200
    assert _create(tenant).status == 409
    clock.set_clock(lambda: dt.datetime.now(dt.UTC) + dt.timedelta(days=2))  # the short key has expired
    try:
        assert _create(tenant).status == 200
        assert _create(tenant).status == 409
    finally:
        clock.set_clock(None)


def test_concurrent_creates_never_pass_the_cap(tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PM_MAX_KEYS_PER_TENANT", "4")
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda _: _create(tenant), range(8)))
    statuses = sorted(a.status for a in answers)
    # 503 transaction_conflict where DynamoDB refuses two transactions on the register at once
    assert statuses.count(200) <= 3 and set(statuses) <= {200, 409, 503}, [a.body for a in answers]
    assert len(_live(tenant)) <= 4
    # whoever lost a collision may retry: the cap, not the collision, has the last word
    while len(_live(tenant)) < 4:
        assert _create(tenant).status == 200
    assert _create(tenant).body["code"] == "key_limit_reached"


def test_keys_made_before_the_count_existed_are_counted(tenant: Tenant, capped: int) -> None:
    """A tenant whose keys predate the live-key count (its counter item missing) is counted
    from its key records on its next create."""
    from chalicelib.store.model import Item

    made = [_create(tenant).body["apiKey"]["id"] for _ in range(capped - 1)]
    Item(f"{tenant.id}#livekeys", "livekeys").delete()
    assert _create(tenant).body["code"] == "key_limit_reached"
    # the count made from the records is the count from then on: a disable frees a place in it
    tenant.ok("apikeys.disable", {"apiKey": made[0]})
    assert _create(tenant).status == 200
    assert _create(tenant).body["code"] == "key_limit_reached"


def test_keys_expired_before_the_count_existed_are_not_counted(tenant: Tenant, capped: int) -> None:
    from chalicelib.store.model import Item

    short = clock.iso(clock.now() + dt.timedelta(days=1))
    for _ in range(capped - 1):
        assert _create(tenant, expiresAt=short).status == 200
    Item(f"{tenant.id}#livekeys", "livekeys").delete()
    clock.set_clock(lambda: dt.datetime.now(dt.UTC) + dt.timedelta(days=2))  # both have expired
    try:
        assert [_create(tenant).status for _ in range(capped)] == [200] * (capped - 1) + [409]
    finally:
        clock.set_clock(None)


def test_a_key_stops_counting_at_the_millisecond_it_expires(tenant: Tenant, capped: int) -> None:
    ends = clock.now().replace(microsecond=0) + dt.timedelta(days=1)
    for _ in range(capped - 1):
        assert _create(tenant, expiresAt=clock.iso(ends)).status == 200
    before = ends - dt.timedelta(milliseconds=1)
    try:
        clock.set_clock(lambda: before)  # a millisecond before: still live, the tenant is full
        assert _create(tenant).body["code"] == "key_limit_reached"
        clock.set_clock(lambda: ends)  # at its expiry: no longer live, its place is free
        assert _create(tenant).status == 200
    finally:
        clock.set_clock(None)


def test_the_console_refuses_a_key_past_the_cap_in_words(tenant: Tenant, capped: int) -> None:
    for _ in range(capped - 1):
        assert _create(tenant).status == 200
    owner = owner_of(tenant)
    page = owner.post("/keys", {"agentName": "one-too-many", "binding": "company", "scopes": ["read"], "expiry": ""})
    assert page.status == 409 and page.secret is None
    assert f"at most {capped} active API keys" in page.text(), page.text()
    assert len(_live(tenant)) == capped


def test_a_cap_lowered_below_what_a_tenant_holds_says_how_many_it_holds(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    for _ in range(3):  # four with the sign-up's first
        assert _create(tenant).status == 200
    monkeypatch.setenv("PM_MAX_KEYS_PER_TENANT", "2")  # the operator lowers the cap
    refused = _create(tenant).body
    assert (refused["code"], refused["maxLiveKeys"], refused["liveKeys"]) == ("key_limit_reached", 2, 4), refused


def test_a_create_that_loses_the_last_place_to_another_is_refused_for_the_cap(
    tenant: Tenant, capped: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two creates both read one free place; the one whose transaction comes second is refused
    by the register's condition, as key_limit_reached (not as a collision to retry)."""
    from chalicelib.store import keys

    for _ in range(capped - 1):
        assert _create(tenant).status == 200
    monkeypatch.setattr(keys, "live_key_count", lambda tenant_id: capped - 1)  # read before the other's create
    refused = _create(tenant)
    assert refused.status == 409 and refused.body["code"] == "key_limit_reached", refused.body
    assert len(_live(tenant)) == capped
