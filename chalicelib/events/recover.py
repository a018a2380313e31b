"""webhooks.deliveries.recover (issue 33): every event a webhook would have heard since a time,
sent to it again, read back from the change feed (events/feed.py), in commit order, so each
entity's events arrive in the order they happened (the delivery queue keeps one group per
entity). Each goes out with its original id and `"redelivery": true`, under a delivery record of
its own (`<event id>~<recovery>`); the event's first record, if still pending, is superseded, so
its old retry schedule does not send it out of order as well.

At most RECOVER_LIMIT events a call: past it the answer says `capped` and the time of the last
event sent, to call again from there. Only events from the webhook's creation on (it never heard
earlier ones). One recovery of a webhook runs at a time, a number of them a day
(store/recoveries.py). Reads: the feed's head, a binary search for the start, then the entries
past it, a bounded page of them at a time."""

from __future__ import annotations

from typing import Any

from chalicelib import clock, ids
from chalicelib.events import deliveries, delivery_queue, subscriptions
from chalicelib.events import feed as feed_events
from chalicelib.events.delivery_queue import Delivery
from chalicelib.store import deliveries as delivery_store
from chalicelib.store import feed, recoveries

RECOVER_LIMIT = 5_000


def body_of(tenant_id: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The webhook event of a feed entry, as it was sent, marked as a redelivery."""
    body = {
        "id": entry["id"],
        "type": entry["type"],
        "timestamp": entry["occurredAt"],
        "tenantId": tenant_id,
        "actor": entry["actor"],
        "changedFields": entry["changedFields"],
        "data": entry["data"] if entry["data"] is not None else entry.get("deletedData") or {},
    }
    if entry["type"].endswith(".updated"):
        body["previous"] = entry["previous"]
    return {**body, "redelivery": True}


def recover(tenant_id: str, webhook_id: str, since: str) -> dict[str, Any]:
    """Queue the webhook's events since `since` again; answers how many, and whether it stopped
    at RECOVER_LIMIT (then `until`: the time of the last one queued)."""
    recovery = "r" + ids.ulid()[-10:].lower()  # names this call's records
    hook = next((h for h in subscriptions.subscribers(tenant_id) if h["id"] == webhook_id), None)
    if hook is None:
        return {"recovered": 0, "capped": False}
    recoveries.claim(tenant_id, webhook_id, recovery, since)  # one at a time, a number a day
    if hook["createdAt"] and clock.parse(hook["createdAt"]) > clock.parse(since):
        since = hook["createdAt"]  # nothing from before the webhook existed: it never heard that
    position, head = feed_events.last_before(tenant_id, since), feed.head(tenant_id)
    queued: list[Delivery] = []
    last_time = None
    while position < head and len(queued) < RECOVER_LIMIT:
        last = min(head, position + feed_events.SCAN)
        for entry in feed.entries(tenant_id, position + 1, last):
            position = entry["seq"]
            body = body_of(tenant_id, entry)
            if entry["occurredAt"] < hook["createdAt"] or not deliveries.hears(hook, body):  # both our ISO UTC form
                continue
            entity_key = f"{entry['entityType']}#{entry['entityId']}"
            delivery_store.supersede(tenant_id, webhook_id, body["id"])
            delivery_id = f"{body['id']}~{recovery}"
            deliveries.create(tenant_id, webhook_id, body, entity_key=entity_key, delivery_id=delivery_id)
            queued.append(Delivery(tenant_id, webhook_id, delivery_id, entity_key))
            last_time = entry["occurredAt"]
            if len(queued) == RECOVER_LIMIT:
                break
        else:
            position = last
    capped = len(queued) == RECOVER_LIMIT and position < head
    recoveries.set_queued(tenant_id, webhook_id, recovery, len(queued), last_time)  # before any is sent
    delivery_queue.enqueue(queued)
    return {"recovered": len(queued), "capped": capped, **({"until": last_time} if capped else {})}
