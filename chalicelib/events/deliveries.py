"""Webhook deliveries: every event a webhook subscribes to becomes a delivery item (its log
entry and state) and a message on the delivery queue (events/delivery_queue.py), which the
delivery worker (events/delivery_worker.py) sends, in order per entity, on a retry schedule.

Delivery item: PK <tenant>#<webhook id>, SK delivery#<event id> (event ids are time-ordered,
so a webhook's log reads in order), expiring WEBHOOK_LOG_DAYS after it was made (TTL). The
event id is the delivery's deduplication key: a stream record handled twice writes the
delivery once, and the receiver sees an id again only on a retry."""

from __future__ import annotations

import datetime as dt
import json
import time
from typing import Any

from pynamodb.exceptions import PutError

from chalicelib import clock, config, observability
from chalicelib.events import delivery_queue, subscriptions
from chalicelib.events.changes import Change
from chalicelib.events.delivery_queue import Delivery
from chalicelib.events.sender import Outcome
from chalicelib.store.entities import entity_pk
from chalicelib.store.model import Item

DELIVERY_PREFIX = "delivery#"
# Waits before the 2nd, 3rd, ... attempt (the first is immediate); then the delivery fails.
SCHEDULE = (5, 300, 1800, 7200, 18000, 36000, 36000)
RETRY_AFTER_CAP_SECONDS = 3600  # a receiver's Retry-After lengthens a wait up to this, no further


def event_id(change: Change) -> str:
    return "evt_" + change.audit_id.split("_", 1)[1]


def event_body(change: Change) -> dict[str, Any]:
    state = change.after or change.before or {}
    data = {
        "id": change.entity_id,
        **state.get("data", {}),
        **{k: state.get(k) for k in ("version", "createdAt", "updatedAt", "deletedAt")},
    }
    return {
        "id": event_id(change),
        "type": f"{change.entity_type}.{change.action}",
        "timestamp": change.at,
        "tenantId": change.tenant_id,
        "data": data,
    }


def fan_out(change: Change) -> int:
    """A delivery per subscribed webhook, and its message on the queue. A repeat of the same
    change writes nothing new; its messages are sent again (SQS drops the repeats), so a
    change whose items were written but whose messages were not is never lost."""
    if change.entity_type == "webhook":
        subscriptions.forget(change.tenant_id)
    if change.aliases_only or change.account:
        # the account's records (keys, tenant, integrations) are audited but no event type of
        # the interface (webhooks.eventTypes): a "*" webhook must not receive a key's record
        return 0
    body = event_body(change)
    entity_key = f"{change.entity_type}#{change.entity_id}"
    queued = []
    for hook in subscriptions.subscribers(change.tenant_id):
        if {"*", body["type"]} & hook["events"]:
            create(change.tenant_id, hook["id"], body, entity_key=entity_key)
            queued.append(Delivery(change.tenant_id, hook["id"], body["id"], entity_key))
    delivery_queue.enqueue(queued)
    return len(queued)


def create(tenant_id: str, webhook_id: str, body: dict[str, Any], *, entity_key: str) -> bool:
    """Write the delivery item; False when it exists already."""
    pk, sk = entity_pk(tenant_id, webhook_id), DELIVERY_PREFIX + body["id"]
    now = clock.now_iso()
    data = {
        "eventId": body["id"],
        "eventType": body["type"],
        "entityKey": entity_key,
        "payload": json.dumps(body, separators=(",", ":")),
        "status": "pending",
        "attempts": 0,
        "nextAttemptAt": now,
    }
    expires = int(time.time()) + config.WEBHOOK_LOG_DAYS * 86400
    item = Item(
        pk,
        sk,
        type="delivery",
        tenantId=tenant_id,
        id=webhook_id,
        data=data,
        createdAt=now,
        updatedAt=now,
        expiresAt=expires,
    )
    try:
        item.save(condition=Item.pk.does_not_exist())
    except PutError as err:
        if getattr(err, "cause_response_code", None) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def get(tenant_id: str, webhook_id: str, event: str) -> Item | None:
    try:
        return Item.get(entity_pk(tenant_id, webhook_id), DELIVERY_PREFIX + event, consistent_read=True)
    except Item.DoesNotExist:
        return None


