"""The FIFO queue that carries webhook deliveries from the stream handler to the delivery
worker. One message group per (webhook, entity): SQS hands out a group's messages one at a
time and in order, so the events of one entity reach a webhook in order, while every other
group (other entities, other webhooks, other tenants) flows past a group that waits. A
retry is the same message made invisible for the wait (ChangeMessageVisibility), which
holds its group, and only its group, until then.

A message names its delivery (tenant, webhook, event id); the delivery item in the table
holds the payload and the state. The deduplication id is the (webhook, event) pair: a stream
record handled twice sends the same message, which SQS drops within its 5-minute window
(and after it, the worker finds the delivery settled and drops it)."""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass

from chalicelib import config
from chalicelib.sqs_client import sqs

MAX_VISIBILITY_SECONDS = 12 * 3600  # SQS's limit: no wait is longer
# The queue, here and deployed (infra/resources.py): a message received is invisible for
# three minutes while its invocation runs (an attempt takes at most 10 s; Lambda's timeout is
# 60 s); kept 14 days (a delivery settles within ~28 h of retries, or 5 days of a resting
# webhook before it is disabled). Every wait counts as a receive, so the dead-letter queue
# takes only a message received 1,000 times: one the worker itself keeps failing on.
QUEUE_SETTINGS = {"VisibilityTimeout": "180", "MessageRetentionPeriod": str(14 * 86400)}
# High-throughput FIFO: deduplication and throughput per message group (moto stores the mode
# and deduplicates queue-wide, the same here: a deduplication id (webhook, event) always lies
# inside one group).
FIFO_SETTINGS = {"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"}
MAX_RECEIVES = 1000


@dataclass(frozen=True)
class Delivery:
    """The message of one delivery: built here (body) and read back by the worker (from_body),
    the one place that knows its shape."""

    tenant_id: str
    webhook_id: str
    event_id: str
    entity_key: str  # <entityType>#<entity id>: the order holds per entity

    def body(self) -> str:
        return json.dumps(
            {
                "tenantId": self.tenant_id,
                "webhookId": self.webhook_id,
                "eventId": self.event_id,
                "entityKey": self.entity_key,
            }
        )

    @classmethod
    def from_body(cls, body: str) -> Delivery:
        """The message's delivery; a KeyError or ValueError for a body that is not one (the worker
        keeps such a message for a while, and the dead-letter queue takes it in the end)."""
        message = json.loads(body)
        return cls(message["tenantId"], message["webhookId"], message["eventId"], message["entityKey"])

    @property
    def group(self) -> str:
        """Its FIFO message group: one per (webhook, entity)."""
        return _token(f"{self.webhook_id}:{self.entity_key}")


def _queue() -> str:
    url = config.delivery_queue_url()
    if url is None:
        raise RuntimeError("PM_DELIVERY_QUEUE_URL is not set: webhook deliveries have nowhere to go")
    return url


def _token(text: str) -> str:
    """SQS allows 128 characters for group and deduplication ids."""
    return text if len(text) <= 128 else hashlib.sha256(text.encode()).hexdigest()


def enqueue(deliveries: list[Delivery], *, again: bool = False) -> None:
    """Send the deliveries' messages, in the order given (the order of their groups).
    `again` (a manual retry of a delivery whose message is gone) gets a fresh deduplication
    id, or SQS would drop it as a repeat of the first."""
    for start in range(0, len(deliveries), 10):
        chunk = deliveries[start : start + 10]
        entries = [
            {
                "Id": str(n),
                "MessageBody": d.body(),
                "MessageGroupId": d.group,
                "MessageDeduplicationId": _token(
                    f"{d.webhook_id}:{d.event_id}" + (f":{uuid.uuid4().hex}" if again else "")
                ),
            }
            for n, d in enumerate(chunk)
        ]
        answer = sqs().send_message_batch(QueueUrl=_queue(), Entries=entries)
        if answer.get("Failed"):
            raise RuntimeError(
                f"{len(answer['Failed'])} delivery messages were not queued: "
                f"{[f.get('Code') for f in answer['Failed']]}"
            )


def wait(receipts: list[tuple[str, float]]) -> None:
    """Make received messages invisible for their waits (seconds, at most 12 h)."""
    for start in range(0, len(receipts), 10):
        entries = [
            {
                "Id": str(n),
                "ReceiptHandle": receipt,
                "VisibilityTimeout": max(0, min(MAX_VISIBILITY_SECONDS, int(seconds + 0.999))),
            }
            for n, (receipt, seconds) in enumerate(receipts[start : start + 10])
        ]
        sqs().change_message_visibility_batch(QueueUrl=_queue(), Entries=entries)


def wake(receipt: str) -> bool:
    """Make a waiting message visible now (a manual retry); False if its receipt no longer
    holds (the message was handed out again, or is gone)."""
    try:
        sqs().change_message_visibility(QueueUrl=_queue(), ReceiptHandle=receipt, VisibilityTimeout=0)
    except Exception:  # noqa: BLE001 - the caller queues a new message instead
        return False
    return True
