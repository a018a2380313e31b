"""Webhook deliveries: every event a webhook subscribes to becomes a delivery item, sent by
the dispatcher, retried on a schedule kept in the table, in order per entity.

Delivery item: PK <tenant>#<webhook id>, SK delivery#<event id> (event ids are time-ordered,
so a webhook's log reads in order). While pending it carries two sparse index keys:
  gsi1  due#<shard> / <nextAttemptAt>#<PK>#<SK>   what the dispatcher sends next
  gsi2  <PK>#pending#<entity> / <SK>             the oldest pending delivery per entity:
                                                 only that one may be sent (order per entity)
The event id is the delivery's deduplication key: a stream record handled twice writes the
delivery once, and the receiver may see an id again only after a retry."""

from __future__ import annotations

import datetime as dt
import heapq
import json
import os
import threading
import time
import zlib
from typing import Any

from pynamodb.exceptions import PutError, UpdateError

from chalicelib import clock, observability
from chalicelib.events.changes import Change
from chalicelib.store.entities import entity_pk, fetch_many, list_pk
from chalicelib.store.model import ENTITY_SK, INDEXES, Item

DELIVERY_PREFIX = "delivery#"
SHARDS = 4
# Delays before the 2nd, 3rd, ... attempt (the first is immediate).
SCHEDULE = (5, 300, 1800, 7200, 18000, 36000, 36000)
DISABLE_AFTER = dt.timedelta(days=5)
CLAIM_SECONDS = 30


def retry_scale() -> float:
    """Tests shrink the schedule (PM_WEBHOOK_RETRY_SCALE=0.001: 5 s become 5 ms)."""
    return float(os.environ.get("PM_WEBHOOK_RETRY_SCALE", "1"))


def event_id(change: Change) -> str:
    return "evt_" + change.audit_id.split("_", 1)[1]


def event_body(change: Change) -> dict[str, Any]:
    state = change.after or change.before or {}
    data = {"id": change.entity_id, **state.get("data", {}), **{k: state.get(k) for k in ("version", "createdAt", "updatedAt", "deletedAt")}}
    return {"id": event_id(change), "type": f"{change.entity_type}.{change.action}", "timestamp": change.at, "tenantId": change.tenant_id, "data": data}


# Subscriptions per tenant, kept for a second per process: the stream handler would
# otherwise look them up for every small batch. A webhook change seen in the stream, or made
# in this process, drops the tenant's entry; elsewhere a change takes effect within a second.
SUBSCRIPTION_CACHE_SECONDS = 1.0
_subscriptions: dict[str, tuple[float, list[dict[str, Any]]]] = {}


def forget_subscriptions(tenant_id: str) -> None:
    _subscriptions.pop(tenant_id, None)


def webhooks_of(tenant_id: str) -> list[dict[str, Any]]:
    """The tenant's enabled webhooks: id and subscribed events."""
    cached = _subscriptions.get(tenant_id)
    if cached and time.monotonic() - cached[0] < SUBSCRIPTION_CACHE_SECONDS:
        return cached[1]
    hooks = _load_webhooks(tenant_id)
    _subscriptions[tenant_id] = (time.monotonic(), hooks)
    return hooks


def _load_webhooks(tenant_id: str) -> list[dict[str, Any]]:
    keys = [hit.pk for hit in INDEXES[1].query(list_pk(tenant_id, "webhook"), attributes_to_get=["PK"])]
    hooks = [(h.id or "", h.data_dict()) for h in fetch_many(keys)]
    return [{"id": hook_id, "events": set(data.get("events", []))} for hook_id, data in hooks if data.get("enabled", True)]


def fan_out(change: Change) -> int:
    """A delivery per subscribed webhook; a repeat of the same change writes nothing new."""
    if change.entity_type == "webhook":
        forget_subscriptions(change.tenant_id)
    if change.aliases_only:
        return 0
    body = event_body(change)
    written = 0
    for hook in (h for h in webhooks_of(change.tenant_id) if {"*", body["type"]} & h["events"]):
        if create(change.tenant_id, hook["id"], body, entity_key=f"{change.entity_type}#{change.entity_id}"):
            written += 1
    return written


