"""Feeds the upload queue to the same handler Lambda runs (uploads.register.handle_event),
for `make serve`, the tests and the benchmark: long-polls moto's SQS, hands each batch over
in Lambda's event shape, deletes what succeeded and leaves the reported failures to come
back after the visibility timeout (the queue's redrive policy moves a message that keeps
failing to the dead-letter queue), as Lambda's SQS integration with partial batch
responses does."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from chalicelib.log import logger


class QueuePoller(threading.Thread):
    def __init__(self, queue_url: str, handler: Callable[[dict[str, Any]], dict[str, Any]] | None = None, workers: int = 2) -> None:
        super().__init__(daemon=True, name="queue-poller")
        from chalicelib.uploads.register import handle_event

        self.queue_url = queue_url
        self.handler = handler or handle_event
        self.workers = workers  # concurrent "Lambda invocations", each with its own batch
        self.stopping = threading.Event()
        self.handled = 0

    def _client(self) -> Any:
        import boto3

        return boto3.client("sqs", region_name=os.environ.get("AWS_REGION"))

    def run(self) -> None:
        threads = [threading.Thread(target=self._loop, daemon=True, name=f"queue-worker-{n}") for n in range(self.workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _loop(self) -> None:
        sqs = self._client()
        while not self.stopping.is_set():
            try:
                self._poll_once(sqs)
            except Exception:  # noqa: BLE001 - keep polling; the messages come back
                logger.exception("upload queue poll failed")
                self.stopping.wait(1.0)

    def _poll_once(self, sqs: Any) -> int:
        answer = sqs.receive_message(QueueUrl=self.queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1, MessageSystemAttributeNames=["All"])
        messages = answer.get("Messages") or []
        if not messages:
            return 0
        event = {"Records": [self._record(m) for m in messages]}
        failed = {f["itemIdentifier"] for f in (self.handler(event) or {}).get("batchItemFailures", [])}
        done = [{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(messages) if m["MessageId"] not in failed]
        if done:
            sqs.delete_message_batch(QueueUrl=self.queue_url, Entries=done)
        self.handled += len(done)
        return len(messages)

    def _record(self, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": message.get("Attributes", {}),
            "messageAttributes": {},
            "md5OfBody": message.get("MD5OfBody"),
            "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:local:000000000000:pm-local-uploads",
            "awsRegion": os.environ.get("AWS_REGION"),
        }

    def stop(self) -> None:
        self.stopping.set()
