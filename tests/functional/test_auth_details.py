"""The key at the door beyond yes and no (chalicelib/auth.py; mutants of it that no test killed,
issue 29): how often a key is looked up and its use written, the exact moment a key expires,
the spacing of the Authorization header, and what a refusal for scope names."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import Any

import pytest

from chalicelib import auth, clock, config, keyformat
from chalicelib.store import keys
from tests.client import Tenant


def test_a_key_is_looked_up_once_per_cache_period_and_its_use_written_once_a_minute(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """auth.py's own monotonic clock, made a hand that the test moves: the key's record is read
    again once KEY_CACHE_SECONDS have passed (not before), and its last use is written again
    once LAST_USED_RESOLUTION_SECONDS have passed since the last write, however often the
    record was read again meanwhile."""
    key = tenant.new_key(["read"], agent="counted")
    hashed = keyformat.secret_hash(key)
    hand = SimpleNamespace(now=50_000.0)
    monkeypatch.setattr(auth, "time", SimpleNamespace(monotonic=lambda: hand.now))
    lookups: list[str] = []
    writes: list[tuple[Any, ...]] = []
    read, record = auth.key_facts, keys.record_use
    monkeypatch.setattr(auth, "key_facts", lambda h: (lookups.append(h), read(h))[1])
    monkeypatch.setattr(keys, "record_use", lambda *args: (writes.append(args), record(*args))[1])

    def call_at(seconds: float) -> tuple[int, int]:
        hand.now = 50_000.0 + seconds
        assert tenant.query("info", key=key).status == 200
        mine = [w for w in writes if w[1] == key_id] if writes else []
        return lookups.count(hashed), len(mine)

    hand.now = 50_000.0
    key_id = tenant.get("info", key=key)["key"]["id"]
    assert (lookups.count(hashed), len(writes)) == (1, 1)  # the first call reads the key and writes its use
    assert call_at(config.KEY_CACHE_SECONDS - 0.5) == (1, 1)  # from the cache, use written a moment ago
    assert call_at(config.KEY_CACHE_SECONDS) == (2, 1)  # the period is over: read again, use not yet
    assert call_at(config.LAST_USED_RESOLUTION_SECONDS - 0.5) == (3, 1)
    assert call_at(config.LAST_USED_RESOLUTION_SECONDS) == (3, 2)  # from the cache; a minute after the last write


def test_a_keys_last_use_tells_the_callers_address(tenant: Tenant) -> None:
    key = tenant.new_key(["read"], agent="seen")
    assert tenant.query("info", key=key).status == 200
    listed = {k["agentName"]: k for k in tenant.get("apikeys.list", {"limit": 100, "offset": 0})["apiKeys"]}
    assert listed["seen"]["lastUsedAt"]
    assert listed["seen"]["lastUsedIp"] == "127.0.0.1"  # the local gateway's source address


def test_a_key_is_refused_from_the_very_moment_it_expires(tenant: Tenant) -> None:
    soon = clock.iso(clock.now() + dt.timedelta(hours=1))
    key = tenant.ok("apikeys.create", {"apiKey": {"agentName": "ending", "scopes": ["read"], "expiresAt": soon}})[
        "apiKey"
    ]["key"]
    ends = clock.parse(soon)
    try:
        clock.set_clock(lambda: ends - dt.timedelta(milliseconds=1))
        before = tenant.query("info", key=key)
        clock.set_clock(lambda: ends)
        at = tenant.query("info", key=key)
    finally:
        clock.set_clock(None)
    assert before.status == 200
    assert at.status == 401 and at.body["code"] == "key_expired"


def test_the_scheme_may_be_followed_by_more_than_one_space(tenant: Tenant) -> None:
    """RFC 9110 section 11.4: credentials = auth-scheme [ 1*SP ( token68 / #auth-param ) ]."""
    answer = tenant.api.request(
        "GET", "/propertymanagement/v2/query/info", headers={"Authorization": f"Bearer   {tenant.key}"}
    )
    assert answer.status == 200, answer.body
    assert answer.body["key"]["agentName"] == "setup"


def test_a_scope_refusal_names_every_scope_the_operation_needs(tenant: Tenant) -> None:
    """A client learns from the 403 which scopes to ask for (`requiredScopes`, all of them, in
    the operation's order), not only that one was missing."""
    reader = tenant.new_key(["read"], agent="reader")
    a, b = tenant.contact(), tenant.contact()
    answer = tenant.command("contacts.merge", {"sourceContact": a["id"], "targetContact": b["id"]}, key=reader)
    assert answer.status == 403 and answer.body["code"] == "missing_scope"
    assert answer.body["requiredScopes"] == ["write:contacts", "destructive"]
    assert "write:contacts and destructive" in answer.body["detail"]
