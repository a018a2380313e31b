"""Webhook deliveries to a real receiver on loopback: signed, authorised, in order per
entity, retried until delivered, disabled on 410."""

from __future__ import annotations

import time
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from chalicelib.events import deliveries
from tests.client import Tenant
from tests.eventually import eventually
from tests.receiver import Receiver


def _hook(tenant: Tenant, receiver: Receiver, **extra: Any) -> dict[str, Any]:
    body = {
        "name": "Test receiver",
        "url": receiver.url,
        "events": ["contact.created", "contact.updated", "contact.deleted"],
        **extra,
    }
    return dict(tenant.ok("webhooks.create", body)["webhook"])


def _disabled(tenant: Tenant, hook: dict[str, Any]) -> dict[str, Any] | None:
    """The webhook as shown, once it is disabled."""
    shown = tenant.get("webhooks.show", {"webhook": hook["id"]})["webhook"]
    return None if shown["enabled"] else dict(shown)


def test_contact_changes_reach_the_receiver_signed_and_authorised(tenant: Tenant, receiver: Receiver) -> None:
    hook = _hook(tenant, receiver, authorizationHeader="Bearer receiver-token")
    person = tenant.contact(lastName="Signiert")
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Geändert"}})
    tenant.ok("contacts.delete", {"contact": person["id"]})
    got = receiver.wait_for(3)
    assert [r.event["type"] for r in got] == ["contact.created", "contact.updated", "contact.deleted"]
    verifier = Webhook(hook["secret"])
    for request in got:
        assert request.headers["authorization"] == "Bearer receiver-token"
        payload = verifier.verify(request.body, request.headers)
        assert payload["id"] == request.headers["webhook-id"] and payload["tenantId"] == tenant.id
        assert payload["data"]["id"] == person["id"]
    assert got[1].event["data"]["lastName"] == "Geändert"
    assert got[2].event["data"]["deletedAt"]


def test_a_receiver_down_for_three_attempts_still_gets_every_event_once_per_id(
    tenant: Tenant, receiver: Receiver
) -> None:
    receiver.fail_first = 3
    _hook(tenant, receiver)
    people = [tenant.contact(lastName=f"P{i}") for i in range(3)]
    got = receiver.wait_for(3)
    time.sleep(0.3)  # that nothing more comes is tested: a duplicate would follow within this
    ids = [r.event["id"] for r in receiver.delivered()]
    assert len(ids) == len(set(ids)) == 3
    assert sorted(r.event["data"]["id"] for r in got) == sorted(p["id"] for p in people)
    assert len(receiver.requests) == 6  # three refused attempts, then three deliveries


@pytest.mark.slow
def test_events_of_one_entity_stay_in_order_through_retries(tenant: Tenant, receiver: Receiver) -> None:
    receiver.fail_first = 2
    _hook(tenant, receiver)
    person = tenant.contact(lastName="V1")
    for version in range(2, 5):
        tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": f"V{version}"}})
    got = receiver.wait_for(4)
    assert [r.event["data"]["lastName"] for r in got] == ["V1", "V2", "V3", "V4"]


def test_410_disables_the_webhook_and_says_why(tenant: Tenant, receiver: Receiver) -> None:
    receiver.always = 410
    hook = _hook(tenant, receiver)
    tenant.contact(lastName="Weg")
    shown = eventually(lambda: _disabled(tenant, hook), timeout=15, message="the webhook to be disabled")
    assert shown["enabled"] is False and "410" in shown["disabledReason"]

    def settled() -> dict[str, Any]:
        # the worker disables the webhook first, then settles the delivery: a moment apart
        log = tenant.get("webhooks.deliveries.list", {"webhook": hook["id"], "limit": 10, "offset": 0})["deliveries"]
        assert log[0]["status"] == "failed", log[0]["status"]
        return dict(log[0])

    assert eventually(settled, timeout=5, message="the delivery to be settled as failed")["lastStatusCode"] == 410


@pytest.mark.slow
def test_delivery_log_and_manual_retry(tenant: Tenant, receiver: Receiver) -> None:
    receiver.always = 500
    hook = _hook(tenant, receiver)
    tenant.contact(lastName="Log")
    eventually(lambda: len(receiver.requests) >= 2, timeout=15, message="two failed attempts")
    entry = tenant.get("webhooks.deliveries.list", {"webhook": hook["id"], "limit": 10, "offset": 0})["deliveries"][0]
    assert entry["eventType"] == "contact.created" and entry["attempts"] >= 1 and entry["lastStatusCode"] == 500
    receiver.always = None
    retried = tenant.ok("webhooks.deliveries.retry", {"webhook": hook["id"], "delivery": entry["id"]})["delivery"]
    assert retried["status"] == "pending"
    receiver.wait_for(1)

    def delivered() -> bool:
        status = tenant.get("webhooks.deliveries.list", {"webhook": hook["id"], "limit": 10, "offset": 0})[
            "deliveries"
        ][0]["status"]
        assert status == "delivered", status
        return True

    eventually(delivered, message="the retried delivery to be logged as delivered")


def test_a_manual_retry_delivers_at_once_when_the_next_attempt_is_hours_away(
    tenant: Tenant, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The retry itself must put the delivery back in line: with the next automatic attempt an
    hour away, nothing else would deliver it within the test."""
    monkeypatch.setattr(deliveries, "SCHEDULE", (3_600_000,) * len(deliveries.SCHEDULE))  # x 0.001 in tests
    receiver.always = 500
    hook = _hook(tenant, receiver)
    tenant.contact(lastName="Manuell")
    page = {"webhook": hook["id"], "limit": 10, "offset": 0}

    def failed_once() -> dict[str, Any] | None:
        entries = tenant.get("webhooks.deliveries.list", page)["deliveries"]
        return entries[0] if entries and entries[0]["attempts"] >= 1 and entries[0]["lastStatusCode"] else None

    entry = eventually(failed_once, timeout=15, message="the first attempt to fail")
    receiver.always = None
    tenant.ok("webhooks.deliveries.retry", {"webhook": hook["id"], "delivery": entry["id"]})
    got = receiver.wait_for(1, timeout=10)
    assert got[0].event["id"] == entry["id"] and len(receiver.requests) == 2


def test_ping_reports_the_receivers_answer(tenant: Tenant, receiver: Receiver) -> None:
    hook = _hook(tenant, receiver)
    ping = tenant.ok("webhooks.test", {"webhook": hook["id"]})["ping"]
    assert ping["statusCode"] == 200 and ping["id"].startswith("evt_")
    request = receiver.delivered()[-1]
    assert Webhook(hook["secret"]).verify(request.body, request.headers)["type"] == "webhook.ping"


def test_unsubscribed_events_and_other_tenants_do_not_arrive(
    tenant: Tenant, other_tenant: Tenant, receiver: Receiver
) -> None:
    tenant.ok("webhooks.create", {"name": "objects only", "url": receiver.url, "events": ["object.created"]})
    tenant.contact(lastName="Nicht")
    other_tenant.ok("objects.create", {"object": {"name": "Fremd", "type": "rental"}})
    tenant.ok("objects.create", {"object": {"name": "Eigen", "type": "rental"}})
    got = receiver.wait_for(1)
    time.sleep(0.3)  # that the other events never arrive is tested: they would have by now
    assert [r.event["data"]["name"] for r in receiver.delivered()] == ["Eigen"] and got[0].event[
        "tenantId"
    ] == tenant.id
