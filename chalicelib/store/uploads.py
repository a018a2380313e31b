"""Upload storage: the batches of documents.uploads.create and their reservations (what was
promised, and what became of each file), and the file references the orphan sweep checks.

  batch        PK <tenant>#<batchId>   SK "batch"                 count, URL expiry, who asked
  reservation  PK <tenant>#<batchId>   SK "upload#<documentId>"   location, metadata, declared
                                                                  file, status, reason
One partition per batch, so a batch's progress is one Query (two for 1,000 uploads). Both
kinds are bookkeeping, not entities: the stream passes them by. They expire (TTL) a month
after the batch; the documents they registered stay."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict, cast

from pynamodb.exceptions import UpdateError

from chalicelib import clock
from chalicelib.context import CallContext
from chalicelib.store.model import Item, Transaction

BATCH_SK = "batch"
UPLOAD_PREFIX = "upload#"
RETENTION = dt.timedelta(days=30)
BATCH_GET_SIZE = 100

# A reservation's status; a registration or refusal settles only a pending one.
PENDING, REGISTERED, FAILED = "pending", "registered", "failed"


class UploadRequest(TypedDict):
    """One upload of a batch, as documents.uploads.create checked it."""

    documentId: str
    locationId: str
    document: dict[str, Any]  # the document's metadata
    fileName: str
    contentType: str
    size: int


class BatchData(TypedDict):
    """The `data` map of a batch."""

    count: int
    urlExpiresAt: str


class Failure(TypedDict):
    code: str
    reason: str


class ReservationData(TypedDict):
    """The `data` map of a reservation: the upload as requested, then its outcome."""

    locationId: str
    document: dict[str, Any]
    fileName: str
    contentType: str
    size: int
    index: int  # its place in the request: ids made in one millisecond do not sort in order
    status: str  # PENDING, REGISTERED or FAILED
    urlExpiresAt: str
    checksum: NotRequired[str]  # registered: the file's SHA-256
    registeredAt: NotRequired[str]
    version: NotRequired[str]  # registered: the S3 version of the file
    failure: NotRequired[Failure]  # failed: why


@dataclass(frozen=True)
class Batch:
    created_at: str | None
    data: BatchData
    asked_by: dict[str, Any]  # the changedBy stamp of the caller who created the batch


@dataclass(frozen=True)
class Reservation:
    tenant_id: str
    batch_id: str
    document_id: str
    data: ReservationData
    asked_by: dict[str, Any]  # the changedBy stamp of the caller who created the batch


class FileReference(TypedDict):
    """An entity (document, UVI) that holds a file, and the file's S3 key."""

    tenantId: str
    id: str
    type: str
    fileKey: str


def batch_key(tenant_id: str, batch_id: str) -> tuple[str, str]:
    return f"{tenant_id}#{batch_id}", BATCH_SK


def reservation_key(tenant_id: str, batch_id: str, document_id: str) -> tuple[str, str]:
    return f"{tenant_id}#{batch_id}", UPLOAD_PREFIX + document_id


# --- writes ---------------------------------------------------------------------------


def reserve_batch(ctx: CallContext, batch_id: str, uploads: list[UploadRequest], url_expires_at: str) -> None:
    """Write the batch and one pending reservation per upload, before any URL is handed out."""
    now = clock.now_iso()
    common: dict[str, Any] = {
        "tenantId": ctx.tenant_id,
        "createdAt": now,
        "updatedAt": now,
        "changedBy": ctx.stamp(),
        "expiresAt": clock.now() + RETENTION,
    }
    data = BatchData(count=len(uploads), urlExpiresAt=url_expires_at)
    with Item.batch_write() as batch:
        batch.save(Item(*batch_key(ctx.tenant_id, batch_id), type="uploadBatch", id=batch_id, data=data, **common))
        for index, upload in enumerate(uploads):
            document_id = upload["documentId"]
            batch.save(
                Item(
                    *reservation_key(ctx.tenant_id, batch_id, document_id),
                    type="upload",
                    id=document_id,
                    data=_pending_data(upload, index, url_expires_at),
                    **common,
                )
            )


def _pending_data(upload: UploadRequest, index: int, url_expires_at: str) -> ReservationData:
    return ReservationData(
        locationId=upload["locationId"],
        document=upload["document"],
        fileName=upload["fileName"],
        contentType=upload["contentType"],
        size=upload["size"],
        index=index,
        status=PENDING,
        urlExpiresAt=url_expires_at,
    )


