"""Start moto's server on loopback (this process's own calls reach it without a socket:
chalicelib/local/moto_transport.py), point boto3 and pynamodb at it, create the table (and
bucket and queue), and keep the table's items on disk between runs.

State is a JSON file of the table's items in DynamoDB's own typed format, written
atomically (temp file + rename), so a kill at any moment leaves the last complete
snapshot."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from chalicelib import config, sqs_client
from chalicelib.events import delivery_queue

LOCAL_ENV = {
    "AWS_ACCESS_KEY_ID": "local",
    "AWS_SECRET_ACCESS_KEY": "local",
    "AWS_REGION": "eu-central-1",
    "AWS_DEFAULT_REGION": "eu-central-1",
    # moto's in-process and server modes break Streams calls under account-id endpoints
    "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
}

_WRITE_CALLS = ("PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def attach(stack: dict[str, Any]) -> None:
    """Point this process at the stack another process runs (`pmctl --local`): `stack` is
    what `make serve` wrote to its stack.json (endpoint, region, tableName, keyEnvironment)."""
    os.environ.update(LOCAL_ENV)  # the embedded stack's dummy credentials
    for name in [n for n in os.environ if n.startswith("AWS_ENDPOINT_URL_")]:
        del os.environ[name]
    os.environ.pop("AWS_PROFILE", None)
    os.environ["AWS_ENDPOINT_URL"] = stack["endpoint"]
    os.environ["AWS_REGION"] = os.environ["AWS_DEFAULT_REGION"] = stack["region"]
    os.environ["PM_TABLE_NAME"] = stack["tableName"]
    os.environ["PM_KEY_ENVIRONMENT"] = stack.get("keyEnvironment", "test")
    from chalicelib.store import model  # cold start: pynamodb (~100 ms) loads when a stack is attached

    model.reset_connection()


class LocalStack:
    def __init__(self, state_file: Path | None = None, port: int | None = None, *, own_process: bool = False) -> None:
        self.state_file = state_file
        self.own_process = own_process  # moto in a child process (chalicelib/local/moto_process.py)
        self.port = port or free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._server: Any = None
        self._dirty = threading.Event()

    def start(self) -> LocalStack:
        for name, value in LOCAL_ENV.items():
            os.environ.setdefault(name, value)
        for name in [n for n in os.environ if n.startswith("AWS_ENDPOINT_URL_")]:
            del os.environ[name]  # one endpoint for every service: the local one
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        self._start_moto()
        os.environ["AWS_ENDPOINT_URL"] = self.endpoint
        from chalicelib.store import (  # cold start: pynamodb (~100 ms) loads when the stack starts,
            # not for free_port or LOCAL_ENV
            model,
        )

        model.reset_connection()
        model.create_table()
        self._create_queues_and_bucket()
        if self.state_file and self.state_file.exists():
            self.import_state(self.state_file)
        self._notify_uploads()
        self._watch_writes()
        return self

    def _start_moto(self) -> None:
        if self.own_process:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "chalicelib.local.moto_process", str(self.port)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert self._process.stdout is not None and self._process.stdout.readline().strip() == "ready", (
                "moto did not start"
            )
            return
        from moto.server import (  # cold start: moto (~100 ms) loads only where it runs
            # (own_process leaves it to the child)
            ThreadedMotoServer,
        )

        from chalicelib.local import moto_patches, moto_transport  # cold start: they load moto, only where it runs

        moto_patches.apply()
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()
        moto_transport.install(self.endpoint)  # this process's own calls skip the sockets

    def _create_queues_and_bucket(self) -> None:
        """The upload bucket notifies the upload queue of every stored file; a message that
        keeps failing moves to the dead-letter queue, as the deployed queues do. The webhook
        deliveries have their own queue."""
        import boto3  # cold start: boto3 (~15 ms) loads when the stack starts, not for free_port or LOCAL_ENV

        region = config.region()
        bucket = os.environ["PM_UPLOAD_BUCKET"] = config.upload_bucket()
        s3, sqs = boto3.client("s3", region_name=region), boto3.client("sqs", region_name=region)
        if bucket not in {
            b["Name"] for b in s3.list_buckets().get("Buckets", [])
        }:  # a second stack in one process shares moto's state
            s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": region})
        # versioned, as deployed: a registered file is pinned to its version (uploads/register.py)
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
        queue, dlq = _queue_with_dead_letters(sqs, "pm-local-uploads", visibility=5, max_receives=5)
        os.environ["PM_UPLOAD_QUEUE_URL"] = queue
        os.environ["PM_UPLOAD_DLQ_URL"] = dlq
        self._queue_arn = _arn(sqs, queue)
        self._create_delivery_queues(sqs)
        self._create_export_queue(sqs)
        self._create_sandbox_queue(sqs)

    def _create_export_queue(self, sqs: Any) -> None:
        """The export queue (as deployed: infra/resources.py), its visibility the worker's time."""
        os.environ["PM_EXPORT_QUEUE_URL"] = sqs.create_queue(
            QueueName="pm-local-exports", Attributes={"VisibilityTimeout": "960"}
        )["QueueUrl"]

    def _create_sandbox_queue(self, sqs: Any) -> None:
        """The sandbox jobs' queue (as deployed: infra/resources.py), its visibility the worker's
        time; a job that failed its attempts (sandbox/worker.py MAX_RECEIVES) moves to the dead-letter queue."""
        queue, _dlq = _queue_with_dead_letters(sqs, "pm-local-sandboxes", visibility=960, max_receives=3)
        os.environ["PM_SANDBOX_QUEUE_URL"] = queue
        os.environ["PM_SANDBOX_QUEUE_ARN"] = _arn(sqs, queue)

    def _create_delivery_queues(self, sqs: Any) -> None:
        """The webhook delivery queue (FIFO, as deployed: infra/resources.py) and its
        dead-letter queue."""
        fifo = {"FifoQueue": "true"}
        dlq = sqs.create_queue(QueueName="pm-local-deliveries-dlq.fifo", Attributes=fifo)["QueueUrl"]
        redrive = json.dumps({"deadLetterTargetArn": _arn(sqs, dlq), "maxReceiveCount": delivery_queue.MAX_RECEIVES})
        attributes = {**fifo, **delivery_queue.QUEUE_SETTINGS, **delivery_queue.FIFO_SETTINGS, "RedrivePolicy": redrive}
        os.environ["PM_DELIVERY_QUEUE_URL"] = sqs.create_queue(
            QueueName="pm-local-deliveries.fifo", Attributes=attributes
        )["QueueUrl"]
        os.environ["PM_DELIVERY_DLQ_URL"] = dlq
        sqs_client.reset()  # the queues' client (shared by deliveries and exports) to this endpoint

    def _notify_uploads(self) -> None:
        """Turned on after the state import, so restored files are not registered again."""
        import boto3  # cold start: boto3 loads when the stack starts

        boto3.client("s3", region_name=config.region()).put_bucket_notification_configuration(
            Bucket=config.upload_bucket(),
            NotificationConfiguration={
                "QueueConfigurations": [{"QueueArn": self._queue_arn, "Events": ["s3:ObjectCreated:*"]}]
            },
        )

    def _client(self) -> Any:
        from chalicelib.store.model import Item  # cold start: pynamodb loads when the stack starts

        return Item._get_connection().connection.client

    def _watch_writes(self) -> None:
        """Mark the state dirty on every write, so snapshots are only taken when needed."""
        for call in _WRITE_CALLS:
            self._client().meta.events.register(f"after-call.dynamodb.{call}", lambda **_: self._dirty.set())

    def items(self) -> list[dict[str, Any]]:

        paginator = self._client().get_paginator("scan")
        return [item for page in paginator.paginate(TableName=config.table_name()) for item in page["Items"]]

    def moto_table(self) -> Any:
        """The service's table in moto's memory (moto in this process), None before it exists."""
        from moto.core import DEFAULT_ACCOUNT_ID  # cold start: moto loads only where it runs
        from moto.dynamodb.models import dynamodb_backends  # cold start: moto loads only where it runs

        return dynamodb_backends[DEFAULT_ACCOUNT_ID][config.region()].tables.get(config.table_name())

    def items_text(self, *, except_sk: str | None = None) -> str:
        """The table's items as one DynamoDB JSON text (those with SK `except_sk` left out):
        what a test searches for a value, in seconds where a Scan of a long session's table
        over HTTP takes minutes."""
        return self._items_json(except_sk)[1]

    def _items_json(self, except_sk: str | None = None) -> tuple[int, str]:
        """The table's items as DynamoDB JSON text, and their count. With moto in this
        process, read from its memory while its writes wait (moto_patches.WRITE_LOCK), so
        a snapshot holds every transaction whole or not at all; through Scan pages
        otherwise (moto in a child process: its lock is out of reach)."""

        if self._server is not None:
            from moto.dynamodb.models.utilities import DynamoJsonEncoder  # cold start: moto loads only where it runs

            from chalicelib.local import moto_patches  # cold start: it loads moto, only where moto runs

            with moto_patches.WRITE_LOCK:
                table = self.moto_table()
                if table is not None:
                    attrs = [
                        item.attrs
                        for item in table.all_items()
                        if except_sk is None or getattr(item.range_key, "value", None) != except_sk
                    ]
                    return len(attrs), json.dumps(attrs, cls=DynamoJsonEncoder)
        items = [item for item in self.items() if except_sk is None or item["SK"]["S"] != except_sk]
        return len(items), json.dumps(items)

    def export_state(self, path: Path | None = None) -> int:
        """The table's items to the state file, the upload bucket's files beside it."""
        from chalicelib.local import (  # cold start: botocore (~45 ms) loads with the state,
            # not for free_port or LOCAL_ENV
            file_mirror,
        )

        target = path or self.state_file
        if target is None:
            return 0
        self._dirty.clear()
        count, items = self._items_json()
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".state-")
        with os.fdopen(fd, "w") as out:
            out.write(f'{{"format": 1, "items": {items}}}')
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
        file_mirror.save(target.parent / "files")
        return count

    def import_state(self, path: Path) -> int:
        from chalicelib.local import file_mirror  # cold start: as in export_state

        restored = file_mirror.load(path.parent / "files")
        items = json.loads(path.read_text())["items"]
        file_mirror.repin(items, restored)
        client = self._client()
        for start in range(0, len(items), 25):
            requests = [{"PutRequest": {"Item": item}} for item in items[start : start + 25]]
            pending: dict[str, Any] = {config.table_name(): requests}
            while pending:
                pending = client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
        self._dirty.clear()
        return len(items)

    def snapshot_if_dirty(self) -> bool:
        if self._dirty.is_set():
            self.export_state()
            return True
        return False

    def start_stream(self, uploads: bool = True) -> Any:
        """Feed the table's stream to the stream handler, from now on (after any import), and
        the upload queue to the upload handler (unless a separate worker takes it: the
        upload benchmark)."""
        from chalicelib.events.stream import (  # cold start: store and logger load on start
            # (after serve.py's environment)
            handle_event,
        )
        from chalicelib.local import queue_poller  # cold start: as above
        from chalicelib.local.stream_poller import StreamPoller  # cold start: as above

        def handle(event: dict[str, Any]) -> dict[str, Any]:
            # Every table write reaches the stream, also those of other processes on the same
            # stack (pmctl --local), which the write hook of this process never sees.
            self._dirty.set()
            return handle_event(event)

        if self._server is not None:  # moto in this process: its writes wake the poller
            from chalicelib.local import moto_patches  # cold start: loaded already where moto runs

            poller = StreamPoller(handler=handle, wake=moto_patches.TABLE_WRITTEN, interval=1.0)
        else:
            poller = StreamPoller(handler=handle)
        self.poller = poller.start_at_latest()
        self.deliveries = queue_poller.for_deliveries()
        self.deliveries.start()
        self.exports = queue_poller.for_exports()
        self.exports.start()
        self.sandboxes = queue_poller.for_sandboxes()
        self.sandboxes.start()
        if uploads:
            self.uploads = queue_poller.for_uploads()
            self.uploads.start()
        return self.poller

    def stop(self) -> None:
        for worker in (
            getattr(self, "poller", None),
            getattr(self, "deliveries", None),
            getattr(self, "exports", None),
            getattr(self, "sandboxes", None),
            getattr(self, "uploads", None),
        ):
            if worker is not None:
                worker.stop()
                worker.join(timeout=5)
        if self._server is not None:
            from chalicelib.local import moto_transport  # cold start: loaded already where moto runs

            moto_transport.uninstall(self.endpoint)
            self._server.stop()
            self._server = None
        process = getattr(self, "_process", None)
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
            del self._process


def _arn(sqs: Any, queue_url: str) -> str:
    return str(sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"])


def _queue_with_dead_letters(sqs: Any, name: str, *, visibility: int, max_receives: int) -> tuple[str, str]:
    """A queue whose message moves to `<name>-dlq` after `max_receives` receipts: (queue, dead letters)."""
    dlq = sqs.create_queue(QueueName=f"{name}-dlq")["QueueUrl"]
    redrive = json.dumps({"deadLetterTargetArn": _arn(sqs, dlq), "maxReceiveCount": max_receives})
    queue = sqs.create_queue(
        QueueName=name, Attributes={"VisibilityTimeout": str(visibility), "RedrivePolicy": redrive}
    )["QueueUrl"]
    return str(queue), str(dlq)
