"""Headers a client can steer by (issue 52, 4): every answer of a call a limit counted carries the
IETF draft's `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers-11)
for the nearest of its limits (the fewest calls left), a 200, a 4xx and a 429 alike; with no limit
in force, none. The suite turns the default limits off (tests/conftest.py): each test sets the
tenant's own, small enough that every call is counted a write each (store/rates.py: no leases),
so what the fields say is exact."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib import account, paths, throttle
from chalicelib.store import keys
from tests.client import Answer, Tenant, inside_one_window

FIELD = re.compile(r'^"(?P<name>[a-z.]+)";r=(?P<r>\d+);t=(?P<t>\d+)$')


@pytest.fixture()
def limits(tenant: Tenant) -> Iterator[Any]:
    """Set the tenant's limits (keys.set_throttle, as `pmctl tenants throttle` does) for a test."""

    def set_limits(throttle_config: dict[str, Any]) -> None:
        keys.set_throttle(tenant.id, throttle_config)
        account.forget_tenant(tenant.id)
        throttle.reset()
        inside_one_window(60, 10)

    try:
        yield set_limits
    finally:
        keys.set_throttle(tenant.id, None)
        account.forget_tenant(tenant.id)
        throttle.reset()


def _left(answer: Answer) -> tuple[str, int, int]:
    """The RateLimit field's policy, calls left and seconds to the window's end."""
    found = FIELD.match(answer.headers["ratelimit"])
    assert found, answer.headers["ratelimit"]
    return found["name"], int(found["r"]), int(found["t"])


def test_a_200_a_4xx_and_a_429_carry_the_keys_policy_and_what_is_left(tenant: Tenant, limits: Any) -> None:
    limits({"perKey": {"rate": 5 / 60, "burst": 5}})  # 5 per 60-second window
    ok = tenant.query("objects")
    assert ok.status == 200
    assert ok.headers["ratelimit-policy"] == '"key";q=5;w=60'
    name, left, reset = _left(ok)
    assert (name, left) == ("key", 4) and 1 <= reset <= 60
    missing = tenant.query("contacts.show", {"contact": "nobody-by-this-alias"})
    assert missing.status == 404
    assert missing.headers["ratelimit-policy"] == '"key";q=5;w=60' and _left(missing)[:2] == ("key", 3)
    invalid = tenant.command("contacts.create", {"contact": {"personType": "alien"}})
    assert invalid.status == 400 and _left(invalid)[:2] == ("key", 2)
    assert [_left(tenant.query("objects"))[1] for _ in range(2)] == [1, 0]
    refused = tenant.query("objects")
    assert refused.status == 429 and refused.body["code"] == "throttled"
    assert refused.headers["ratelimit-policy"] == '"key";q=5;w=60'
    name, left, reset = _left(refused)
    assert (name, left) == ("key", 0) and reset == int(refused.headers["retry-after"])


def test_without_a_limit_in_force_no_answer_carries_them(tenant: Tenant) -> None:
    """The suite's default: no key or tenant limit (tests/conftest.py), so nothing to tell."""
    for answer in (tenant.query("objects"), tenant.query("contacts.show", {"contact": "nobody"})):
        assert answer.status in (200, 404)
        assert "ratelimit" not in answer.headers and "ratelimit-policy" not in answer.headers


def test_the_nearer_of_the_keys_and_the_tenants_limit_is_told(tenant: Tenant, limits: Any) -> None:
    other = tenant.new_key(["read"])  # before the limits: its creation is a call of the tenant's key
    limits({"perKey": {"rate": 5 / 60, "burst": 5}, "perTenant": {"rate": 7 / 60, "burst": 7}})
    answers = [tenant.query("objects") for _ in range(3)]
    # the key's window has 2 left, the tenant's (all its keys) 4: the key's is nearer
    assert _left(answers[-1])[:2] == ("key", 2) and answers[-1].headers["ratelimit-policy"] == '"key";q=5;w=60'
    # the other key has 4 of its own left, the tenant 3: the tenant's is nearer now
    theirs = tenant.query("objects", key=other)
    assert _left(theirs)[:2] == ("tenant", 3) and theirs.headers["ratelimit-policy"] == '"tenant";q=7;w=60'
    assert [tenant.query("objects", key=other).status for _ in range(3)] == [200, 200, 200]
    refused = tenant.query("objects", key=other)  # the tenant's window is full; the key's is not
    assert refused.status == 429 and refused.body["code"] == "tenant_throttled"
    assert refused.headers["ratelimit-policy"] == '"tenant";q=7;w=60' and _left(refused)[:2] == ("tenant", 0)


def test_an_operations_own_limit_is_told_when_it_is_the_nearest(tenant: Tenant, limits: Any) -> None:
    limits({"perKey": {"rate": 5 / 60, "burst": 5}, "operations": {"objects": {"rate": 2 / 60, "burst": 2}}})
    first = tenant.query("objects")
    assert first.headers["ratelimit-policy"] == '"objects";q=2;w=60' and _left(first)[:2] == ("objects", 1)
    other = tenant.query("contacts")  # not limited on its own: the key's limit, one call more spent
    assert other.headers["ratelimit-policy"] == '"key";q=5;w=60' and _left(other)[:2] == ("key", 3)


def test_a_weighed_call_tells_what_is_left_after_its_work(tenant: Tenant, limits: Any) -> None:
    """An upsert of four items counts four (account.charge, after it ran): its own answer says so."""
    limits({"perKey": {"rate": 10 / 60, "burst": 10}})
    items = [{"alias": f"hdr-{n}", "personType": "natural", "lastName": f"H{n}"} for n in range(4)]
    answer = tenant.command("contacts.upsert", {"items": items})
    assert answer.status == 200, answer.body
    assert _left(answer)[:2] == ("key", 6)


def test_an_mcp_answer_carries_them_counting_the_tool_it_ran(tenant: Tenant, limits: Any) -> None:
    """The MCP request counts once, the domain tool it runs once more (on another thread)."""
    limits({"perKey": {"rate": 10 / 60, "burst": 10}})
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "meta.tool.execute", "arguments": {"name": "objects", "arguments": {}}},
    }
    answer = tenant.api.request(
        "POST",
        paths.MCP,
        body=json.dumps(call).encode(),
        headers={
            "Authorization": f"Bearer {tenant.key}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        },
    )
    assert answer.status == 200, answer.raw
    assert answer.headers["ratelimit-policy"] == '"key";q=10;w=60' and _left(answer)[:2] == ("key", 8)
