"""Exports of a tenant (exports.create, the export worker): the export's record and the tenant's
one-running-export lock.

  export   PK = <tenant>#<exportId>   SK = "export"    status, counts, who asked (TTL)
  lock     PK = <tenant>#exports      SK = "running"   the export that runs, until when

An export is written with the lock in one transaction, so a tenant never has two running; the
worker releases the lock when it settles the export. A lock whose export never settled (its
worker died past its retries) lapses at `until`, and the record then reads as failed."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import DeleteError, UpdateError

from chalicelib import clock, config
from chalicelib.context import CallContext
from chalicelib.store.model import Item, Transaction, TransactionCancelled

EXPORT_SK = "export"
LOCK_SK = "running"
PENDING, RUNNING, DONE, FAILED = "pending", "running", "done", "failed"
SETTLED = (DONE, FAILED)
# A worker runs at most 15 minutes and is tried MAX_ATTEMPTS times, a queue's visibility timeout
# apart: past this an unsettled export has failed for good.
LOCK_SECONDS = 3 * 3600
MAX_ATTEMPTS = 3


@dataclass(frozen=True)
class Export:
    tenant_id: str
    export_id: str
    data: dict[str, Any]
    created_at: str
    expires_at: str

    @property
    def expired(self) -> bool:
        """Past its keeping (DynamoDB's TTL removes the record within a day or two after)."""
        return self.expires_at <= clock.now_iso()

    @property
    def status(self) -> str:
        """The export's status; one whose worker never settled it before its lock lapsed has failed."""
        status = str(self.data.get("status"))
        if status not in SETTLED and self.data.get("lockUntil", "") < clock.now_iso():
            return FAILED
        return status


def _export_key(tenant_id: str, export_id: str) -> tuple[str, str]:
    return f"{tenant_id}#{export_id}", EXPORT_SK


def _lock_key(tenant_id: str) -> tuple[str, str]:
    return f"{tenant_id}#exports", LOCK_SK


def _expiry(days: int = config.EXPORT_KEEP_DAYS) -> dt.datetime:
    return clock.now() + dt.timedelta(days=days)


def create(ctx: CallContext, export_id: str, data: dict[str, Any]) -> str | None:
    """The export's record (pending) and the tenant's lock on it; when another export of the
    tenant runs, nothing is written and its id is answered."""
    now = clock.now_iso()
    until = clock.iso_in(LOCK_SECONDS)
    record = Item(
        *_export_key(ctx.tenant_id, export_id),
        type="export",
        id=export_id,
        tenantId=ctx.tenant_id,
        data={**data, "status": PENDING, "attempts": 0, "lockUntil": until},
        createdAt=now,
        updatedAt=now,
        changedBy=ctx.stamp(),
        expiresAt=_expiry(),
    )
    lock = Item(
        *_lock_key(ctx.tenant_id),
        type="exportLock",
        tenantId=ctx.tenant_id,
        data={"exportId": export_id, "until": until},
        expiresAt=_expiry(1),
    )
    lapsed: Any = Item.data["until"] < now  # type: ignore[index]
    try:
        with Transaction() as tx:
            tx.save(record, condition=Item.pk.does_not_exist(), label="export")
            tx.save(lock, condition=Item.pk.does_not_exist() | lapsed, label="lock")
    except TransactionCancelled as cancelled:
        if "lock" not in cancelled.failed:
            raise
        running = _lock(ctx.tenant_id)
        return str(running.get("exportId", "")) or "unknown"
    return None


def _lock(tenant_id: str) -> dict[str, Any]:
    try:
        return Item.get(*_lock_key(tenant_id), consistent_read=True).data_dict()
    except Item.DoesNotExist:
        return {}


def get(tenant_id: str, export_id: str) -> Export | None:
    try:
        item = Item.get(*_export_key(tenant_id, export_id), consistent_read=True)
    except Item.DoesNotExist:
        return None
    if item.type != "export" or item.tenantId != tenant_id:
        return None
    expires = clock.iso(item.expiresAt) if item.expiresAt else ""
    return Export(tenant_id, export_id, item.data_dict(), item.createdAt or "", expires)


def start(export: Export) -> int | None:
    """Mark the export running and count the attempt; None when it is settled already (a
    repeated message) or past its attempts (then it is marked failed)."""
    data: Any = Item.data
    item = Item(*_export_key(export.tenant_id, export.export_id))
    try:
        item.update(
            actions=[data["status"].set(RUNNING), data["attempts"].add(1), Item.updatedAt.set(clock.now_iso())],
            condition=data["status"].is_in(PENDING, RUNNING) & (data["attempts"] < MAX_ATTEMPTS),
        )
    except UpdateError as err:
        if getattr(err, "cause_response_code", None) != "ConditionalCheckFailedException":
            raise
        again = get(export.tenant_id, export.export_id)
        if again is not None and again.data.get("status") not in SETTLED:
            settle(again, FAILED, error="The export did not finish in its attempts.")
        return None
    if item.data_dict().get("startedAt") is None:
        item.update(actions=[data["startedAt"].set(clock.now_iso())])
    return int(item.data_dict()["attempts"])


def settle(export: Export, status: str, *, error: str | None = None, **facts: Any) -> None:
    """The export done (its counts, file, size) or failed (why), kept EXPORT_KEEP_DAYS from now
    as its file is; the tenant's lock released."""
    data: Any = Item.data
    now = clock.now_iso()
    actions = [
        data["status"].set(status),
        data["finishedAt"].set(now),
        Item.updatedAt.set(now),
        Item.expiresAt.set(_expiry()),
        *(data[name].set(value) for name, value in facts.items()),
    ]
    if error is not None:
        actions.append(data["error"].set(error))
    Item(*_export_key(export.tenant_id, export.export_id)).update(actions=actions)
    try:
        Item(*_lock_key(export.tenant_id)).delete(condition=Item.data["exportId"] == export.export_id)  # type: ignore[index]
    except DeleteError as err:
        if getattr(err, "cause_response_code", None) != "ConditionalCheckFailedException":
            raise  # else: the lock lapsed and another export holds it now
