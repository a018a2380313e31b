"""What is kept for a number of days (config's *_DAYS) is read as kept until that moment and as gone
from it: DynamoDB's TTL deletes an expired item only some time later (days, at worst; moto never),
so each read leaves out what is past its keeping itself. Each rule at a clock the test sets
(tests/moments.clock_at), a millisecond before its boundary and at it, through REST: the per-key
request log (REQUEST_LOG_DAYS), a webhook's delivery log (WEBHOOK_LOG_DAYS), an export
(EXPORT_KEEP_DAYS). The change feed's window is tested in test_change_feed.py, a key's expiry in
test_auth_details.py and test_key_cap.py, the trial's end in test_accounts.py."""

from __future__ import annotations

import datetime as dt
from typing import Any

from chalicelib import clock, config
from chalicelib.store import keys
from tests.client import Api, Tenant
from tests.eventually import eventually
from tests.functional.test_exports import _export
from tests.moments import clock_at
from tests.receiver import Receiver

JUST = dt.timedelta(milliseconds=1)


def _moment(days: float = 1) -> dt.datetime:
    """A whole second some days from now: within the trial and every key's life."""
    return (clock.now() + dt.timedelta(days=days)).replace(microsecond=0)


def test_a_request_stays_in_its_keys_log_for_request_log_days_to_the_millisecond(api: Api, tenant: Tenant) -> None:
    keys.set_plan(tenant.id, "enterprise", None)  # a paid plan: the log outlives the 30-day trial
    made = tenant.ok("apikeys.create", {"apiKey": {"agentName": "kept-bot", "scopes": ["read"]}})["apiKey"]
    listing = {"apiKey": made["id"], "limit": 10, "offset": 0}
    moment = _moment() + dt.timedelta(milliseconds=500)  # two requests a millisecond apart
    with clock_at(moment):
        assert api.query("objects", key=made["key"]).status == 200
    with clock_at(moment + JUST):
        assert api.query("contacts", {"limit": 1, "offset": 0}, key=made["key"]).status == 200

    ends = moment + dt.timedelta(days=config.REQUEST_LOG_DAYS)
    with clock_at(ends - JUST):
        both = tenant.get("apikeys.requests.list", listing)
    assert [r["operation"] for r in both["requests"]] == ["contacts", "objects"]
    assert both["pagination"]["total"] == 2
    with clock_at(ends):  # the first is REQUEST_LOG_DAYS old: gone, the second a millisecond younger
        one = tenant.get("apikeys.requests.list", listing)
    assert [r["operation"] for r in one["requests"]] == ["contacts"] and one["pagination"]["total"] == 1
    with clock_at(ends + JUST):
        none = tenant.get("apikeys.requests.list", listing)
    assert none["requests"] == [] and none["pagination"]["total"] == 0


def _deliveries(tenant: Tenant, hook: dict[str, Any], **filters: Any) -> dict[str, Any]:
    query = {"webhook": hook["id"], "limit": 50, "offset": 0, **filters}
    return dict(tenant.get("webhooks.deliveries.list", query))


def test_a_delivery_stays_in_the_webhooks_log_for_webhook_log_days(tenant: Tenant, receiver: Receiver) -> None:
    hook = tenant.ok("webhooks.create", {"name": "Kept", "url": receiver.url, "events": ["contact.created"]})
    hook = hook["webhook"]
    moment = _moment()
    with clock_at(moment):  # the ping is logged (and its record's expiry set) at this moment
        ping = tenant.ok("webhooks.test", {"webhook": hook["id"]})["ping"]
    ends = moment + dt.timedelta(days=config.WEBHOOK_LOG_DAYS)

    with clock_at(ends - JUST):
        kept = _deliveries(tenant, hook)
        by_type = _deliveries(tenant, hook, eventType="webhook.ping", status="delivered")
        resent = tenant.command("webhooks.deliveries.retry", {"webhook": hook["id"], "delivery": ping["id"]})
    assert [d["id"] for d in kept["deliveries"]] == [ping["id"]] and kept["pagination"]["total"] == 1
    assert kept["health"]["window"] == 1
    assert [d["id"] for d in by_type["deliveries"]] == [ping["id"]] and by_type["pagination"]["total"] == 1
    assert resent.status == 200, resent.body
    eventually(lambda: len(receiver.requests) == 2, timeout=15, message="the resent ping")
    eventually(lambda: _deliveries(tenant, hook)["deliveries"][0]["attempts"] == 2, timeout=15)

    with clock_at(ends):
        gone = _deliveries(tenant, hook)
        gone_by_type = _deliveries(tenant, hook, eventType="webhook.ping")
        retried = tenant.command("webhooks.deliveries.retry", {"webhook": hook["id"], "delivery": ping["id"]})
    assert gone["deliveries"] == [] and gone["pagination"]["total"] == 0
    assert gone["health"] == {"window": 0, "delivered": 0, "failed": 0, "successRate": None}
    assert gone_by_type["deliveries"] == [] and gone_by_type["pagination"]["total"] == 0
    assert (retried.status, retried.body["code"]) == (404, "not_found"), retried.body
    assert len(receiver.requests) == 2, "an expired delivery is not sent again"


def test_an_export_is_shown_until_its_expiry_and_not_from_it(tenant: Tenant) -> None:
    tenant.ok("objects.create", {"object": {"name": "Aufbewahrt", "type": "weg"}})
    done = _export(tenant, entityTypes=["object"])
    expires = clock.parse(done["expiresAt"])
    finished = clock.parse(done["finishedAt"])
    kept = dt.timedelta(days=config.EXPORT_KEEP_DAYS)
    assert kept - dt.timedelta(seconds=1) < expires - finished <= kept  # the TTL's whole second
    with clock_at(expires - JUST):
        shown = tenant.query("exports.show", {"export": done["id"]})
    assert shown.status == 200 and shown.body["export"]["status"] == "done", shown.body
    with clock_at(expires):
        gone = tenant.query("exports.show", {"export": done["id"]})
    assert (gone.status, gone.body["code"]) == (404, "not_found"), gone.body
