"""Feeds an SQS queue of the local stack to the handler Lambda runs for it, for `make serve`,
the tests and the benchmarks: long-polls moto's SQS, hands each batch over in Lambda's event
shape, deletes what succeeded and leaves the reported failures to come back (after the
visibility timeout, or the wait the handler set), as Lambda's SQS integration with partial
batch responses does; the queue's redrive policy moves a message that keeps failing to its
dead-letter queue.

`invocations` is how many batches are handled at once, as Lambda runs several instances:
a receive waits for a free one, so a batch is never received before it can be handled
(it would sit invisible meanwhile). Four queues use it: the upload notices (2 invocations),
the webhook deliveries (many: an invocation waits as long as its slowest receiver), the
exports and the sandbox jobs (2 invocations each, one export or job each)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import boto3

from chalicelib import config, resources
from chalicelib.events import delivery_worker
from chalicelib.log import logger
from chalicelib.uploads import register as upload_worker

Handler = Callable[[dict[str, Any]], dict[str, Any]]


class QueuePoller(threading.Thread):
    def __init__(
        self,
        queue_url: str,
        handler: Handler,
        *,
        name: str,
        invocations: int = 2,
        receivers: int = 2,
        batch_size: int = 10,
    ) -> None:
        super().__init__(daemon=True, name=f"{name}-poller")
        self.queue_url = queue_url
        self.handler = handler
        self.label = name
        self.receivers = receivers
        self.free = threading.Semaphore(invocations)
        self.pool = ThreadPoolExecutor(max_workers=invocations, thread_name_prefix=f"{name}-invocation")
        self.stopping = threading.Event()
        self.batch_size = batch_size  # messages a receive takes at most (the function's batch size)
        self.invocations = invocations
        self.receiving = threading.Event()  # cleared while paused(): no receive starts
        self.receiving.set()
        self.handled = 0
        self._count_lock = threading.Lock()
        # Made here, in the thread that builds the poller, not in run(): a client reads
        # os.environ while it is made, and a test runner that changes the environment meanwhile
        # (pytest's PYTEST_CURRENT_TEST) made the poller thread die with a KeyError once, after
        # which no upload was registered again in that process.
        self.sqs = boto3.client("sqs", region_name=config.region())

    def run(self) -> None:
        sqs = self.sqs
        threads = [
            threading.Thread(target=self._loop, args=(sqs,), daemon=True, name=f"{self.label}-receiver-{n}")
            for n in range(self.receivers)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.pool.shutdown(wait=False, cancel_futures=True)

    def _loop(self, sqs: Any) -> None:
        while not self.stopping.is_set():
            if not self.receiving.wait(timeout=0.5) or not self.free.acquire(timeout=0.5):
                continue
            try:
                messages = self._receive(sqs)
            except Exception:  # noqa: BLE001 - keep polling; the messages come back
                logger.exception("queue poll failed", extra={"queue": self.label})
                self.free.release()
                self.stopping.wait(1.0)
                continue
            if not messages:
                self.free.release()
                continue
            self.pool.submit(self._invoke, sqs, messages)

    def _receive(self, sqs: Any) -> list[dict[str, Any]]:
        answer = sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=1,
            MessageSystemAttributeNames=["All"],
        )
        return list(answer.get("Messages") or [])

    def _invoke(self, sqs: Any, messages: list[dict[str, Any]]) -> None:
        try:
            event = {"Records": [self._record(m) for m in messages]}
            try:
                answer = self.handler(event) or {}
            except Exception:  # noqa: BLE001 - as a crashed invocation: the whole batch comes back
                logger.exception("queue handler failed", extra={"queue": self.label})
                return
            failed = {f["itemIdentifier"] for f in answer.get("batchItemFailures", [])}
            done = [
                {"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]}
                for n, m in enumerate(messages)
                if m["MessageId"] not in failed
            ]
            if done:
                sqs.delete_message_batch(QueueUrl=self.queue_url, Entries=done)
            with self._count_lock:
                self.handled += len(done)
        except Exception:  # noqa: BLE001 - the undeleted messages come back
            logger.exception("queue batch failed", extra={"queue": self.label})
        finally:
            self.free.release()

    def _record(self, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": message.get("Attributes", {}),
            "messageAttributes": {},
            "md5OfBody": message.get("MD5OfBody"),
            "eventSource": "aws:sqs",
            "eventSourceARN": f"arn:aws:sqs:local:000000000000:{self.label}",
            "awsRegion": config.region(),
        }

    def stop(self) -> None:
        self.stopping.set()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing is received meanwhile (a test holds a message in the queue): no receive starts,
        and the ones under way (each holding an invocation) are waited for."""
        self.receiving.clear()
        for _ in range(self.invocations):
            self.free.acquire()
        try:
            yield
        finally:
            for _ in range(self.invocations):
                self.free.release()
            self.receiving.set()


def _queue(url: str | None, name: str) -> str:
    if url is None:
        raise RuntimeError(f"the {name} queue is not set up: start the local stack first (LocalStack.start)")
    return url


def for_uploads(invocations: int = 2, handler: Handler | None = None) -> QueuePoller:
    """The upload notices (S3 -> SQS) to the upload handler, as `on_upload` in Lambda
    (`handler`: another way in to it; the upload benchmark's worker calls app.on_upload).
    Loads the resource modules first, as app.py does for on_upload: the stack may start its
    workers before anything imported the app, and the worker needs the entity types."""
    resources.load_all()
    return QueuePoller(
        _queue(config.upload_queue_url(), "uploads"),
        handler or upload_worker.handle_event,
        name="uploads",
        invocations=invocations,
    )


def for_exports(invocations: int = 2) -> QueuePoller:
    """The export queue to the export worker, as `run_exports` in Lambda (one message a batch)."""
    from chalicelib.exports import worker as export_worker  # cold start: loads with the local workers

    resources.load_all()
    return QueuePoller(
        _queue(config.export_queue_url(), "exports"),
        export_worker.handle_event,
        name="exports",
        invocations=invocations,
        batch_size=1,
    )


def for_sandboxes(invocations: int = 2) -> QueuePoller:
    """The sandbox queue to the sandbox worker, as `run_sandboxes` in Lambda (one job a batch).
    Loads the resource modules first: the worker runs the registry's operations."""
    from chalicelib.sandbox import worker as sandbox_worker  # cold start: loads with the local workers

    resources.load_all()
    return QueuePoller(
        _queue(config.sandbox_queue_url(), "sandboxes"),
        sandbox_worker.handle_event,
        name="sandboxes",
        invocations=invocations,
        batch_size=1,
    )


# One tenant holds at most MAX_WEBHOOKS x MAX_IN_FLIGHT = 100 attempts at once (events/webhook_health.py);
# each may hold an invocation for an attempt's whole timeout, so there are more than that.
DELIVERY_INVOCATIONS = 128


def for_deliveries(invocations: int = DELIVERY_INVOCATIONS) -> QueuePoller:
    """The webhook delivery queue to the delivery worker, as `deliver_webhooks` in Lambda."""
    return QueuePoller(
        _queue(config.delivery_queue_url(), "deliveries"),
        delivery_worker.handle_event,
        name="deliveries",
        invocations=invocations,
    )
