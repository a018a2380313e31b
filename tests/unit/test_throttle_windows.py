"""The counters under the safety limits (store/rates.py) and the memory of full windows above
them (throttle._spend), on the service's real table code against moto, with the wall clock held:
a window's end, what a refusal says about it, the writes a flood costs, and the memory's bound."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from chalicelib import throttle
from chalicelib.errors import Throttled
from chalicelib.store import rates
from chalicelib.store.model import Item

T0 = 1_800_000_003.0  # 3 s into a 10-s window (1_800_000_000 is a multiple of 10)
TEN_SECONDS = throttle.Limit("key", 0.2, 2, 10)  # 2 calls per window of 10 s


@pytest.fixture()
def now(memory_table: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    held = [T0]
    monkeypatch.setattr(throttle, "time", SimpleNamespace(time=lambda: held[0]))
    throttle.reset()
    yield held
    throttle.reset()


@pytest.fixture()
def writes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Each conditional write of a counter (the real one still runs)."""
    seen: list[tuple[Any, ...]] = []
    real = rates.spend

    def spend(*args: Any, **kwargs: Any) -> float | None:
        seen.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(rates, "spend", spend)
    return seen


def _refusal(subject: str = "key#k1") -> dict[str, str]:
    with pytest.raises(Throttled) as refused:
        throttle._spend(subject, TEN_SECONDS, what="this key")
    return dict(refused.value.headers)


def test_a_full_window_is_refused_until_its_end_and_says_how_long(now: list[float]) -> None:
    assert rates.spend("key#k1", 10, 2, T0) is None
    assert rates.spend("key#k1", 10, 2, T0) is None
    assert rates.spend("key#k1", 10, 2, T0) == pytest.approx(7.0)  # the window ends at ...010
    assert rates.spend("key#k1", 10, 2, T0 + 6.5) == pytest.approx(0.5)
    assert rates.spend("key#k1", 10, 2, T0 + 7.0) is None  # the next window, counted afresh


def test_a_counter_is_a_rate_item_that_expires_a_minute_after_its_window(now: list[float]) -> None:
    rates.spend("key#k1", 10, 2, T0, weight=3)
    item = Item.get("rate#key#k1", f"10#{int(T0 // 10)}")
    assert (item.type, item.hits) == ("rate", 3)
    assert item.expiresAt == dt.datetime.fromtimestamp(T0 - 3 + 10 + rates.KEEP_SECONDS, dt.UTC)


def test_a_flood_costs_one_write_per_window_and_each_refusal_says_what_is_left(
    now: list[float], writes: list[tuple[Any, ...]]
) -> None:
    throttle._spend("key#k1", TEN_SECONDS, what="this key")
    throttle._spend("key#k1", TEN_SECONDS, what="this key")
    first = _refusal()
    assert (first["Retry-After"], first["RateLimit"], len(writes)) == ("7", '"key";r=0;t=7', 3)
    now[0] = T0 + 4.5
    again = _refusal()  # from this instance's memory: no write
    assert (again["Retry-After"], len(writes)) == ("3", 3)
    assert again["RateLimit-Policy"] == '"key";q=2;w=10'
    other = throttle._spend("key#k2", TEN_SECONDS, what="this key")  # another subject is still served
    assert other is None and len(writes) == 4
    now[0] = T0 + 7.0  # the window's end: counted afresh, served
    throttle._spend("key#k1", TEN_SECONDS, what="this key")
    assert len(writes) == 5


def test_the_memory_of_full_windows_forgets_ended_ones_past_ten_thousand(now: list[float]) -> None:
    # 9,999 windows that ended and one that ends now exactly: with the next full window, 10,001 are held
    throttle._full.update({(f"key#old{n}", 10): T0 - 1 for n in range(9_999)})
    throttle._full[("key#ends-now", 10)] = T0
    throttle._spend("key#k1", TEN_SECONDS, what="this key")
    throttle._spend("key#k1", TEN_SECONDS, what="this key")
    _refusal()
    assert list(throttle._full) == [("key#k1", 10)]  # every window that ended, the one ending now too


def test_the_memory_is_not_swept_at_ten_thousand(now: list[float]) -> None:
    throttle._full.update({(f"key#old{n}", 10): T0 - 1 for n in range(9_999)})
    throttle._spend("key#k1", TEN_SECONDS, what="this key")
    throttle._spend("key#k1", TEN_SECONDS, what="this key")
    _refusal()
    assert len(throttle._full) == 10_000


# --- which limits a call counts against (throttle.limits) ------------------------------------