def _due_keys(pk: str, sk: str, entity_key: str, next_at: str) -> dict[str, Any]:
    shard = zlib.crc32(pk.encode()) % SHARDS
    return {"gsi1pk": f"due#{shard}", "gsi1sk": f"{next_at}#{pk}#{sk}", "gsi2pk": f"{pk}#pending#{entity_key}", "gsi2sk": sk}


# Within one process (`make serve`, the tests) the dispatcher need not ask the due index
# every few milliseconds (on moto each ask walks the whole table): whoever makes a delivery
# due says when. Other processes' deliveries are found by the dispatcher's regular look
# (every few seconds), as the cloud's scheduled dispatcher finds everything.
_due_lock = threading.Lock()
_due_wake = threading.Event()
_due_now = False  # a delivery made here is due already
_due_later: list[float] = []  # heap: when deliveries made here fall due (retries)
_DUE_LATER_MAX = 10_000  # beyond, the dispatcher's regular look finds them


def hint_due(at: float) -> None:
    """A delivery becomes due at `at` (epoch seconds). Every hint is kept until its time:
    a retry due in 300 ms is not forgotten when a delivery due now wakes the dispatcher."""
    global _due_now
    with _due_lock:
        now = time.time()
        while _due_later and _due_later[0] <= now:
            heapq.heappop(_due_later)
            _due_now = True
        if at <= now:
            _due_now = True
        elif len(_due_later) < _DUE_LATER_MAX:
            heapq.heappush(_due_later, at)
        _due_wake.set()


def wait_until_due(max_wait: float, stopping: threading.Event) -> None:
    """Return when a hinted delivery is due, after `max_wait` seconds, or on `stopping`."""
    global _due_now
    deadline = time.time() + max_wait
    while not stopping.is_set():
        with _due_lock:
            now = time.time()
            while _due_later and _due_later[0] <= now:
                heapq.heappop(_due_later)
                _due_now = True
            if _due_now:
                _due_now = False
                return
            if now >= deadline:
                return
            wake_at = min(_due_later[0], deadline) if _due_later else deadline
            _due_wake.clear()
        _due_wake.wait(wake_at - now)


def create(tenant_id: str, webhook_id: str, body: dict[str, Any], *, entity_key: str) -> bool:
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
    item = Item(pk, sk, type="delivery", tenantId=tenant_id, id=webhook_id, data=data, createdAt=now, updatedAt=now, **_due_keys(pk, sk, entity_key, now))
    try:
        item.save(condition=Item.pk.does_not_exist())
    except PutError as err:
        if getattr(err, "cause_response_code", None) == "ConditionalCheckFailedException":
            return False
        raise
    hint_due(time.time())
    return True


def due(now: str, limit: int = 100) -> list[Item]:
    found: list[str] = []
    for shard in range(SHARDS):
        hits = INDEXES[1].query(f"due#{shard}", Item.gsi1sk <= f"{now}~", limit=limit, attributes_to_get=["PK", "SK"])
        found += [f"{hit.pk}\n{hit.sk}" for hit in hits]
    items: list[Item] = []
    for key in found:
        pk, sk = key.split("\n")
        items += fetch_many([pk], sk)
    return [i for i in items if i.data_dict().get("status") == "pending"]


def first_in_line(item: Item) -> bool:
    """Only the oldest pending delivery of an entity (per webhook) may go out."""
    oldest = next(iter(INDEXES[2].query(item.gsi2pk, limit=1, attributes_to_get=["PK", "SK"])), None)
    return oldest is None or oldest.sk == item.sk


def claim(item: Item) -> bool:
    """Take the delivery for one send; a concurrent dispatcher gets False."""
    now = clock.now()
    until = clock.iso(now + dt.timedelta(seconds=CLAIM_SECONDS))
    free = Item.data["claimedUntil"].does_not_exist() | (Item.data["claimedUntil"] < clock.iso(now))
    try:
        item.update(actions=[Item.data["claimedUntil"].set(until)], condition=(Item.data["status"] == "pending") & free)
    except UpdateError:
        return False
    return True


