"""The account's edges: the trial ending, one key per agent and the rotation flow, key
expiry, the per-key request log, version 1 until its sunset, and the safety throttle."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib import account, clock, request_log_worker, throttle
from chalicelib.store import keys, requests
from infra.lambda_check.events import subscription_event
from tests.client import Api, Tenant, inside_one_window
from tests.mcp_client import MCP_PATH
from tests.moments import clock_at


@pytest.fixture()
def days_later() -> Iterator[Any]:
    """Moves the service's clock forward (it runs in this process); restored afterwards."""

    def move(days: float) -> None:
        clock.set_clock(lambda: dt.datetime.now(dt.UTC) + dt.timedelta(days=days))

    yield move
    clock.set_clock(None)


def _mcp_list(api: Api, key: str) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    headers = {
        "Authorization": f"Bearer {key}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    return api.request("POST", MCP_PATH, body=body, headers=headers)


# --- trial ------------------------------------------------------------------------------------


def test_the_trial_lasts_thirty_days_and_ends_on_day_31(api: Api, tenant: Tenant, days_later: Any) -> None:
    info = tenant.get("info")["tenant"]
    assert info["plan"] == "enterprise"
    signed_up = dt.datetime.fromisoformat(info["createdAt"].replace("Z", "+00:00"))
    trial_end = dt.datetime.fromisoformat(info["trialEndsAt"].replace("Z", "+00:00"))
    assert trial_end - signed_up == dt.timedelta(days=30)
    person = tenant.contact(lastName="Bleibt")

    days_later(29)
    assert tenant.query("contacts.show", {"contact": person["id"]}).status == 200
    assert _mcp_list(api, tenant.key).status == 200

    days_later(31)
    refused = tenant.query("contacts.show", {"contact": person["id"]})
    assert refused.status == 403 and refused.body["code"] == "trial_ended"
    assert "data is kept" in refused.body["detail"] and "sales@" in refused.body["detail"]
    assert (
        tenant.command("contacts.create", {"contact": {"personType": "natural", "lastName": "Neu"}}).body["code"]
        == "trial_ended"
    )
    assert tenant.query("info").status == 403
    mcp = _mcp_list(api, tenant.key)
    assert mcp.status == 403 and mcp.body["code"] == "trial_ended"

    # the operator still reads everything, untouched
    stored = keys.tenant_wire(keys.get_tenant(tenant.id))
    assert stored["trialEndsAt"] == info["trialEndsAt"]
    from chalicelib.store.entities import entity_pk
    from chalicelib.store.model import ENTITY_SK, Item

    assert Item.get(entity_pk(tenant.id, person["id"]), ENTITY_SK).data_dict()["lastName"] == "Bleibt"

    # a paid plan brings access back at once
    keys.set_plan(tenant.id, "enterprise", None)
    assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["lastName"] == "Bleibt"
    assert tenant.get("tenant")["tenant"]["trialEndsAt"] is None


# --- keys: one agent, rotation, expiry -------------------------------------------------------------


def test_the_trial_ends_at_its_millisecond_and_the_refusal_says_when(tenant: Tenant) -> None:
    ends = tenant.get("info")["tenant"]["trialEndsAt"]
    at_end = dt.datetime.fromisoformat(ends.replace("Z", "+00:00"))
    try:
        clock.set_clock(lambda: at_end - dt.timedelta(milliseconds=1))
        assert tenant.query("info").status == 200
        clock.set_clock(lambda: at_end)
        refused = tenant.query("info")
        assert (refused.status, refused.body["code"], refused.body["trialEndsAt"]) == (403, "trial_ended", ends)
    finally:
        clock.set_clock(None)


def test_rotation_creates_a_second_key_for_the_agent_and_disables_the_old(tenant: Tenant) -> None:
    old = tenant.ok("apikeys.create", {"apiKey": {"agentName": "invoice-bot", "scopes": ["read"]}})["apiKey"]
    new = tenant.ok("apikeys.create", {"apiKey": {"agentName": "invoice-bot", "scopes": ["read"]}})["apiKey"]
    assert tenant.query("info", key=old["key"]).status == tenant.query("info", key=new["key"]).status == 200

    third = tenant.command("apikeys.create", {"apiKey": {"agentName": "Invoice-Bot", "scopes": ["read"]}})
    assert third.status == 409 and third.body["code"] == "agent_has_keys"
    assert old["id"] in third.body["detail"] and "disable the old key" in third.body["detail"]

    tenant.ok("apikeys.disable", {"apiKey": old["id"]})
    assert tenant.query("info", key=old["key"]).status == 401
    assert tenant.get("info", key=new["key"])["key"]["agentName"] == "invoice-bot"
    # the rotation finished: the agent may rotate again
    assert tenant.command("apikeys.create", {"apiKey": {"agentName": "invoice-bot", "scopes": ["read"]}}).status == 200


def test_keys_expire_by_default_after_a_year_and_at_most_after_two(tenant: Tenant, days_later: Any) -> None:
    created = tenant.ok("apikeys.create", {"apiKey": {"agentName": "expiry-bot", "scopes": ["read"]}})["apiKey"]
    made = dt.datetime.fromisoformat(created["createdAt"].replace("Z", "+00:00"))
    expires = dt.datetime.fromisoformat(created["expiresAt"].replace("Z", "+00:00"))
    assert abs(expires - made - dt.timedelta(days=365)) < dt.timedelta(seconds=1)  # two readings of the clock
    too_far = clock.iso(clock.now() + dt.timedelta(days=800))
    refused = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "far-bot", "scopes": ["read"], "expiresAt": too_far}}
    )
    assert refused.status == 400 and refused.body["errors"][0]["path"] == "apiKey.expiresAt"

    keys.set_plan(tenant.id, "enterprise", None)  # a year on, the trial would have ended
    days_later(366)
    expired = tenant.query("info", key=created["key"])
    assert expired.status == 401 and expired.body["code"] == "key_expired"
    days_later(0)
    # an expired key no longer counts as the agent's: a new one may be made (two already would be refused)
    tenant.ok("apikeys.create", {"apiKey": {"agentName": "expiry-bot", "scopes": ["read"]}})