def next_wait(attempts: int, retry_after: int | None) -> float:
    """Seconds before the next attempt, after `attempts` failed ones: the schedule's step,
    lengthened by the receiver's Retry-After up to an hour (never beyond, never shortened)."""
    step = SCHEDULE[attempts - 1] * config.webhook_retry_scale()
    return max(step, float(min(retry_after or 0, RETRY_AFTER_CAP_SECONDS)))


def settle(item: Item, outcome: Outcome, *, receipt: str | None = None) -> float | None:
    """Record one attempt; answer the wait before the next one, or None when the delivery
    is settled for good (delivered, or failed: 410 or the schedule ran out). `receipt` is
    the waiting message's, kept so that a manual retry can wake it."""
    data = item.data_dict()
    now = clock.now()
    attempts = int(data.get("attempts", 0)) + 1
    data.update(
        attempts=attempts,
        lastAttemptAt=clock.iso(now),
        lastStatusCode=outcome.status_code,
        lastError=outcome.reason,
        lastDurationMs=outcome.duration_ms,
    )
    wait: float | None = None
    if outcome.delivered:
        data.update(status="delivered", deliveredAt=clock.iso(now))
    elif outcome.status_code == 410 or attempts > len(SCHEDULE):
        data["status"] = "failed"
    else:
        wait = next_wait(attempts, outcome.retry_after)
        data.update(nextAttemptAt=clock.iso(now + dt.timedelta(seconds=wait)), receipt=receipt)
    if wait is None:
        data.pop("nextAttemptAt", None)
        data.pop("receipt", None)
    _save(item, data)
    observability.record_delivery(
        "gone" if outcome.status_code == 410 else "retry" if wait is not None else data["status"]
    )
    return wait


def give_up(item: Item, reason: str) -> None:
    """Settle without an attempt: the webhook was deleted or disabled."""
    data = item.data_dict()
    data.update(status="failed", lastError=reason)
    data.pop("nextAttemptAt", None)
    data.pop("receipt", None)
    _save(item, data)
    observability.record_delivery("failed")


def _save(item: Item, data: dict[str, Any]) -> None:
    item.update(
        actions=[Item.data.set({k: v for k, v in data.items() if v is not None}), Item.updatedAt.set(clock.now_iso())]
    )


def log(tenant_id: str, webhook_id: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int, bool]:
    """One page of the webhook's deliveries, newest first, the total (counted up to
    config.COUNT_LIMIT, then capped) and whether counting stopped there: a busy webhook logs
    a million deliveries in its WEBHOOK_LOG_DAYS. A page past the cap is empty, read for nothing."""
    pk, in_log = entity_pk(tenant_id, webhook_id), Item.sk.startswith(DELIVERY_PREFIX)
    page: list[Item] = []
    if offset < config.COUNT_LIMIT:
        page = list(Item.query(pk, in_log, scan_index_forward=False, consistent_read=True, limit=offset + limit))[
            offset:
        ]
    counted = Item.count(pk, in_log, limit=config.COUNT_LIMIT + 1)
    return [wire(i) for i in page], min(counted, config.COUNT_LIMIT), counted > config.COUNT_LIMIT


def wire(item: Item) -> dict[str, Any]:
    data = item.data_dict()
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
    return {"id": data["eventId"], **{k: data.get(k) for k in shown}, "createdAt": item.createdAt}


def retry_now(tenant_id: str, webhook_id: str, event: str) -> Item:
    """Put a delivery back in line at once (manual redelivery, also after it gave up): a
    waiting message is woken; a settled one's message is gone, so a new one is queued."""
    pk, sk = entity_pk(tenant_id, webhook_id), DELIVERY_PREFIX + event
    item = Item.get(pk, sk, consistent_read=True)
    data = item.data_dict()
    receipt = data.pop("receipt", None) if data.get("status") == "pending" else None
    data.update(status="pending", nextAttemptAt=clock.now_iso())
    _save(item, data)
    if receipt is None or not delivery_queue.wake(receipt):
        delivery_queue.enqueue([Delivery(tenant_id, webhook_id, event, data["entityKey"])], again=True)
    return item
