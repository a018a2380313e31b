"""The delivery queue's handler: Lambda's SQS event source calls it with a batch of up to 10
messages and reads back the ones to keep (ReportBatchItemFailures); locally the queue poller
(chalicelib/local/queue_poller.py) calls it the same way against moto's FIFO queue.

A batch holds messages of several groups (a group: one webhook, one entity). Groups are
sent in parallel, each in order: when a message of a group is not done (its attempt failed
and waits for a retry, or the webhook is resting or busy), it and every later message of
its group in the batch are kept, made invisible for the wait, so the group's order holds
and the group, only the group, waits. A message is done (deleted) once its delivery is
settled: delivered, failed for good, or found settled already (a repeat).

Nothing here raises for a receiver: every attempt settles (events/sender.py). A failure of
our own (the table unavailable) keeps the message for WORKER_ERROR_WAIT and it comes again."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import partial
from time import monotonic
from typing import Any

from aws_lambda_powertools.utilities.data_classes import SQSEvent, SQSRecord

from chalicelib.events import deliveries, delivery_queue, sender, subscriptions, webhook_health
from chalicelib.log import logger
from chalicelib.store.deliveries import get_delivery

WORKER_ERROR_WAIT = 10.0
# No attempt starts after this many seconds of an invocation: one group of ten slow receivers
# (10 s each) would outlast the function's 60 s (infra/resources.py), and a timed-out batch
# comes back whole. What was not started is kept, visible again at once.
BUDGET_SECONDS = 40.0

Kept = tuple[SQSRecord, float]  # a record and its wait in seconds


def handle_event(event: dict[str, Any]) -> dict[str, Any]:
    groups: dict[str, list[SQSRecord]] = {}
    for record in SQSEvent(event).records:
        groups.setdefault(_group(record), []).append(record)
    if not groups:
        return {"batchItemFailures": []}
    deadline = monotonic() + BUDGET_SECONDS
    with ThreadPoolExecutor(max_workers=len(groups), thread_name_prefix="webhook-group") as pool:
        kept = [k for result in pool.map(partial(_run_group, deadline=deadline), groups.values()) for k in result]
    return {"batchItemFailures": [{"itemIdentifier": record.message_id} for record, _ in kept]}


def _group(record: SQSRecord) -> str:
    return record.attributes.message_group_id or delivery_queue.Delivery.from_body(record.body).group


def _run_group(records: list[SQSRecord], *, deadline: float) -> list[Kept]:
    for index, record in enumerate(records):
        if monotonic() > deadline:
            return _keep([(later, 0.0) for later in records[index:]])
        try:
            wait = _attempt(record)
        except Exception:  # noqa: BLE001 - ours, not the receiver's: the message comes again
            logger.exception("webhook delivery message failed", extra={"messageId": record.message_id})
            wait = WORKER_ERROR_WAIT
        if wait is not None:
            return _keep([(later, wait) for later in records[index:]])
    return []


def _keep(kept: list[Kept]) -> list[Kept]:
    """The group's wait starts when the group is done, not when the batch is: a slow receiver of
    another group in the same batch (an attempt may take its whole timeout) delays no one's retry."""
    try:
        delivery_queue.wait([(record.receipt_handle, wait) for record, wait in kept])
    except Exception:  # noqa: BLE001 - they come back after the queue's visibility timeout instead
        logger.exception("could not set the waits of kept delivery messages")
    return kept


def _attempt(record: SQSRecord) -> float | None:
    """Send the message's delivery once if it may go now; answer None when the message is
    done, or the seconds it waits before it comes again."""
    message = delivery_queue.Delivery.from_body(record.body)
    tenant_id, webhook_id = message.tenant_id, message.webhook_id
    # turned away before: its receive count, less its attempts (Lambda's records carry the count)
    deferred = int(record.attributes.get("ApproximateReceiveCount") or 1) - 1
    known = webhook_health.known_wait(tenant_id, webhook_id, deferred=deferred)
    if known is not None:
        return known  # its webhook rests or is busy, as this process saw a moment ago: not even a read
    delivery = get_delivery(tenant_id, webhook_id, message.event_id)
    if delivery is None:
        return None  # expired from the log long ago: nothing left to send
    data = delivery.data
    if data.get("status") != "pending":
        return None  # a repeat of a settled delivery
    target = subscriptions.target(tenant_id, webhook_id)
    if target is None:
        deliveries.give_up(delivery, "webhook_disabled")
        return None
    admission = webhook_health.admit(tenant_id, webhook_id, deferred=max(0, deferred - int(data.get("attempts", 0))))
    if admission.slot is None:
        return admission.wait
    outcome = sender.send(
        target["url"], data["payload"], data["eventId"], target["signing"], target.get("authorizationHeader")
    )
    webhook_health.record(tenant_id, webhook_id, admission, outcome)
    return deliveries.settle(delivery, outcome, receipt=record.receipt_handle)