def test_keys_are_prefixed_and_checksummed_for_secret_scanners(api: Api, tenant: Tenant) -> None:
    secret = tenant.ok("apikeys.create", {"apiKey": {"agentName": "scan-bot", "scopes": ["read"]}})["apiKey"]["key"]
    assert secret.startswith("pm_test_") and len(secret) == len("pm_test_") + 36
    typo = secret[:-1] + ("a" if secret[-1] != "a" else "b")
    answer = api.query("info", key=typo)
    assert answer.status == 401 and "checksum" in answer.body["detail"]


# --- the request log -------------------------------------------------------------------------------


def test_each_request_of_a_key_is_in_its_log(api: Api, tenant: Tenant) -> None:
    created = tenant.ok("apikeys.create", {"apiKey": {"agentName": "logged-bot", "scopes": ["read"]}})["apiKey"]
    agent = created["key"]
    assert api.query("objects", key=agent).status == 200
    assert api.command("objects.create", {"object": {"name": "X", "type": "weg"}}, key=agent).status == 403
    assert api.query("contacts.show", {"contact": "missing"}, key=agent).status == 404
    assert _mcp_list(api, agent).status == 200

    log = tenant.get("apikeys.requests.list", {"apiKey": created["id"], "limit": 10, "offset": 0})
    assert log["pagination"]["total"] == 4
    newest_first = [(r["operation"], r["status"], r["channel"]) for r in log["requests"]]
    assert newest_first == [
        ("mcp", 200, "mcp"),
        ("contacts.show", 404, "rest"),
        ("objects.create", 403, "rest"),
        ("objects", 200, "rest"),
    ]
    assert all(r["requestId"] and r["durationMs"] >= 0 and r["at"] for r in log["requests"])
    second_page = tenant.get("apikeys.requests.list", {"apiKey": created["id"], "limit": 2, "offset": 2})["requests"]
    assert [r["operation"] for r in second_page] == ["objects.create", "objects"]


