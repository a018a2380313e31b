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

from pynamodb.exceptions import UpdateError

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
    common: dict[str, Any] = {
        "tenantId": ctx.tenant_id,
        "createdAt": now,
        "updatedAt": now,
        "changedBy": ctx.stamp(),
        "expiresAt": expires,
    }
    with Item.batch_write() as batch:
        batch.save(
            Item(
                pk,
                BATCH_SK,
                type="uploadBatch",
                id=batch_id,
                data={"count": len(uploads), "urlExpiresAt": url_expires_at},
                **common,
            )
        )
        for index, upload in enumerate(uploads):
            data = {
                **{k: v for k, v in upload.items() if k != "documentId"},
                "index": index,
                "status": PENDING,
                "urlExpiresAt": url_expires_at,
            }
            batch.save(
                Item(
                    pk,
                    UPLOAD_PREFIX + upload["documentId"],
                    type="upload",
                    id=upload["documentId"],
                    data=data,
                    **common,
                )
            )


def get(tenant_id: str, batch_id: str, document_id: str) -> Item | None:
    try:
        return Item.get(batch_pk(tenant_id, batch_id), UPLOAD_PREFIX + document_id, consistent_read=True)
    except Item.DoesNotExist:
        return None


# What a batch's progress needs of every reservation: reading only these keeps the answer
# small (a 1,000-upload batch is one Query of a few dozen KB, the page a BatchGetItem).
_STATUS_FIELDS = ["SK", "data.status", "data.index"]


def get_many(keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], Item]:
    """Reservations by (tenant, batch, document), read together; missing ones are left out."""
    found: dict[tuple[str, str, str], Item] = {}
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), 100):
        chunk = unique[start : start + 100]
        for item in Item.batch_get([(batch_pk(t, b), UPLOAD_PREFIX + d) for t, b, d in chunk], consistent_read=True):
            tenant_id, _, batch_id = item.pk.partition("#")
            found[(tenant_id, batch_id, item.id or "")] = item
    return found


def statuses(tenant_id: str, batch_id: str) -> tuple[Item | None, list[tuple[str, str]]]:
    """The batch, and (document id, status) of its reservations in request order (ids
    made in one millisecond do not sort in the order they were made)."""
    pk = batch_pk(tenant_id, batch_id)
    try:
        batch = Item.get(pk, BATCH_SK, consistent_read=True)
    except Item.DoesNotExist:
        return None, []
    found = []
    for item in Item.query(
        pk, Item.sk.startswith(UPLOAD_PREFIX), consistent_read=True, attributes_to_get=_STATUS_FIELDS
    ):
        data = item.data_dict()
        found.append((int(data.get("index", 0)), item.sk.removeprefix(UPLOAD_PREFIX), str(data["status"])))
    return batch, [(document_id, status) for _, document_id, status in sorted(found)]


def fetch(tenant_id: str, batch_id: str, document_ids: list[str]) -> list[Item]:
    """Whole reservations, in the order asked."""
    pk = batch_pk(tenant_id, batch_id)
    found: dict[str, Item] = {}
    for start in range(0, len(document_ids), 100):
        keys = [(pk, UPLOAD_PREFIX + document_id) for document_id in document_ids[start : start + 100]]
        for item in Item.batch_get(keys, consistent_read=True):
            found[item.id or ""] = item
    return [found[document_id] for document_id in document_ids if document_id in found]


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
        channel=stamp.get("channel") or "rest",
    )


def _pending() -> Any:
    return Item.data["status"] == PENDING  # type: ignore[index]


def registered_actions(checksum: str, version: str | None) -> tuple[list[Any], Any]:
    """The update (and its condition) that marks a pending reservation registered, with
    the S3 version registered."""
    now = clock.now_iso()
    data: Any = Item.data
    actions = [
        data["status"].set(REGISTERED),
        data["checksum"].set(checksum),
        data["registeredAt"].set(now),
        Item.updatedAt.set(now),
    ]
    if version:
        actions.append(data["version"].set(version))
    return actions, _pending()


def mark_failed(reservation: Item, code: str, reason: str) -> bool:
    """Record why a file was refused; False when another delivery settled it first."""
    now = clock.now_iso()
    data: Any = Item.data
    try:
        reservation.update(
            actions=[
                data["status"].set(FAILED),
                data["failure"].set({"code": code, "reason": reason}),
                Item.updatedAt.set(now),
            ],
            condition=_pending(),
        )
    except UpdateError as err:
        if err.cause_response_code != "ConditionalCheckFailedException":
            raise  # not settled: the message is retried
        return False
    return True