@pytest.fixture()
def defaults(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """The operator's defaults: every key 2 calls a second, 10 at once; a tenant's keys 3 and 30."""
    for name, value in {
        "PM_THROTTLE_RATE": "2",
        "PM_THROTTLE_BURST": "10",
        "PM_TENANT_THROTTLE_RATE": "3",
        "PM_TENANT_THROTTLE_BURST": "30",
    }.items():
        monkeypatch.setenv(name, value)
    return monkeypatch


def test_a_tenant_without_settings_has_the_operators_defaults(defaults: pytest.MonkeyPatch) -> None:
    found = throttle.limits(None, "contacts.list")
    assert found == [throttle.Limit("key", 2.0, 10), throttle.Limit("tenant", 3.0, 30, tenant_wide=True)]
    assert [limit.window for limit in found] == [5, 10]


@pytest.mark.parametrize(
    ("setting", "value", "left"),
    [
        ("PM_THROTTLE_BURST", "0", ["tenant"]),  # a burst of 0 turns the key's default off
        ("PM_THROTTLE_RATE", "0", ["tenant"]),
        ("PM_TENANT_THROTTLE_BURST", "0", ["key"]),
        ("PM_TENANT_THROTTLE_RATE", "0", ["key"]),
    ],
)
def test_a_default_of_zero_is_off(defaults: pytest.MonkeyPatch, setting: str, value: str, left: list[str]) -> None:
    defaults.setenv(setting, value)
    assert [limit.name for limit in throttle.limits(None, "contacts.list")] == left


def test_a_default_burst_of_one_is_a_limit_of_one_call(defaults: pytest.MonkeyPatch) -> None:
    defaults.setenv("PM_THROTTLE_BURST", "1")
    defaults.setenv("PM_TENANT_THROTTLE_BURST", "1")
    found = throttle.limits(None, "contacts.list")
    assert found == [throttle.Limit("key", 2.0, 1), throttle.Limit("tenant", 3.0, 1, tenant_wide=True)]
    assert [limit.window for limit in found] == [1, 1]  # never a window under a second


def test_a_tenants_settings_replace_the_defaults_narrowest_first(defaults: pytest.MonkeyPatch) -> None:
    settings = {
        "operations": {"contacts.list": {"rate": 0.5, "burst": 4}, "contacts.show": {"rate": 9}},
        "perKey": {"rate": 0},  # off
        "perTenant": {"rate": 1.5},  # no burst: as many as the rate, at least 1
    }
    assert throttle.limits(settings, "contacts.list") == [
        throttle.Limit("contacts.list", 0.5, 4),
        throttle.Limit("tenant", 1.5, 1, tenant_wide=True),
    ]
    assert throttle.limits(settings, "contacts.show")[0] == throttle.Limit("contacts.show", 9.0, 9)
    assert throttle.limits({"perKey": {"rate": 4, "burst": 8}}, "x")[0] == throttle.Limit("key", 4.0, 8)
    assert throttle.limits({"perKey": "fast", "perTenant": None}, "x") == []  # not a setting: no limit
    assert throttle.limits({"operations": {"x": {"rate": 0.2, "burst": 0}}}, "x")[0] == throttle.Limit("x", 0.2, 1)


def test_a_window_is_burst_over_rate_seconds_unless_set() -> None:
    assert throttle.Limit("key", 0.05, 3).window == 60
    assert throttle.Limit("key", 0.4, 3).window == 8  # 7.5 s, rounded up
    assert throttle.Limit("key", 100.0, 3).window == 1
    assert throttle.Limit("signup", 0.5, 5, seconds=3600).window == 3600


def test_an_operation_called_tenant_has_a_limit_of_the_keys_not_the_tenants(defaults: pytest.MonkeyPatch) -> None:
    """The `tenant` query's own limit is one more of the key's, not the limit of all its keys."""
    own, key, tenant = throttle.limits({"operations": {"tenant": {"rate": 1, "burst": 1}}}, "tenant")
    assert (own.name, own.tenant_wide, key.tenant_wide, tenant.tenant_wide) == ("tenant", False, False, True)


def test_a_setting_without_a_rate_is_no_limit() -> None:
    assert throttle.limits({"perKey": {"burst": 5}, "perTenant": {"burst": 5}}, "x") == []


def test_a_limit_per_window_of_one_refuses_the_second_call_and_says_what_it_counts(now: list[float]) -> None:
    throttle._spend_per_window("source#s1#signup", "signup", (1, 600), "this source address")
    with pytest.raises(Throttled) as refused:
        throttle._spend_per_window("source#s1#signup", "signup", (1, 600), "this source address")
    assert refused.value.headers["RateLimit-Policy"] == '"signup";q=1;w=600'
    assert "Too many requests for this source address" in str(refused.value)
    throttle._spend_per_window("source#s1#signup", "signup", (0, 600), "this source address")  # 0: off


@pytest.mark.parametrize(
    ("source", "counted_as"),
    [
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),  # an IPv6 address by its /64
        ("2001:db8:1:2::9", "2001:db8:1:2::/64"),
        ("192.0.2.7", "192.0.2.7"),
        ("tenant ten_A", "tenant ten_A"),  # a company inviting
        (None, "unknown"),
        ("", "unknown"),
    ],
)
def test_a_requester_is_counted_by_its_address_and_an_ipv6_one_by_its_prefix(
    source: str | None, counted_as: str
) -> None:
    assert throttle.source_of(source) == counted_as