def test_in_the_cloud_requests_print_their_entries_and_the_log_subscription_stores_them(
    api: Api, tenant: Tenant, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Issue 32: a request pays no write for its own log entry. With PM_REQUEST_LOG=logs (the
    template's setting for the HTTP functions) the entry is a line on the function's stdout and
    nothing reaches the table until CloudWatch Logs hands the matching lines to WriteRequestLogs;
    a batch delivered twice stores each entry once, and a malformed line is skipped."""
    created = tenant.ok("apikeys.create", {"apiKey": {"agentName": "printed-bot", "scopes": ["read"]}})["apiKey"]
    listing = {"apiKey": created["id"], "limit": 10, "offset": 0}
    monkeypatch.setenv("PM_REQUEST_LOG", "logs")
    capfd.readouterr()
    assert api.query("objects", key=created["key"]).status == 200
    assert api.query("contacts.show", {"contact": "missing"}, key=created["key"]).status == 404
    printed = capfd.readouterr().out.splitlines()
    assert tenant.get("apikeys.requests.list", listing)["pagination"]["total"] == 0  # nothing written yet

    batch = subscription_event(
        [*printed, "START RequestId: 1", '{"kind": "requestLog", "data": {}}'],
        "/aws/lambda/pm-api",
        "ApiLogGroupRequestLogSubscription",
        requests.LOG_FILTER,
    )
    assert request_log_worker.handle_event(batch)["written"] >= 2
    request_log_worker.handle_event(batch)  # at least once: a redelivered batch changes nothing
    log = tenant.get("apikeys.requests.list", listing)
    assert log["pagination"]["total"] == 2
    assert [(r["operation"], r["status"], r["channel"]) for r in log["requests"]] == [
        ("contacts.show", 404, "rest"),
        ("objects", 200, "rest"),
    ]
    assert all(r["requestId"] and r["durationMs"] >= 0 and r["at"] for r in log["requests"])


def test_the_request_log_needs_admin_and_stays_in_the_tenant(tenant: Tenant, other_tenant: Tenant) -> None:
    theirs = other_tenant.ok("apikeys.create", {"apiKey": {"agentName": "theirs", "scopes": ["read"]}})["apiKey"]
    assert tenant.query("apikeys.requests.list", {"apiKey": theirs["id"], "limit": 10, "offset": 0}).status == 404
    reader = tenant.new_key(["read"])
    assert (
        tenant.query("apikeys.requests.list", {"apiKey": theirs["id"], "limit": 10, "offset": 0}, key=reader).status
        == 403
    )


def test_one_key_is_shown_by_its_id_without_its_secret(tenant: Tenant, other_tenant: Tenant) -> None:
    made = tenant.ok("apikeys.create", {"apiKey": {"agentName": "einzeln", "scopes": ["read", "write:contacts"]}})
    shown = tenant.get("apikeys.show", {"apiKey": made["apiKey"]["id"]})["apiKey"]
    assert {k: v for k, v in made["apiKey"].items() if k != "key"} == shown
    assert made["apiKey"]["key"] not in json.dumps(shown)
    theirs = other_tenant.ok("apikeys.create", {"apiKey": {"agentName": "fremd", "scopes": ["read"]}})["apiKey"]
    assert tenant.query("apikeys.show", {"apiKey": theirs["id"]}).status == 404
    assert tenant.query("apikeys.show", {"apiKey": theirs["id"]}, key=tenant.new_key(["read"])).status == 403
    assert tenant.query("apikeys.show", {"apiKey": "not-a-key"}).status == 400


# --- version 1 ----------------------------------------------------------------------------------


def test_version_1_answers_like_version_2_with_deprecation_headers_until_2027(api: Api, tenant: Tenant) -> None:
    keys.set_plan(tenant.id, "enterprise", None)  # the trial's end is a date of its own
    with clock_at(dt.datetime(2026, 12, 31, 23, 59, 59, tzinfo=dt.UTC)):  # the last second before the sunset
        made = api.request(
            "POST",
            "/propertymanagement/v1/command/contacts.create",
            body=json.dumps({"contact": {"personType": "natural", "lastName": "Alt"}}).encode(),
            headers={"Authorization": f"Bearer {tenant.key}", "Content-Type": "application/json"},
        )
        read = api.request(
            "GET",
            f"/propertymanagement/v1/query/contacts.show?contact={made.body['contact']['id']}",
            headers={"Authorization": f"Bearer {tenant.key}"},
        )
        shown = tenant.get("contacts.show", {"contact": made.body["contact"]["id"]})
        unknown = api.request(
            "GET", "/propertymanagement/v1/query/nothing.here", headers={"Authorization": f"Bearer {tenant.key}"}
        )
    assert made.status == 200 and made.body["contact"]["lastName"] == "Alt"
    assert made.headers["deprecation"].startswith("@") and made.headers["sunset"] == "Fri, 01 Jan 2027 00:00:00 GMT"
    assert made.headers["link"] == '</propertymanagement/v2/command/contacts.create>; rel="successor-version"'
    assert read.status == 200 and read.body == shown
    assert unknown.status == 404 and unknown.headers["sunset"]


def test_version_1_is_gone_from_2027(api: Api, tenant: Tenant) -> None:
    keys.set_plan(tenant.id, "enterprise", None)
    with clock_at(dt.datetime(2027, 1, 1, 0, 0, 0, tzinfo=dt.UTC)):  # the first second without it
        gone = api.request(
            "GET",
            "/propertymanagement/v1/query/contacts?limit=1&offset=0",
            headers={"Authorization": f"Bearer {tenant.key}"},
        )
        still = tenant.query("contacts", {"limit": 1, "offset": 0})
    assert gone.status == 410 and gone.content_type.startswith("application/problem+json")
    assert gone.body["code"] == "version_retired" and gone.body["successor"] == "/propertymanagement/v2/query/contacts"
    assert 'rel="successor-version"' in gone.headers["link"]
    assert still.status == 200


# --- throttle ------------------------------------------------------------------------------------


def test_the_throttle_answers_429_and_recovers(api: Api, tenant: Tenant) -> None:
    throttle.reset()
    keys.set_throttle(tenant.id, {"operations": {"objects": {"rate": 0.5, "burst": 2}}})  # 2 per 4-second window
    try:
        inside_one_window(4, 2.5)
        answers = [tenant.query("objects") for _ in range(3)]
        assert [a.status for a in answers] == [200, 200, 429]
        limited = answers[2]
        assert limited.body["code"] == "throttled" and int(limited.headers["retry-after"]) >= 1
        assert limited.headers["ratelimit-policy"] == '"objects";q=2;w=4'
        assert limited.headers["ratelimit"].startswith('"objects";r=0;t=')
        assert tenant.query("contacts", {"limit": 1, "offset": 0}).status == 200  # other operations are not limited
        time.sleep(
            float(limited.headers["retry-after"])
        )  # the rate window must pass (what Retry-After promises is tested)
        assert tenant.query("objects").status == 200
    finally:
        keys.set_throttle(tenant.id, None)
        account.forget_tenant(tenant.id)


def test_every_key_has_a_documented_default_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PM_THROTTLE_RATE")  # the suite turns it off (tests/conftest.py)
    limits = throttle.limits(None, "contacts")
    assert [(limit.name, limit.rate, limit.burst) for limit in limits] == [("key", 100.0, 200)]
    assert throttle.limits({"perKey": {"rate": 0}}, "contacts") == []


def test_an_operation_limit_holds_for_the_same_tool_through_mcp(api: Api, tenant: Tenant) -> None:
    from tests.mcp_client import McpSession, error_text

    throttle.reset()
    keys.set_throttle(tenant.id, {"operations": {"objects": {"rate": 0.25, "burst": 1}}})  # 1 per 4-second window
    try:
        inside_one_window(4, 3)
        with McpSession(api.base, tenant.key) as mcp:
            first = mcp.execute("objects")
            second = mcp.execute("objects")
        assert not first.is_error
        assert "429 throttled" in error_text(second) and "wait and retry" in error_text(second)
    finally:
        keys.set_throttle(tenant.id, None)
