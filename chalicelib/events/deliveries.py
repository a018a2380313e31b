"""Webhook deliveries: every event a webhook subscribes to becomes a delivery record (its log
entry and state, store/deliveries.py) and a message on the delivery queue
(events/delivery_queue.py), which the delivery worker (events/delivery_worker.py) sends, in
order per entity, on a retry schedule.

The event id is the delivery's deduplication key: a stream record handled twice writes the
delivery once, and the receiver sees an id again only on a retry."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from typing import Any

from chalicelib import clock, config, observability
from chalicelib.context import CallContext
from chalicelib.events import delivery_queue, hearing, subscriptions
from chalicelib.events.audit import changed_fields
from chalicelib.events.changes import Change
from chalicelib.events.delivery_queue import Delivery
from chalicelib.events.sender import Outcome
from chalicelib.store import deliveries as delivery_store
from chalicelib.store import reach, recoveries
from chalicelib.store.deliveries import Attempt, DeliveryData, StoredDelivery

# Waits before the 2nd, 3rd, ... attempt (the first is immediate); then the delivery fails.
SCHEDULE = (5, 300, 1800, 7200, 18000, 36000, 36000)
RETRY_AFTER_CAP_SECONDS = 3600  # a receiver's Retry-After lengthens a wait up to this, no further


def event_id(change: Change) -> str:
    return "evt_" + change.audit_id.split("_", 1)[1]


def actor(change: Change) -> dict[str, Any]:
    """Who made a change: the key (or console member), its agent and integration, the surface."""
    stamp = change.changed_by
    return {name: stamp.get(name) for name in ("keyId", "agentName", "integrationId", "channel")}


def event_body(change: Change) -> dict[str, Any]:
    """The webhook event of a change: what happened to which entity (`data`, its state after, or
    before a deletion), who did it (`actor`), which fields changed, and for an update their
    earlier values (`previous`)."""
    state = change.after or change.before or {}
    data = {
        "id": change.entity_id,
        **state.get("data", {}),
        **{k: state.get(k) for k in ("version", "createdAt", "updatedAt", "deletedAt")},
    }
    fields = changed_fields(change.before, change.after)
    body = {
        "id": event_id(change),
        "type": f"{change.entity_type}.{change.action}",
        "timestamp": change.at,
        "tenantId": change.tenant_id,
        "actor": actor(change),
        "changedFields": fields,
        "data": data,
    }
    if change.action == "updated":
        before = (change.before or {}).get("data") or {}
        body["previous"] = {name: before.get(name) for name in fields}
    return body


def hears(hook: dict[str, Any], body: dict[str, Any]) -> bool:
    """Whether a webhook (subscriptions.subscribers) gets an event body: it subscribes to its type,
    the type is of an area its key may read (events/hearing.py), the entity is within its objects,
    and, skipping its own changes, another side made it."""
    entity_type = body["type"].rsplit(".", 1)[0]
    return (
        bool({"*", body["type"]} & hook["events"])
        and hearing.hears_type(hook["areas"], body["type"])
        and _within(hook["objects"], body["tenantId"], entity_type, body["data"])
        and not _own(hook, body["actor"])
    )


def _own(hook: dict[str, Any], actor: dict[str, Any]) -> bool:
    """A webhook that skips its own changes (skipOwnChanges) leaves out those by a key of its
    integration, or, for a webhook of no integration, by the key that created it."""
    own = hook.get("skipOwn")
    if not own:
        return False
    kind, value = own
    return bool(value) and actor.get(kind) == value


def fan_out(change: Change) -> int:
    """A delivery per subscribed webhook, and its message on the queue. A repeat of the same
    change writes nothing new; its messages are sent again (SQS drops the repeats), so a
    change whose items were written but whose messages were not is never lost."""
    if change.entity_type == "webhook":
        subscriptions.forget(change.tenant_id)
    if not change.has_event:
        # the account's records (keys, tenant, integrations) are audited but no event type of
        # the interface (webhooks.eventTypes): a "*" webhook must not receive a key's record
        return 0
    body = event_body(change)
    entity_key = f"{change.entity_type}#{change.entity_id}"
    queued = []
    for hook in subscriptions.subscribers(change.tenant_id):
        if hears(hook, body):
            create(change.tenant_id, hook["id"], body, entity_key=entity_key)
            queued.append(Delivery(change.tenant_id, hook["id"], body["id"], entity_key))
    delivery_queue.enqueue(queued)
    return len(queued)


def _within(objects: frozenset[str] | None, tenant_id: str, entity_type: str, data: dict[str, Any]) -> bool:
    """A webhook made by a key limited to objects hears of the entities within them (store/reach.py,
    judged by the entity's state in the event: after the change, before it for a deletion)."""
    if objects is None:
        return True
    hearer = CallContext(tenant_id=tenant_id, key_id="", agent_name="webhook", scopes=frozenset(), objects=objects)
    return reach.item_within(hearer, entity_type, str(data.get("id", "")), data)


def create(
    tenant_id: str, webhook_id: str, body: dict[str, Any], *, entity_key: str, delivery_id: str | None = None
) -> bool:
    """Write the delivery record, pending and due now; False when it exists already. A recovery's
    redelivery is a record of its own (`delivery_id`, store/deliveries.py)."""
    now = clock.now_iso()
    data: DeliveryData = {
        "eventId": body["id"],
        "eventType": body["type"],
        "entityKey": entity_key,
        "payload": json.dumps(body, separators=(",", ":")),
        "status": "pending",
        "attempts": 0,
        "nextAttemptAt": now,
    }
    if delivery_id is not None:
        data["deliveryId"] = delivery_id
    return delivery_store.create_delivery(tenant_id, webhook_id, data, created_at=now)


def next_wait(attempts: int, retry_after: int | None) -> float:
    """Seconds before the next attempt, after `attempts` failed ones: the schedule's step,
    lengthened by the receiver's Retry-After up to an hour (never beyond, never shortened)."""
    step = SCHEDULE[attempts - 1] * config.webhook_retry_scale()
    return max(step, float(min(retry_after or 0, RETRY_AFTER_CAP_SECONDS)))


def settle(delivery: StoredDelivery, outcome: Outcome, *, receipt: str | None = None) -> float | None:
    """Record one attempt; answer the wait before the next one, or None when the delivery
    is settled for good (delivered, or failed: 410 or the schedule ran out). `receipt` is
    the waiting message's, kept so that a manual retry can wake it."""
    data = delivery.data.copy()
    now = clock.now()
    attempts = int(data.get("attempts", 0)) + 1
    note_attempt(data, outcome, attempts, now)
    wait: float | None = None
    if outcome.delivered:
        data.update({"status": "delivered", "deliveredAt": clock.iso(now)})
    elif outcome.status_code == 410 or attempts > len(SCHEDULE):
        data["status"] = "failed"
    else:
        wait = next_wait(attempts, outcome.retry_after)
        data.update({"nextAttemptAt": clock.iso(now + dt.timedelta(seconds=wait)), "receipt": receipt})
    if wait is None:
        data.pop("nextAttemptAt", None)
        data.pop("receipt", None)
    delivery_store.save_delivery(delivery.tenant_id, delivery.webhook_id, data)
    observability.record_delivery(
        "gone" if outcome.status_code == 410 else "retry" if wait is not None else data["status"]
    )
    if wait is None:
        _count_settled(delivery, data)
    return wait


def _count_settled(delivery: StoredDelivery, data: DeliveryData) -> None:
    """A recovery's redelivery settled for good: its recovery counts it (store/recoveries.py)."""
    recovery = delivery_store.recovery_of(data)
    if recovery is not None:
        recoveries.settled(delivery.tenant_id, delivery.webhook_id, recovery)


def note_attempt(data: DeliveryData, outcome: Outcome, number: int, at: dt.datetime) -> None:
    """The attempt's facts on the record: the last attempt's fields, and the attempt appended
    to its log (the latest config.WEBHOOK_ATTEMPTS_KEPT kept: a record stays far below the item
    limit, the answer's first bytes each at most config.WEBHOOK_RESPONSE_BYTES)."""
    attempt: Attempt = {"number": number, "at": clock.iso(at), "durationMs": outcome.duration_ms}
    if outcome.status_code is not None:
        attempt["statusCode"] = outcome.status_code
    if outcome.reason:
        attempt["error"] = outcome.reason
    if outcome.response:
        attempt["response"] = outcome.response
    data.update(
        {
            "attempts": number,
            "lastAttemptAt": attempt["at"],
            "lastStatusCode": outcome.status_code,
            "lastError": outcome.reason,
            "lastDurationMs": outcome.duration_ms,
            "attemptLog": [*data.get("attemptLog", []), attempt][-config.WEBHOOK_ATTEMPTS_KEPT :],
        }
    )


def record_test(tenant_id: str, webhook_id: str, body: dict[str, Any], payload: str, outcome: Outcome) -> str:
    """A test (webhooks.test) in the webhook's log: a delivery of its `webhook.ping`, settled by the
    one attempt made (`test`: true). Resending it (webhooks.deliveries.retry) sends the same ping
    again, through the queue like every delivery. Answers the delivery's id."""
    now = clock.now()
    data: DeliveryData = {
        "eventId": body["id"],
        "eventType": body["type"],
        "entityKey": f"webhook#{webhook_id}",
        "payload": payload,
        "status": "delivered" if outcome.delivered else "failed",
        "attempts": 0,
        "test": True,
    }
    note_attempt(data, outcome, 1, now)
    if outcome.delivered:
        data["deliveredAt"] = clock.iso(now)
    delivery_store.create_delivery(tenant_id, webhook_id, data, created_at=clock.iso(now))
    return body["id"]


def give_up(delivery: StoredDelivery, reason: str) -> None:
    """Settle without an attempt: the webhook was deleted or disabled."""
    data = delivery.data.copy()
    data.update({"status": "failed", "lastError": reason})
    data.pop("nextAttemptAt", None)
    data.pop("receipt", None)
    delivery_store.save_delivery(delivery.tenant_id, delivery.webhook_id, data)
    observability.record_delivery("failed")
    _count_settled(delivery, data)


def log(
    tenant_id: str,
    webhook_id: str,
    limit: int,
    offset: int,
    *,
    status: str | None = None,
    event_type: str | None = None,
) -> tuple[list[dict[str, Any]], int, bool]:
    """One page of the webhook's deliveries, newest first, of one status and/or event type when
    asked, the total (counted up to config.COUNT_LIMIT, then capped) and whether counting stopped
    there: a busy webhook logs a million deliveries in its WEBHOOK_LOG_DAYS. A page past the cap
    is empty, read for nothing."""
    page: list[StoredDelivery] = []
    only = {"status": status, "event_type": event_type}
    if offset < config.COUNT_LIMIT:
        page = delivery_store.delivery_page(tenant_id, webhook_id, limit, offset, **only)
    counted = delivery_store.count_deliveries(tenant_id, webhook_id, up_to=config.COUNT_LIMIT + 1, **only)
    return [wire(d) for d in page], min(counted, config.COUNT_LIMIT), counted > config.COUNT_LIMIT


def health(tenant_id: str, webhook_id: str) -> dict[str, Any]:
    """The recent success rate: of the webhook's latest config.WEBHOOK_HEALTH_WINDOW deliveries
    that are settled or were tried at least once (tests included), the share delivered; None
    while none was tried."""
    recent = delivery_store.delivery_page(tenant_id, webhook_id, config.WEBHOOK_HEALTH_WINDOW * 2, 0)
    tried = [d.data for d in recent if d.data.get("status") in ("delivered", "failed") or d.data.get("attempts")]
    tried = tried[: config.WEBHOOK_HEALTH_WINDOW]
    delivered = sum(1 for d in tried if d.get("status") == "delivered")
    return {
        "window": len(tried),
        "delivered": delivered,
        "failed": len(tried) - delivered,
        "successRate": round(delivered / len(tried), 3) if tried else None,
    }


def wire(delivery: StoredDelivery) -> dict[str, Any]:
    data = delivery.data
    shown = (
        "eventType",
        "status",
        "attempts",
        "nextAttemptAt",
        "lastAttemptAt",
        "lastStatusCode",
        "lastError",
        "lastDurationMs",
        "deliveredAt",
    )
    return {
        "id": delivery_store.record_id(data),
        "eventId": data["eventId"],
        **{k: data.get(k) for k in shown},
        "test": bool(data.get("test")),
        # the body as sent (every attempt sends the same); no request header is kept, none shown
        "requestBody": data.get("payload"),
        "attemptLog": [dict(a) for a in data.get("attemptLog", [])],
        "createdAt": delivery.created_at,
    }


def retry_now(tenant_id: str, webhook_id: str, event: str) -> StoredDelivery | None:
    """Put a delivery back in line at once (manual redelivery, also after it gave up): a
    waiting message is woken; a settled one's message is gone, so a new one is queued.
    Answers the delivery as it is now; None when the webhook has no such delivery."""
    delivery = delivery_store.get_delivery(tenant_id, webhook_id, event)
    if delivery is None:
        return None
    data = delivery.data.copy()
    receipt = data.pop("receipt", None) if data.get("status") == "pending" else None
    data.update({"status": "pending", "nextAttemptAt": clock.now_iso()})
    delivery_store.save_delivery(tenant_id, webhook_id, data)
    if receipt is None or not delivery_queue.wake(receipt):
        delivery_queue.enqueue([Delivery(tenant_id, webhook_id, event, data["entityKey"])], again=True)
    return dataclasses.replace(delivery, data=data)