def settle(item: Item, outcome: dict[str, Any]) -> None:
    """Record one attempt and decide what comes next."""
    data = item.data_dict()
    now = clock.now()
    attempts = int(data.get("attempts", 0)) + 1
    changes: dict[str, Any] = {
        "attempts": attempts,
        "lastAttemptAt": clock.iso(now),
        "lastStatusCode": outcome.get("statusCode"),
        "lastError": outcome.get("error"),
        "lastDurationMs": outcome.get("durationMs"),
    }
    keep_due = False
    status = outcome.get("statusCode") or 0
    if 200 <= status < 300:
        changes.update(status="delivered", deliveredAt=clock.iso(now))
    elif status == 410:
        changes["status"] = "failed"
        disable(item.tenantId or "", item.id or "", "The receiver answered 410 Gone.")
    else:
        first_failure = data.get("firstFailureAt") or clock.iso(now)
        changes["firstFailureAt"] = first_failure
        failing_since = dt.datetime.fromisoformat(first_failure.replace("Z", "+00:00"))
        if attempts > len(SCHEDULE) or now - failing_since > DISABLE_AFTER:
            changes["status"] = "failed"
            if now - failing_since > DISABLE_AFTER:
                disable(item.tenantId or "", item.id or "", f"Deliveries failed for more than 5 days (last: {outcome.get('error') or status}).")
        else:
            delay = max(SCHEDULE[attempts - 1] * retry_scale(), float(outcome.get("retryAfter") or 0))
            changes["nextAttemptAt"] = clock.iso(now + dt.timedelta(seconds=delay))
            keep_due = True
    data.update(changes)
    data.pop("claimedUntil", None)
    actions: list[Any] = [Item.data.set(data), Item.updatedAt.set(clock.iso(now))]
    if keep_due:
        actions += [getattr(Item, k).set(v) for k, v in _due_keys(item.pk, item.sk, data["entityKey"], data["nextAttemptAt"]).items()]
    else:
        actions += [getattr(Item, f"gsi{n}{p}").remove() for n in (1, 2) for p in ("pk", "sk")]
    item.update(actions=actions)
    observability.record_delivery("gone" if status == 410 else "retry" if keep_due else changes["status"])
    # the next attempt, or the entity's next delivery that waited for this one
    hint_due(dt.datetime.fromisoformat(data["nextAttemptAt"].replace("Z", "+00:00")).timestamp() if keep_due else time.time())


def disable(tenant_id: str, webhook_id: str, reason: str) -> None:
    """Stop a webhook's deliveries and say why (the tenant sees it on webhooks.show)."""
    hook = Item(entity_pk(tenant_id, webhook_id), ENTITY_SK)
    actions = [Item.data["enabled"].set(False), Item.data["disabledReason"].set(reason), Item.data["disabledAt"].set(clock.now_iso()), Item.version.add(1)]
    try:
        hook.update(actions=actions, condition=Item.pk.exists())
    except UpdateError as err:
        if err.cause_response_code != "ConditionalCheckFailedException":
            raise  # not disabled: the delivery stays claimed and is settled again
        # the webhook is gone: nothing to disable


def log(tenant_id: str, webhook_id: str) -> list[dict[str, Any]]:
    """The webhook's deliveries, newest first."""
    items = Item.query(entity_pk(tenant_id, webhook_id), Item.sk.startswith(DELIVERY_PREFIX), scan_index_forward=False, consistent_read=True)
    return [wire(i) for i in items]


def wire(item: Item) -> dict[str, Any]:
    data = item.data_dict()
    shown = ("eventId", "eventType", "status", "attempts", "nextAttemptAt", "lastAttemptAt", "lastStatusCode", "lastError", "lastDurationMs", "deliveredAt")
    return {"id": data["eventId"], **{k: data.get(k) for k in shown if k != "eventId"}, "createdAt": item.createdAt}


def retry_now(tenant_id: str, webhook_id: str, event: str) -> Item:
    """Put a delivery back in line at once (manual redelivery, also after it gave up)."""
    pk, sk = entity_pk(tenant_id, webhook_id), DELIVERY_PREFIX + event
    item = Item.get(pk, sk, consistent_read=True)
    data = item.data_dict()
    now = clock.now_iso()
    data.update(status="pending", nextAttemptAt=now)
    data.pop("claimedUntil", None)
    actions: list[Any] = [Item.data.set(data), *[getattr(Item, k).set(v) for k, v in _due_keys(pk, sk, data["entityKey"], now).items()]]
    item.update(actions=actions)
    hint_due(time.time())
    return item
