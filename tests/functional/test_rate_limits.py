"""Limits that hold across instances (issue 16, finding 5): a key's request rate is counted in
the table, so two instances of the app (here two processes on one table, as two Lambda
instances are) share one budget; every pipeline step counts against the key's limit; sign-ups
are limited per source address."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib import account, throttle
from chalicelib.local.stack import free_port
from chalicelib.store import keys
from tests.client import Api, Tenant, from_source, inside_one_window
from tests.eventually import eventually
from tests.mcp_client import McpSession, error_text
from tests.serve_process import ROOT, answers


@pytest.fixture(scope="module")
def second_instance(api: Api) -> Iterator[Api]:
    """The app in a process of its own on the same moto (the environment names its endpoint,
    queues and table), as a second Lambda instance."""
    port = free_port()
    # the child serves from a thread; its main thread only has to stay alive until it is killed
    code = (
        "import time\nfrom chalicelib.local.http_server import serve_in_thread\n"
        f"serve_in_thread({port})\ntime.sleep(3600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    other = Api(f"http://127.0.0.1:{port}")
    try:
        eventually(lambda: answers(other), timeout=60, message="the second instance to come up")
    except AssertionError:
        proc.kill()
        raise
    yield other
    proc.kill()
    proc.wait()


def test_the_default_key_limit_holds_for_a_key_whose_tenant_sets_none(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suite runs with the default limit off; here it is on, made small (PM_THROTTLE_*, as an
    operator sets it): the fourth call of a window is refused under the key's own policy."""
    second = tenant.new_key(["read"])
    throttle.reset()
    monkeypatch.setenv("PM_THROTTLE_RATE", "0.05")
    monkeypatch.setenv("PM_THROTTLE_BURST", "3")  # 3 per 60-second window
    inside_one_window(60, 5)
    answers = [tenant.query("objects") for _ in range(4)]
    assert [a.status for a in answers] == [200, 200, 200, 429]
    assert answers[3].body["code"] == "throttled" and answers[3].headers["ratelimit-policy"] == '"key";q=3;w=60'
    # counted per key: another key of the same tenant still has its own budget
    assert tenant.query("objects", key=second).status == 200


def test_a_keys_limit_holds_across_instances(api: Api, second_instance: Api, tenant: Tenant) -> None:
    keys.set_throttle(tenant.id, {"operations": {"objects": {"rate": 0.05, "burst": 3}}})  # 3 per 60 s
    account.forget_tenant(tenant.id)
    try:
        inside_one_window(60, 5)
        other = Tenant(second_instance, tenant.id, tenant.key, tenant.signup_answer)
        statuses = [(tenant if n % 2 == 0 else other).query("objects").status for n in range(6)]
        assert statuses.count(200) == 3 and statuses.count(429) == 3, statuses
        assert statuses[:3] == [200, 200, 200]
    finally:
        keys.set_throttle(tenant.id, None)
        account.forget_tenant(tenant.id)


def test_every_pipeline_step_counts_against_the_keys_limit(api: Api, tenant: Tenant) -> None:
    keys.set_throttle(tenant.id, {"perKey": {"rate": 0.05, "burst": 6}})  # 6 per 120 s, the MCP request itself included
    account.forget_tenant(tenant.id)
    try:
        inside_one_window(120, 10)
        with McpSession(api.base, tenant.key) as mcp:
            piped = mcp.call("meta.pipeline.execute", {"steps": [{"tool": "objects", "arguments": {}}] * 10})
        assert piped.is_error and "429 throttled" in error_text(piped), error_text(piped)
    finally:
        keys.set_throttle(tenant.id, None)
        account.forget_tenant(tenant.id)