def _pending() -> Any:
    return Item.data["status"] == PENDING  # type: ignore[index]


def marking_registered(reservation: Reservation, checksum: str, version: str | None) -> Callable[[Transaction], None]:
    """The write that marks a pending reservation registered (with the S3 version registered),
    for the transaction that creates its document (store.entities.create's `also`)."""
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
    key = reservation_key(reservation.tenant_id, reservation.batch_id, reservation.document_id)

    def write(tx: Transaction) -> None:
        tx.update(Item(*key), actions=actions, condition=_pending(), label="reservation")

    return write


def mark_failed(reservation: Reservation, code: str, reason: str) -> bool:
    """Record why a file was refused; False when another delivery settled it first."""
    key = reservation_key(reservation.tenant_id, reservation.batch_id, reservation.document_id)
    data: Any = Item.data
    try:
        Item(*key).update(
            actions=[
                data["status"].set(FAILED),
                data["failure"].set(Failure(code=code, reason=reason)),
                Item.updatedAt.set(clock.now_iso()),
            ],
            condition=_pending(),
        )
    except UpdateError as err:
        if err.cause_response_code != "ConditionalCheckFailedException":
            raise  # not settled: the message is retried
        return False
    return True


# --- reads ----------------------------------------------------------------------------


def _reservation(item: Item) -> Reservation:
    tenant_id, _, batch_id = item.pk.partition("#")
    return Reservation(
        tenant_id=tenant_id,
        batch_id=batch_id,
        document_id=item.id or "",
        data=cast(ReservationData, item.data_dict()),
        asked_by=item.changedBy.as_dict() if item.changedBy is not None else {},
    )


def get_reservation(tenant_id: str, batch_id: str, document_id: str) -> Reservation | None:
    try:
        item = Item.get(*reservation_key(tenant_id, batch_id, document_id), consistent_read=True)
    except Item.DoesNotExist:
        return None
    return _reservation(item)


def get_reservations(keys: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], Reservation]:
    """Reservations by (tenant, batch, document), read together; missing ones are left out."""
    found: dict[tuple[str, str, str], Reservation] = {}
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), BATCH_GET_SIZE):
        chunk = [reservation_key(*key) for key in unique[start : start + BATCH_GET_SIZE]]
        for item in Item.batch_get(chunk, consistent_read=True):
            reservation = _reservation(item)
            found[(reservation.tenant_id, reservation.batch_id, reservation.document_id)] = reservation
    return found


# What a batch's progress needs of every reservation: reading only these keeps the answer
# small (a 1,000-upload batch is one Query of a few dozen KB, the page a BatchGetItem).
_STATUS_FIELDS = ["SK", "data.status", "data.index"]


def batch_statuses(tenant_id: str, batch_id: str) -> tuple[Batch | None, list[tuple[str, str]]]:
    """The batch, and (document id, status) of its reservations in request order (ids
    made in one millisecond do not sort in the order they were made)."""
    pk, sk = batch_key(tenant_id, batch_id)
    try:
        item = Item.get(pk, sk, consistent_read=True)
    except Item.DoesNotExist:
        return None, []
    found = []
    for reservation in Item.query(
        pk, Item.sk.startswith(UPLOAD_PREFIX), consistent_read=True, attributes_to_get=_STATUS_FIELDS
    ):
        data = reservation.data_dict()
        found.append((int(data.get("index", 0)), reservation.sk.removeprefix(UPLOAD_PREFIX), str(data["status"])))
    asked_by = item.changedBy.as_dict() if item.changedBy is not None else {}
    batch = Batch(created_at=item.createdAt, data=cast(BatchData, item.data_dict()), asked_by=asked_by)
    return batch, [(document_id, status) for _, document_id, status in sorted(found)]


def batch_reservations(tenant_id: str, batch_id: str, document_ids: list[str]) -> list[Reservation]:
    """Whole reservations of one batch, in the order asked; missing ones are left out."""
    found = get_reservations([(tenant_id, batch_id, document_id) for document_id in document_ids])
    return [found[key] for document_id in document_ids if (key := (tenant_id, batch_id, document_id)) in found]


def entities_with_files() -> Iterator[FileReference]:
    """Documents and UVIs (also soft-deleted ones: they may be restored) that have a file."""
    for item in Item.scan(Item.fileKey.exists(), attributes_to_get=["PK", "SK", "id", "type", "tenantId", "fileKey"]):
        yield FileReference(tenantId=item.tenantId or "", id=item.id or "", type=item.type, fileKey=item.fileKey or "")
