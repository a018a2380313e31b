"""The process's SQS client, shared by the queues the service sends to (webhook deliveries, exports):
one per process (thread-safe), made on first use."""

from __future__ import annotations

import threading
from typing import Any

from chalicelib import config

_client_lock = threading.Lock()
_client: Any = None


def sqs() -> Any:
    global _client
    with _client_lock:
        if _client is None:
            import boto3  # cold start: boto3 (~15 ms) loads with the first queue client

            _client = boto3.client("sqs", region_name=config.region())
        return _client


def reset() -> None:
    """Tests and the local stack switch endpoints."""
    global _client
    with _client_lock:
        _client = None
