"""The export queue: exports.create sends one message per export, the export worker (Lambda
`run_exports`, fed by the queue) runs it."""

from __future__ import annotations

import json
import threading
from typing import Any

from chalicelib import config

_client_lock = threading.Lock()
_client: Any = None


def sqs() -> Any:
    """One client per process (thread-safe), made on first use."""
    global _client
    with _client_lock:
        if _client is None:
            import boto3  # cold start: boto3 (~15 ms) loads with the first queue client

            _client = boto3.client("sqs", region_name=config.region())
        return _client


def reset_client() -> None:
    """Tests and the local stack switch endpoints."""
    global _client
    with _client_lock:
        _client = None


def enqueue(tenant_id: str, export_id: str) -> None:
    url = config.export_queue_url()
    if url is None:
        raise RuntimeError("PM_EXPORT_QUEUE_URL is not set: exports have nowhere to go")
    sqs().send_message(QueueUrl=url, MessageBody=json.dumps({"tenantId": tenant_id, "exportId": export_id}))
