"""Idempotency-Key on commands: a repeat with the same key and body within 24 h gets the
first answer and changes nothing.

A pending marker is written before the command runs (conditional put), so two
concurrent requests with one key cannot both run; the answer replaces the marker.
Records expire through the table's TTL (expiresAt)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pynamodb.exceptions import PutError

from chalicelib import clock, config
from chalicelib.context import CallContext
from chalicelib.errors import Conflict
from chalicelib.store.model import Item

IDEM_SK = "idem"


def _pk(ctx: CallContext, key: str) -> str:
    return f"{ctx.tenant_id}#idem#{ctx.key_id}#{hashlib.sha256(key.encode()).hexdigest()}"


def fingerprint(operation: str, body: bytes) -> str:
    return hashlib.sha256(operation.encode() + b"\0" + body).hexdigest()


def begin(ctx: CallContext, key: str, request_hash: str) -> dict[str, Any] | None:
    """Claim the key. Returns the stored answer of an earlier identical request, or None
    when this request should run."""
    now = int(clock.now().timestamp())
    marker = Item(
        _pk(ctx, key),
        IDEM_SK,
        type="idempotency",
        tenantId=ctx.tenant_id,
        data={"requestHash": request_hash, "state": "pending"},
        createdAt=clock.now_iso(),
        expiresAt=now + config.IDEMPOTENCY_TTL_SECONDS,
    )
    expired_or_missing = Item.pk.does_not_exist() | (Item.expiresAt < now)
    try:
        marker.save(condition=expired_or_missing)
        return None
    except PutError as err:
        if err.cause_response_code != "ConditionalCheckFailedException":
            raise  # throttled or unavailable (store/faults.py), not a repeat
    stored = Item.get(_pk(ctx, key), IDEM_SK, consistent_read=True).data_dict()
    if stored["requestHash"] != request_hash:
        raise Conflict("This Idempotency-Key was used with a different request.", code="idempotency_key_reused")
    if stored["state"] == "pending":
        raise Conflict("A request with this Idempotency-Key is still running; retry shortly.", code="idempotency_in_progress")
    return json.loads(stored["response"])


def finish(ctx: CallContext, key: str, request_hash: str, status: int, body: dict[str, Any]) -> None:
    now = int(clock.now().timestamp())
    Item(
        _pk(ctx, key),
        IDEM_SK,
        type="idempotency",
        tenantId=ctx.tenant_id,
        data={"requestHash": request_hash, "state": "done", "response": json.dumps({"status": status, "body": body})},
        createdAt=clock.now_iso(),
        expiresAt=now + config.IDEMPOTENCY_TTL_SECONDS,
    ).save()


def abandon(ctx: CallContext, key: str) -> None:
    """Release the claim after a failure that changed nothing (5xx), so a retry may run."""
    Item(_pk(ctx, key), IDEM_SK).delete()
