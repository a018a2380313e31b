"""Webhook delivery records: a webhook's log of the events it was sent, each record also the
delivery's state for the delivery worker (events/deliveries.py decides what goes in it).

  delivery   PK <tenant>#<webhook id>  SK delivery#<event id>   type "delivery", TTL expiresAt
             WEBHOOK_LOG_DAYS after it was made; the reads leave out what is past it, deleted or not

Event ids are time-ordered, so the sort key reads a webhook's log in order; the records share
the webhook's partition with its entity, secret and health items (store/webhooks.py)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Required, TypedDict, cast

from pynamodb.exceptions import PutError, UpdateError

from chalicelib import clock, config
from chalicelib.store.entities import entity_pk
from chalicelib.store.model import Item

DELIVERY_PREFIX = "delivery#"
DELIVERY_TYPE = "delivery"


class Attempt(TypedDict, total=False):
    """One attempt in a record's `attemptLog`. Never a request header (the Authorization value,
    the signature): the request is the record's `payload`, the same for every attempt."""

    number: Required[int]
    at: Required[str]
    durationMs: Required[float]
    statusCode: int  # absent when no answer came
    error: str  # the coarse reason of a failed attempt (events/sender.REASONS)
    response: str  # the first config.WEBHOOK_RESPONSE_BYTES of the answer's body, secrets blanked out


class DeliveryData(TypedDict, total=False):
    """The record's `data` map. A None value (a timeout has no status code) means unset:
    save_delivery drops it, so the map never holds None."""

    eventId: Required[str]  # the event's id: the body's `id` and the `webhook-id` header
    # the record's own id when it is not the event's: <event id>~<recovery> for a recovery's
    # redelivery (webhooks.deliveries.recover), a record beside the event's first one
    deliveryId: str
    eventType: Required[str]
    entityKey: Required[str]  # <entity type>#<entity id>: the message group that keeps an entity's events in order
    payload: Required[str]  # the event body as sent, JSON text
    status: Required[str]  # pending | delivered | failed | superseded (by a recovery's record)
    attempts: Required[int]
    nextAttemptAt: str  # while pending
    receipt: str | None  # the waiting queue message's, while pending after a failed attempt
    lastAttemptAt: str
    lastStatusCode: int | None
    lastError: str | None
    lastDurationMs: float | None
    deliveredAt: str
    attemptLog: list[Attempt]  # the latest config.WEBHOOK_ATTEMPTS_KEPT attempts, oldest first
    test: bool  # a test's ping (webhooks.test), logged with its one attempt


@dataclass(frozen=True)
class StoredDelivery:
    tenant_id: str
    webhook_id: str
    created_at: str | None  # when the event was queued
    data: DeliveryData


def delivery_key(tenant_id: str, webhook_id: str, event_id: str) -> tuple[str, str]:
    return entity_pk(tenant_id, webhook_id), DELIVERY_PREFIX + event_id


def create_delivery(tenant_id: str, webhook_id: str, data: DeliveryData, *, created_at: str) -> bool:
    """Write a new record; False when the event's record exists already (a stream record
    handled twice writes it once)."""
    expires = clock.now() + dt.timedelta(days=config.WEBHOOK_LOG_DAYS)
    item = Item(
        *delivery_key(tenant_id, webhook_id, record_id(data)),
        type=DELIVERY_TYPE,
        tenantId=tenant_id,
        id=webhook_id,
        data=data,
        createdAt=created_at,
        updatedAt=created_at,
        expiresAt=expires,
    )
    try:
        item.save(condition=Item.pk.does_not_exist())
    except PutError as err:
        if getattr(err, "cause_response_code", None) == "ConditionalCheckFailedException":
            return False
        raise
    return True


def record_id(data: DeliveryData) -> str:
    """The id a record is kept (and found, and queued) under."""
    return data.get("deliveryId") or data["eventId"]


def recovery_of(data: DeliveryData) -> str | None:
    """The recovery a redelivery's record belongs to (`<event id>~<recovery>`), else None."""
    _, mark, recovery = str(data.get("deliveryId") or "").partition("~")
    return recovery if mark else None


def supersede(tenant_id: str, webhook_id: str, event_id: str) -> None:
    """A recovery sends the event again under a record of its own: the first one, if still pending,
    stops (its queued message then finds nothing to send), so the event is not also sent out of
    order by its old retry schedule."""
    try:
        Item(*delivery_key(tenant_id, webhook_id, event_id)).update(
            actions=[Item.data["status"].set("superseded"), Item.updatedAt.set(clock.now_iso())],
            condition=Item.pk.exists() & (Item.data["status"] == "pending"),
        )
    except UpdateError as err:
        if getattr(err, "cause_response_code", None) != "ConditionalCheckFailedException":
            raise


def _stored(item: Item) -> StoredDelivery:
    return StoredDelivery(item.tenantId or "", item.id or "", item.createdAt, cast(DeliveryData, item.data_dict()))


def get_delivery(tenant_id: str, webhook_id: str, event_id: str) -> StoredDelivery | None:
    """One record (a consistent GetItem); None when there is none (never made, or expired: past its
    expiresAt, whether or not DynamoDB's TTL has deleted it yet)."""
    try:
        item = Item.get(*delivery_key(tenant_id, webhook_id, event_id), consistent_read=True)
    except Item.DoesNotExist:
        return None
    if item.expiresAt is not None and item.expiresAt <= clock.now():
        return None
    return _stored(item)


def save_delivery(tenant_id: str, webhook_id: str, data: DeliveryData) -> None:
    """Replace the record's data map (unset fields dropped) and stamp updatedAt."""
    kept = {k: v for k, v in data.items() if v is not None}
    Item(*delivery_key(tenant_id, webhook_id, record_id(data))).update(
        actions=[Item.data.set(kept), Item.updatedAt.set(clock.now_iso())]
    )


def _only(status: str | None, event_type: str | None) -> Any:
    """The filter of a log read: the records still kept (DynamoDB's TTL deletes an expired one only
    some time later, days at worst, so the read leaves out what is past its expiresAt itself), of one
    status and/or event type when asked."""
    condition: Any = Item.expiresAt > clock.now()
    if status:
        condition &= Item.data["status"] == status
    if event_type:
        condition &= Item.data["eventType"] == event_type
    return condition


def delivery_page(
    tenant_id: str,
    webhook_id: str,
    limit: int,
    offset: int,
    *,
    status: str | None = None,
    event_type: str | None = None,
) -> list[StoredDelivery]:
    """`limit` records of the webhook's log after the first `offset`, newest first, of those still
    kept, of one status and/or event type when asked (one Query reads them from the newest on, filtered)."""
    newest = Item.query(
        entity_pk(tenant_id, webhook_id),
        Item.sk.startswith(DELIVERY_PREFIX),
        filter_condition=_only(status, event_type),
        scan_index_forward=False,
        consistent_read=True,
        limit=offset + limit,
    )
    return [_stored(item) for item in list(newest)[offset:]]


def count_deliveries(
    tenant_id: str, webhook_id: str, *, up_to: int, status: str | None = None, event_type: str | None = None
) -> int:
    """How many records the webhook's log still keeps (of one status and/or event type when asked),
    counted up to `up_to`."""
    return Item.count(
        entity_pk(tenant_id, webhook_id),
        Item.sk.startswith(DELIVERY_PREFIX),
        filter_condition=_only(status, event_type),
        limit=up_to,
    )
