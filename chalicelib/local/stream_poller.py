"""Feeds the table's stream to the same handler Lambda runs (events.stream.handle_event),
for `make serve` and the tests: moto's stream is read with GetRecords, records get the
fields Lambda adds (eventSourceARN, epoch ApproximateCreationDateTime), failed records are
retried from the first failure, and one that fails `max_attempts` times goes to the
dead-letter store."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from typing import Any

import boto3

from chalicelib import config
from chalicelib.events import deadletters
from chalicelib.events.stream import handle_event
from chalicelib.log import logger


class StreamPoller(threading.Thread):
    # Like Lambda's batching window: records that trickle in are handed over together,
    # which costs the handler far less than one call per record. 20 ms gathers what one request
    # writes; 100 ms (before) added a tenth of a second to every wait for the stream, which the
    # tests do some thousand times (test_bad_input and test_webhooks: 69 s -> 59 s, less CPU too).
    BATCH_WINDOW_SECONDS = 0.02
    BATCH_SIZE = 100

    def __init__(
        self,
        handler: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        interval: float = 0.05,
        max_attempts: int = 5,
        wake: threading.Event | None = None,
    ) -> None:
        """`wake`, when given, is set after every table write (the local stack's write hook):
        an idle poller then sleeps until a write, or `interval` at most, instead of reading
        moto's stream every `interval` (20 reads a second cost an idle stack 6 % of a core)."""
        super().__init__(daemon=True, name="stream-poller")

        self.handler = handler or handle_event
        self.interval = interval
        self.max_attempts = max_attempts
        self.stopping = threading.Event()
        self.wake = wake or threading.Event()
        # wait_idle's requests, numbered, and the newest one a poll begun after it found
        # the stream empty for: everything written before that request has been handled.
        self._quiet = threading.Condition()
        self._asked = 0
        self._answered = 0
        self._iterators: dict[str, str] = {}

    def _client(self) -> Any:
        return boto3.client("dynamodbstreams")

    def start_at_latest(self) -> StreamPoller:
        """Begin after everything written so far (a restored state is not replayed)."""
        self._arn = boto3.client("dynamodb").describe_table(TableName=config.table_name())["Table"]["LatestStreamArn"]
        self._streams = self._client()
        self._refresh_shards("LATEST")
        self.start()
        return self

    def _refresh_shards(self, position: str) -> None:
        shards = self._streams.describe_stream(StreamArn=self._arn)["StreamDescription"]["Shards"]
        for shard in shards:
            if shard["ShardId"] not in self._iterators:
                self._iterators[shard["ShardId"]] = self._streams.get_shard_iterator(
                    StreamArn=self._arn, ShardId=shard["ShardId"], ShardIteratorType=position
                )["ShardIterator"]

    def run(self) -> None:
        while not self.stopping.is_set():
            with self._quiet:
                asked = self._asked
            self.wake.clear()  # before the read: a write after it wakes the next wait
            try:
                busy = self.poll_once()
            except Exception:  # noqa: BLE001 - keep polling; the records stay in the stream
                logger.exception("stream poll failed")
                busy = False
            if not busy:
                with self._quiet:
                    self._answered = asked
                    self._quiet.notify_all()
                self.wake.wait(self.interval)

    def poll_once(self) -> bool:
        busy = False
        for shard in list(self._iterators):
            records = self._read(shard)
            if records:
                busy = True
                if len(records) < self.BATCH_SIZE:
                    self.stopping.wait(self.BATCH_WINDOW_SECONDS)
                    records += self._read(shard, self.BATCH_SIZE * 10)
                for start in range(0, len(records), self.BATCH_SIZE):
                    self.deliver([self._as_lambda(r) for r in records[start : start + self.BATCH_SIZE]])
        return busy

    def _read(self, shard: str, limit: int = 1000) -> list[dict[str, Any]]:
        answer = self._streams.get_records(ShardIterator=self._iterators[shard], Limit=limit)
        self._iterators[shard] = answer.get("NextShardIterator") or self._iterators[shard]
        return list(answer.get("Records", []))

    def _as_lambda(self, record: dict[str, Any]) -> dict[str, Any]:
        record = dict(record)
        stream = dict(record.get("dynamodb", {}))
        created = stream.get("ApproximateCreationDateTime")
        if isinstance(created, dt.datetime):
            stream["ApproximateCreationDateTime"] = created.timestamp()
        record["dynamodb"] = stream
        record.setdefault("eventSourceARN", self._arn)
        record.setdefault("eventSource", "aws:dynamodb")
        return record

    def deliver(self, records: list[dict[str, Any]]) -> None:
        """At least once: after a partial failure the batch resumes at the first failed
        record (as Lambda does with ReportBatchItemFailures). A batch that keeps failing is
        split into single records (as Lambda's BisectBatchOnFunctionError would), so only
        a record that fails on its own goes to the dead-letter store."""
        attempts = 0
        while records:
            failed = self._failures(records)
            if not failed:
                return
            first = next(i for i, r in enumerate(records) if r["dynamodb"]["SequenceNumber"] in failed)
            records = records[first:]
            attempts += 1
            if attempts < self.max_attempts:
                time.sleep(min(0.05 * 2**attempts, 1.0))
                continue
            if len(records) > 1:
                for record in records:
                    self.deliver([record])
                return

            deadletters.store(records[0], f"failed {attempts} times", attempts)
            logger.error(
                "stream record moved to the dead-letter store",
                extra={"sequence": records[0]["dynamodb"]["SequenceNumber"]},
            )
            return

    def _failures(self, records: list[dict[str, Any]]) -> set[str]:
        try:
            answer = self.handler({"Records": records})
        except Exception:  # noqa: BLE001 - the whole batch failed: all of it is retried
            return {r["dynamodb"]["SequenceNumber"] for r in records}
        return {f["itemIdentifier"] for f in answer.get("batchItemFailures", [])}

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Until everything written so far has been handled (tests): a poll begun after
        this call found the stream empty."""
        with self._quiet:
            self._asked += 1
            mine = self._asked
        self.wake.set()
        with self._quiet:
            return self._quiet.wait_for(lambda: self._answered >= mine, timeout)

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()