def test_sign_ups_are_limited_per_source_address(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each source address has its own budget: the fourth sign-up from one is refused, while
    another address is still served."""
    monkeypatch.setenv("PM_SIGNUP_LIMIT", "3/600")  # 3 per 10 minutes from one address
    inside_one_window(600, 20)
    flood, other = (f"198.51.100.{n}" for n in random.sample(range(1, 255), 2))  # sources no other test uses

    def signup(n: int) -> Any:
        body = {"companyName": f"Flut {n} GmbH", "email": f"flut{n}.{time.time_ns()}@example.org", "agentName": "bot"}
        return api.platform("signup", body)

    with from_source(flood):
        answers = [signup(n) for n in range(5)]
    assert [a.status for a in answers] == [200, 200, 200, 429, 429]
    refused = answers[-1]
    assert refused.body["code"] == "throttled" and int(refused.headers["retry-after"]) >= 1
    assert refused.headers["ratelimit-policy"] == '"signup";q=3;w=600'
    assert refused.body["detail"].startswith("Too many requests for this source address (signup limit: 3 per 600 s)")
    with from_source(other):
        assert signup(5).status == 200, "another source address was refused with the first one"
    with from_source(flood):  # each anonymous command has its own budget: confirming is still served
        confirm = api.platform("signup.confirm", {"email": f"flut.{time.time_ns()}@example.org", "code": "000000"})
        assert confirm.status != 429, confirm.body


def test_the_default_key_limit_is_documented(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PM_THROTTLE_RATE")  # the suite turns it off (tests/conftest.py)
    assert [(limit.name, limit.rate, limit.burst) for limit in throttle.limits(None, "contacts")] == [
        ("key", 100.0, 200)
    ]


def test_a_tenants_keys_together_are_held_to_the_tenants_limit(tenant: Tenant, other_tenant: Tenant) -> None:
    """Five keys of one tenant each stay far under their own limit, yet together they get the
    tenant's quota, no more; another tenant is served on its own budget all the while."""
    throttle.reset()
    many = [tenant.new_key(["read"]) for _ in range(5)]
    keys.set_throttle(tenant.id, {"perTenant": {"rate": 0.05, "burst": 4}})  # 4 per 80 s for all its keys
    account.forget_tenant(tenant.id)
    try:
        inside_one_window(80, 10)
        answers = [tenant.query("objects", key=key) for key in many]
        assert [a.status for a in answers] == [200, 200, 200, 200, 429]
        refused = answers[4]
        assert refused.body["code"] == "tenant_throttled", refused.body
        assert int(refused.headers["retry-after"]) >= 1
        assert refused.headers["ratelimit-policy"] == '"tenant";q=4;w=80'
        assert other_tenant.query("objects").status == 200
    finally:
        keys.set_throttle(tenant.id, None)
        account.forget_tenant(tenant.id)
    throttle.reset()
    assert tenant.query("objects", key=many[0]).status == 200


def test_the_tenant_querys_own_limit_is_each_keys_not_the_tenants(tenant: Tenant) -> None:
    """An operation's own limit counts per key, also for the operation called `tenant`: a second
    key is served where the first ran out (once, it was taken for the tenant-wide limit)."""
    throttle.reset()
    second = tenant.new_key(["read"])
    keys.set_throttle(tenant.id, {"operations": {"tenant": {"rate": 0.05, "burst": 1}}})  # 1 per 20 s a key
    account.forget_tenant(tenant.id)
    try:
        inside_one_window(20, 5)
        assert tenant.query("tenant").status == 200
        refused = tenant.query("tenant")
        assert (refused.status, refused.body["code"]) == (429, "throttled"), refused.body
        assert tenant.query("tenant", key=second).status == 200
    finally:
        keys.set_throttle(tenant.id, None)
        account.forget_tenant(tenant.id)
    throttle.reset()


def test_the_default_tenant_limit_holds_for_each_tenant_on_its_own(
    tenant: Tenant, other_tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suite runs with the default tenant limit off; here it is on, made small (as an
    operator sets PM_TENANT_THROTTLE_*): each tenant has its own budget, not one for all."""
    second = tenant.new_key(["read"])
    throttle.reset()
    monkeypatch.setenv("PM_TENANT_THROTTLE_RATE", "0.05")
    monkeypatch.setenv("PM_TENANT_THROTTLE_BURST", "3")  # 3 per 60-second window
    inside_one_window(60, 10)
    statuses = [tenant.query("objects", key=key).status for key in (tenant.key, second, tenant.key, second)]
    assert statuses == [200, 200, 200, 429]
    assert [other_tenant.query("objects").status for _ in range(3)] == [200, 200, 200]


def test_the_default_tenant_limit_is_documented(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PM_THROTTLE_RATE")  # the suite turns both defaults off (tests/conftest.py)
    monkeypatch.delenv("PM_TENANT_THROTTLE_RATE")
    found = [(limit.name, limit.rate, limit.burst) for limit in throttle.limits(None, "contacts")]
    assert found == [("key", 100.0, 200), ("tenant", 300.0, 600)]
