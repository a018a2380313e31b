"""Idempotency-Key on commands: a repeat with the same key and body within 24 h gets the
first answer and changes nothing.

A pending marker is written before the command runs (conditional put), so two
concurrent requests with one key cannot both run; the answer replaces the marker.
Records expire through the table's TTL (expiresAt).

A marker left by a request that died (process killed, answer not storable) is never taken
over: whether its command took effect is unknown, and running it again could do it twice.
Within config.IDEMPOTENCY_RUNNING_SECONDS a repeat is told to retry shortly (Retry-After);
after that it is told the outcome is unknown and to check before sending a new key."""

from __future__ import annotations

import copy
import datetime as dt
import hashlib
import json
from typing import Any

from pynamodb.exceptions import PutError

from chalicelib import clock, config
from chalicelib import error_codes as codes
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
    moment = clock.now()
    now = int(moment.timestamp())
    marker = Item(
        _pk(ctx, key),
        IDEM_SK,
        type="idempotency",
        tenantId=ctx.tenant_id,
        data={"requestHash": request_hash, "state": "pending", "claimedAt": now},
        createdAt=clock.now_iso(),
        expiresAt=moment + dt.timedelta(seconds=config.IDEMPOTENCY_TTL_SECONDS),
    )
    expired_or_missing = Item.pk.does_not_exist() | (Item.expiresAt < moment)
    try:
        marker.save(condition=expired_or_missing)
        return None
    except PutError as err:
        if err.cause_response_code != "ConditionalCheckFailedException":
            raise  # throttled or unavailable (store/faults.py), not a repeat
    stored = Item.get(_pk(ctx, key), IDEM_SK, consistent_read=True).data_dict()
    if stored["requestHash"] != request_hash:
        raise Conflict("This Idempotency-Key was used with a different request.", code=codes.IDEMPOTENCY_KEY_REUSED)
    if stored["state"] == "pending":
        raise _still_pending(int(stored.get("claimedAt", 0)), now)
    return json.loads(stored["response"])


def _still_pending(claimed_at: int, now: int) -> Conflict:
    running_for = now - claimed_at
    if running_for < config.IDEMPOTENCY_RUNNING_SECONDS:
        wait = config.IDEMPOTENCY_RUNNING_SECONDS - running_for
        return Conflict(
            f"A request with this Idempotency-Key is still running; retry in {wait} s.",
            code=codes.IDEMPOTENCY_IN_PROGRESS,
            headers={"Retry-After": str(wait)},
        )
    return Conflict(
        "The request that claimed this Idempotency-Key at "
        f"{clock.iso(dt.datetime.fromtimestamp(claimed_at, dt.UTC))} ended without an answer:"
        " it may or may not have taken effect. Check (a list query or audit.list shows its changes),"
        " then send the request with a new Idempotency-Key if it is still needed.",
        code=codes.IDEMPOTENCY_OUTCOME_UNKNOWN,
    )


def finish(ctx: CallContext, key: str, request_hash: str, status: int, body: dict[str, Any]) -> None:
    Item(
        _pk(ctx, key),
        IDEM_SK,
        type="idempotency",
        tenantId=ctx.tenant_id,
        data={"requestHash": request_hash, "state": "done", "response": json.dumps({"status": status, "body": body})},
        createdAt=clock.now_iso(),
        expiresAt=clock.now() + dt.timedelta(seconds=config.IDEMPOTENCY_TTL_SECONDS),
    ).save()


def without_secrets(body: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    """The answer as it may be stored: every secret (dotted path, e.g. `apiKey.key`) left out.
    The table, its stream and its backups never hold a secret; a replay answers without it."""
    if not paths:
        return body
    kept = copy.deepcopy(body)
    for path in paths:
        *parents, name = path.split(".")
        holder: Any = kept
        for part in parents:
            holder = holder.get(part) if isinstance(holder, dict) else None
        if isinstance(holder, dict):
            holder.pop(name, None)
    return kept


def abandon(ctx: CallContext, key: str) -> None:
    """Release the claim after a failure that changed nothing (5xx), so a retry may run."""
    Item(_pk(ctx, key), IDEM_SK).delete()
