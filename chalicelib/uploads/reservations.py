"""Upload batches and their reservations: what documents.uploads.create promised, and
what became of each file.

  batch        PK <tenant>#<batchId>   SK "batch"                 count, URL expiry, who asked
  reservation  PK <tenant>#<batchId>   SK "upload#<documentId>"   location, metadata, declared
                                                                  file, status, reason
One partition per batch, so a batch's progress is one Query (two for 1,000 uploads). Both
kinds are bookkeeping, not entities: the stream passes them by. They expire (TTL) a month
after the batch; the documents they registered stay."""

from __future__ import annotations

import datetime as dt
from typing import Any

from chalicelib import clock
from chalicelib.context import CallContext
from chalicelib.store.model import Item

BATCH_SK = "batch"
UPLOAD_PREFIX = "upload#"
RETENTION = dt.timedelta(days=30)

PENDING, REGISTERED, FAILED = "pending", "registered", "failed"


def batch_pk(tenant_id: str, batch_id: str) -> str:
    return f"{tenant_id}#{batch_id}"


def reserve(ctx: CallContext, batch_id: str, uploads: list[dict[str, Any]], url_expires_at: str) -> None:
    """Write the batch and one reservation per upload (`documentId`, `locationId`,
    `document`, `fileName`, `contentType`, `size`), before any URL is handed out."""
    now = clock.now_iso()
    expires = int((clock.now() + RETENTION).timestamp())
    pk = batch_pk(ctx.tenant_id, batch_id)
    common: dict[str, Any] = {"tenantId": ctx.tenant_id, "createdAt": now, "updatedAt": now, "changedBy": ctx.stamp(), "expiresAt": expires}
    with Item.batch_write() as batch:
        batch.save(Item(pk, BATCH_SK, type="uploadBatch", id=batch_id, data={"count": len(uploads), "urlExpiresAt": url_expires_at}, **common))
        for index, upload in enumerate(uploads):
            data = {**{k: v for k, v in upload.items() if k != "documentId"}, "index": index, "status": PENDING, "urlExpiresAt": url_expires_at}
            batch.save(Item(pk, UPLOAD_PREFIX + upload["documentId"], type="upload", id=upload["documentId"], data=data, **common))


def get(tenant_id: str, batch_id: str, document_id: str) -> Item | None:
    try:
        return Item.get(batch_pk(tenant_id, batch_id), UPLOAD_PREFIX + document_id, consistent_read=True)
    except Item.DoesNotExist:
        return None


def load(tenant_id: str, batch_id: str) -> tuple[Item | None, list[Item]]:
    """The batch and its reservations, in request order (ids made in one millisecond do
    not sort in the order they were made)."""
    batch, uploads = None, []
    for item in Item.query(batch_pk(tenant_id, batch_id), consistent_read=True):
        if item.sk == BATCH_SK:
            batch = item
        elif item.sk.startswith(UPLOAD_PREFIX):
            uploads.append(item)
    return batch, sorted(uploads, key=lambda item: int(item.data_dict().get("index", 0)))


def context_of(reservation: Item) -> CallContext:
    """The caller who asked for the upload: the registration is theirs (audit, changedBy)."""
    stamp = reservation.changedBy.as_dict() if reservation.changedBy is not None else {}
    return CallContext(
        tenant_id=reservation.tenantId or "",
        key_id=stamp.get("keyId") or "",
        agent_name=stamp.get("agentName") or "",
        scopes=frozenset(),
        integration_id=stamp.get("integrationId"),
        person_id=stamp.get("personId"),
        request_id=stamp.get("requestId") or "",
        operation=stamp.get("operation") or "documents.uploads.create",
    )


def _pending() -> Any:
    return Item.data["status"] == PENDING  # type: ignore[index]


def registered_actions(checksum: str) -> tuple[list[Any], Any]:
    """The update (and its condition) that marks a pending reservation registered."""
    now = clock.now_iso()
    data: Any = Item.data
    return [data["status"].set(REGISTERED), data["checksum"].set(checksum), data["registeredAt"].set(now), Item.updatedAt.set(now)], _pending()


def mark_failed(reservation: Item, code: str, reason: str) -> bool:
    """Record why a file was refused; False when another delivery settled it first."""
    from pynamodb.exceptions import UpdateError

    now = clock.now_iso()
    data: Any = Item.data
    try:
        reservation.update(
            actions=[data["status"].set(FAILED), data["failure"].set({"code": code, "reason": reason}), Item.updatedAt.set(now)],
            condition=_pending(),
        )
    except UpdateError:
        return False
    return True
