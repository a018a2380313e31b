"""The sandbox queue: the console asks for a sandbox's planting or reset (a minute's work, longer
than a request may take) by one message; the sandbox worker (sandbox/worker.py) runs it."""

from __future__ import annotations

import json
from typing import Any

from chalicelib import config
from chalicelib.sqs_client import sqs


def enqueue(tenant_id: str, action: str, stamp: dict[str, Any]) -> None:
    """One job: `action` (plant or reset) of the sandbox, run as `stamp` (who asked)."""
    url = config.sandbox_queue_url()
    if url is None:
        raise RuntimeError("PM_SANDBOX_QUEUE_URL is not set: sandbox jobs have nowhere to go")
    body = json.dumps({"tenantId": tenant_id, "action": action, "stamp": stamp})
    sqs().send_message(QueueUrl=url, MessageBody=body)
