"""The local stack's FIFO queue (chalicelib/local/moto_patches.py) hands out a message group
in order, as SQS does, even when the group's messages turn visible again during a receive:
moto's own pass, meeting the group's last message just after it turned visible, freed the
group and handed that message out alone ahead of the others (webhook events of one entity
arrived last first in one of twenty runs)."""

from __future__ import annotations

import time
from typing import Any

import boto3
import pytest
from moto.core import DEFAULT_ACCOUNT_ID
from moto.sqs.models import sqs_backends

from chalicelib import config
from chalicelib.local import moto_patches

pytestmark = pytest.mark.usefixtures("memory_table")


class SteppingClock:
    """time.time() that moves one millisecond at every reading: whatever reads the clock twice
    within a pass sees time pass between the readings."""

    def __init__(self, start: float) -> None:
        self.now = start

    def time(self) -> float:
        self.now += 0.001
        return self.now


def _fifo() -> tuple[Any, str]:
    sqs = boto3.client("sqs", region_name=config.region())
    url = sqs.create_queue(QueueName="order.fifo", Attributes={"FifoQueue": "true", "VisibilityTimeout": "180"})[
        "QueueUrl"
    ]
    sqs.send_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": str(n), "MessageBody": f"V{n}", "MessageGroupId": "entity", "MessageDeduplicationId": f"d{n}"}
            for n in range(1, 5)
        ],
    )
    return sqs, url


def _bodies(sqs: Any, url: str) -> list[str]:
    return [m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])]


def test_a_group_turning_visible_during_a_receive_is_handed_out_whole_and_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sqs, url = _fifo()
    assert _bodies(sqs, url) == ["V1", "V2", "V3", "V4"]  # in flight now, as a kept batch is
    queue = sqs_backends[DEFAULT_ACCOUNT_ID][config.region()].get_queue("order.fifo")
    clock = SteppingClock(start=time.time())
    # the batch's waits end one after the other, the last a moment later than the rest
    for message, ends_at in zip(
        sorted(queue._messages, key=lambda m: m.body), (0.0005, 0.0005, 0.0005, 0.0025), strict=True
    ):
        message.visible_at = (clock.now + ends_at) * 1000
    monkeypatch.setattr(moto_patches, "time", clock)
    first = _bodies(sqs, url)
    assert first in ([], ["V1", "V2", "V3", "V4"])  # the group still in flight, or all of it: never V4 alone
    if not first:
        clock.now += 1.0  # the whole batch's waits have ended
        assert _bodies(sqs, url) == ["V1", "V2", "V3", "V4"]


def test_a_receive_is_not_broken_by_a_delete_on_another_thread_while_it_reads_the_groups_in_flight() -> None:
    """moto's receive pass reads the FIFO groups in flight by iterating the queue's set of
    received messages, which a delete or a visibility change on another thread (the delivery
    worker's invocations) may change meanwhile: "Set changed size during iteration" ended the
    pass after it had marked messages received, and they blocked their groups for the
    visibility timeout (180 s) unseen (a recovery's redeliveries waited past 600 s in CI). The
    change here happens from within the iteration, so the race is met every time."""
    sqs, url = _fifo()
    queue = sqs_backends[DEFAULT_ACCOUNT_ID][config.region()].get_queue("order.fifo")
    assert _bodies(sqs, url) == ["V1", "V2", "V3", "V4"]
    received = sorted(queue.pending_messages, key=lambda m: m.body)

    class Deleting(type(received[0])):  # type: ignore[misc]
        @property
        def group_id(self) -> str:  # read by the groups' pass: a delete lands mid-iteration
            queue.pending_messages.discard(received[-1])
            return "entity"

    received[0].__class__ = Deleting
    assert queue.pending_message_groups == {"entity"}
