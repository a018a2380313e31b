"""apikeys.usage (issue 52, 4): a key's calls per day and per operation over the last 30 days,
counted from its request log; its totals equal the calls made, it reads a bounded number of
entries and says from which moment on it counted in full, and it stays within the tenant (an
integration's key: within its integration), as apikeys.list does."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any

import pytest
from click.testing import CliRunner

from chalicelib import account, clock, config, paths, throttle
from chalicelib.ops.pmctl import cli
from chalicelib.resources import apikeys
from chalicelib.store import keys, requests
from tests.client import Api, Tenant, inside_one_window


def _made(tenant: Tenant, scopes: list[str], key: str | None = None) -> dict[str, Any]:
    """A new key's record (with its secret)."""
    body = {"apiKey": {"agentName": f"usage-{uuid.uuid4().hex[:8]}", "scopes": scopes}}
    return dict(tenant.ok("apikeys.create", body, **({"key": key} if key else {}))["apiKey"])


def _mcp(api: Api, key: str) -> int:
    """One MCP request (tools/list): the log's `mcp`."""
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {
        "Authorization": f"Bearer {key}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    return api.request("POST", paths.MCP, body=json.dumps(message).encode(), headers=headers).status


def _logged(tenant: Tenant, key_id: str, *entries: tuple[str, str]) -> None:
    """Entries of (time, operation) stored as the log subscription stores them (store/requests.py)."""
    lines = [
        json.dumps(
            {
                "kind": requests.TYPE,
                "tenantId": tenant.id,
                "keyId": key_id,
                "data": {
                    "at": at,
                    "operation": operation,
                    "method": "GET",
                    "status": 200,
                    "durationMs": 1.0,
                    "channel": "rest",
                    "requestId": f"req-{uuid.uuid4().hex}",
                },
            }
        )
        for at, operation in entries
    ]
    assert requests.write_entries(lines) == len(lines)


def _day(days_ago: int, at: str = "12:00:00.000") -> str:
    return f"{(clock.now() - dt.timedelta(days=days_ago)).date().isoformat()}T{at}Z"


def test_the_totals_equal_the_calls_made(api: Api, tenant: Tenant) -> None:
    made = _made(tenant, ["read", "write:contacts"])
    agent = made["key"]
    statuses = [api.query("objects", key=agent).status for _ in range(3)]
    statuses += [api.query("contacts.show", {"contact": "missing"}, key=agent).status for _ in range(2)]
    statuses.append(
        api.command("contacts.create", {"contact": {"personType": "natural", "lastName": "U"}}, key=agent).status
    )
    statuses.append(api.command("objects.create", {"object": {"name": "X", "type": "weg"}}, key=agent).status)
    statuses.append(_mcp(api, agent))
    assert statuses == [200, 200, 200, 404, 404, 200, 403, 200]

    usage = tenant.get("apikeys.usage", {"apiKey": made["id"]})["usage"]
    assert usage["apiKey"] == made["id"] and usage["total"] == len(statuses) == 8
    assert usage["operations"] == [
        {"operation": "objects", "calls": 3},
        {"operation": "contacts.show", "calls": 2},
        {"operation": "contacts.create", "calls": 1},
        {"operation": "mcp", "calls": 1},
        {"operation": "objects.create", "calls": 1},
    ]
    assert usage["complete"] is True and usage["countedAfter"] is None
    days = usage["days"]
    today = clock.now().date()
    assert [d["day"] for d in days] == [(today - dt.timedelta(days=29 - n)).isoformat() for n in range(30)]
    assert usage["from"] == f"{days[0]['day']}T00:00:00.000Z"
    assert [d["calls"] for d in days] == [0] * 29 + [8] and days[-1]["operations"] == usage["operations"]
    assert sum(d["calls"] for d in days) == usage["total"]
    again = tenant.get("apikeys.usage", {"apiKey": made["id"]})["usage"]
    assert again["total"] == 8  # the usage calls were the tenant's key's, not this one's


def test_without_a_key_named_it_counts_the_calling_keys_own(api: Api, tenant: Tenant) -> None:
    made = _made(tenant, ["read", "admin"])
    assert [api.query("objects", key=made["key"]).status for _ in range(2)] == [200, 200]
    first = api.query("apikeys.usage", key=made["key"]).body["usage"]
    assert first["apiKey"] == made["id"] and first["total"] == 2
    # a call is logged once it is answered: the next usage counts the one before
    again = api.query("apikeys.usage", key=made["key"]).body["usage"]
    assert again["total"] == 3 and {"operation": "apikeys.usage", "calls": 1} in again["operations"]


def test_each_day_counts_its_own_calls_and_nothing_older_than_the_thirty_days(tenant: Tenant) -> None:
    made = _made(tenant, ["read"])
    _logged(
        tenant,
        made["id"],
        (_day(0, "00:00:00.001"), "objects"),
        (_day(3), "contacts"),
        (_day(3), "contacts"),
        (_day(3), "units"),
        (_day(29, "00:00:00.000"), "objects"),  # the first moment counted
        (_day(30, "23:59:59.999"), "objects"),  # the day before the thirty: left out
        (_day(31), "objects"),  # past the log's keeping, not yet removed by its TTL
    )
    usage = tenant.get("apikeys.usage", {"apiKey": made["id"]})["usage"]
    by_day = {d["day"]: (d["calls"], d["operations"]) for d in usage["days"] if d["calls"]}
    assert by_day == {
        _day(29)[:10]: (1, [{"operation": "objects", "calls": 1}]),
        _day(3)[:10]: (3, [{"operation": "contacts", "calls": 2}, {"operation": "units", "calls": 1}]),
        _day(0)[:10]: (1, [{"operation": "objects", "calls": 1}]),
    }
    assert usage["total"] == 5 and usage["complete"] is True
    assert usage["operations"] == [
        {"operation": "contacts", "calls": 2},
        {"operation": "objects", "calls": 2},
        {"operation": "units", "calls": 1},
    ]


def test_past_its_budget_it_counts_in_full_from_a_moment_on(tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    """The newest entries up to the budget; those at the moment of the first left out are left out
    too (some of them might be counted, some not), so every count is exact for the time it covers."""
    made = _made(tenant, ["read"])
    cut = _day(2, "08:00:00.000")
    _logged(
        tenant,
        made["id"],
        (_day(0), "objects"),
        (_day(1), "objects"),
        (_day(1), "contacts"),
        (cut, "units"),
        (cut, "units"),
        (cut, "units"),
        (_day(2, "07:00:00.000"), "objects"),
        (_day(5), "objects"),
    )
    monkeypatch.setattr(config, "USAGE_MAX_ENTRIES", 5)  # read 6: the sixth is at `cut`
    usage = tenant.get("apikeys.usage", {"apiKey": made["id"]})["usage"]
    assert usage["complete"] is False and usage["countedAfter"] == cut
    assert usage["total"] == 3  # the three after `cut`; the three at it, though two were read, are not counted
    assert [d["day"] for d in usage["days"]] == [_day(n)[:10] for n in (2, 1, 0)]
    assert [d["calls"] for d in usage["days"]] == [0, 2, 1]


def test_it_counts_as_a_call_per_thousand_entries_read(tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    made = _made(tenant, ["read"])
    _logged(tenant, made["id"], *[(_day(1, f"10:00:0{n}.000"), "objects") for n in range(5)])
    monkeypatch.setattr(apikeys, "USAGE_ENTRIES_PER_CALL", 2)  # 5 read: 2 more calls
    keys.set_throttle(tenant.id, {"perKey": {"rate": 10 / 60, "burst": 10}})
    account.forget_tenant(tenant.id)
    throttle.reset()
    try:
        inside_one_window(60, 5)
        answer = tenant.query("apikeys.usage", {"apiKey": made["id"]})
        assert answer.status == 200 and answer.body["usage"]["total"] == 5
        statuses = [tenant.query("info").status for _ in range(8)]
        assert statuses == [200] * 7 + [429]  # the usage counted 1 + 2 of the key's 10
    finally:
        keys.set_throttle(tenant.id, None)
        account.forget_tenant(tenant.id)
        throttle.reset()


def _pmctl(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_it_needs_admin_and_stays_in_the_tenant_and_the_integration(tenant: Tenant, other_tenant: Tenant) -> None:
    theirs = _made(other_tenant, ["read"])
    assert tenant.query("apikeys.usage", {"apiKey": theirs["id"]}).status == 404
    reader = tenant.new_key(["read"])
    assert tenant.query("apikeys.usage", {"apiKey": theirs["id"]}, key=reader).status == 403
    # a vendor's admin key: its integration's keys only
    scopes = ["--scope", "read", "--scope", "admin"]
    name = f"Vendor {uuid.uuid4().hex[:8]}"
    vendor = json.loads(
        _pmctl("integrations", "create", "--name", name, "--contact", "ops@vendor.example", *scopes, "--json")
    )["integration"]
    _pmctl("integrations", "connect", vendor["id"], "--tenant", tenant.id)
    vendor_key = _pmctl(
        "keys", "issue", "--integration", vendor["id"], "--tenant", tenant.id, "--agent", "sync", *scopes
    ).strip()
    helper = _made(tenant, ["read"], key=vendor_key)
    assert tenant.query("apikeys.usage", {"apiKey": helper["id"]}, key=vendor_key).status == 200
    own = tenant.signup_answer["apiKey"]["id"]
    assert tenant.query("apikeys.usage", {"apiKey": own}, key=vendor_key).status == 404
    assert tenant.query("apikeys.usage", {"apiKey": helper["id"]}).status == 200  # the tenant sees all its keys
