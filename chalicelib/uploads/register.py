"""The upload queue's handler: S3 reports a file stored under a presigned upload's key;
this reads the file (size, SHA-256, media type from its bytes), registers the document the
reservation describes, and marks the reservation registered in the same transaction.

Every outcome is settled on the reservation, so a redelivered message (SQS delivers at least
once) finds it done and changes nothing. A refused file is deleted before the refusal is
recorded: no document ever points at a missing file, and no refused file stays behind
(should the process die in between, the sweep reports the orphan). Infrastructure errors
raise, and the message is retried (reported in batchItemFailures)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote_plus

from botocore.exceptions import ClientError

from chalicelib import error_codes as codes
from chalicelib import observability
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.errors import ApiError, Conflict
from chalicelib.log import logger
from chalicelib.registry import REGISTRY
from chalicelib.store import entities as store
from chalicelib.store import uploads as upload_store
from chalicelib.store.uploads import FAILED, PENDING, REGISTERED, Reservation
from chalicelib.uploads import direct, files

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes import SQSRecord

# Records of one SQS batch are registered side by side: each is a few round trips to S3
# and DynamoDB, which a Lambda spends waiting. A batch is at most BATCH_SIZE notices (the
# event source's BatchSize, app.py and infra/resources.py), so every file of a batch may be
# read at once: the worker's /tmp (EphemeralStorage) holds BATCH_SIZE files of the bulk limit.
BATCH_SIZE = 10
PARALLEL = BATCH_SIZE


def require_registry() -> None:
    """Refuses to start a worker whose process has not loaded the resource modules: the
    entity types and operations are registered when those load (chalicelib.resources), and
    without them every notice would fail at `ENTITY_TYPES["document"]` and be retried until it
    reached the dead-letter queue (issue 31: the upload benchmark's worker did that). The
    entry point calls this once at import (app.py, after resources.load_all()), so a worker
    missing them fails its cold start, loudly, instead of each message."""
    if "document" not in ENTITY_TYPES or not REGISTRY:
        raise RuntimeError(
            f"the upload worker cannot start: the registry is empty ({len(ENTITY_TYPES)} entity types, "
            f"{len(REGISTRY)} operations, no 'document' type); load the resource modules first "
            "(chalicelib.resources.load_all(), as app.py does)"
        )


@dataclass(frozen=True)
class StoredObject:
    key: str
    event_time: str  # ISO, when S3 stored it


def objects_of(record: SQSRecord) -> list[StoredObject]:
    """The created objects the S3 notification in an SQS message reports (none for s3:TestEvent,
    which has no records); a KeyError, TypeError or ValueError for a message that is none."""
    notice = record.json_body
    if not isinstance(notice, dict):
        raise TypeError("an S3 notification is a JSON object")
    if not notice.get("Records"):
        return []
    return [
        # S3 sends the key URL-encoded (a space as "+"); Powertools hands it over as sent
        StoredObject(key=unquote_plus(stored.s3.get_object.key), event_time=stored.get("eventTime") or "")
        for stored in record.decoded_nested_s3_event.records
        if str(stored.get("eventName") or "").startswith("ObjectCreated")
    ]


_pool: ThreadPoolExecutor | None = None


def handle_event(event: dict[str, Any]) -> dict[str, Any]:
    """An SQS event as Lambda delivers it; answers the messages to retry. The batch's
    reservations are read together (one BatchGetItem), then its files registered side by
    side."""
    global _pool
    _pool = _pool or ThreadPoolExecutor(max_workers=PARALLEL, thread_name_prefix="upload-register")
    from aws_lambda_powertools.utilities.data_classes import (  # cold start: Powertools' data classes (~100 ms)
        SQSEvent,  # load with the first notice, not with the REST app
    )

    found: dict[str, list[StoredObject]] = {}
    failed: list[str] = []
    for record in SQSEvent(event).records:
        try:
            found[record.message_id] = objects_of(record)
        except (ValueError, KeyError, TypeError):
            logger.exception("unreadable upload notice", extra={"messageId": record.message_id})
            failed.append(record.message_id)
    keys = [
        key for objects in found.values() for obj in objects if (key := files.parse_upload_key(obj.key)) is not None
    ]
    try:
        known = upload_store.get_reservations(keys)
    except Exception:  # noqa: BLE001 - a shortcut only: each notice then reads its own reservation, and fails alone
        logger.warning("reading the batch's reservations together failed; reading them one by one", exc_info=True)
        known = {}

    def one(message_id: str) -> str | None:
        try:
            for obj in found[message_id]:
                register(obj, known)
            return None
        except Exception:  # noqa: BLE001 - reported as a batch item failure and retried
            logger.exception("upload registration failed; the message will be retried", extra={"messageId": message_id})
            return message_id

    failed += [message_id for message_id in _pool.map(one, list(found)) if message_id]
    return {"batchItemFailures": [{"itemIdentifier": message_id} for message_id in failed]}


def register(obj: StoredObject, known: dict[tuple[str, str, str], Reservation] | None = None) -> str:
    """Settle one stored object (`known`: reservations read ahead); answers what became of it."""
    parsed = files.parse_upload_key(obj.key)
    if parsed is None:
        return "ignored"  # a direct upload's file, registered by its command
    tenant_id, batch_id, document_id = parsed
    reservation = (known or {}).get(parsed) or upload_store.get_reservation(tenant_id, batch_id, document_id)
    if reservation is None:
        files.delete(obj.key)
        logger.warning("removed an upload nobody reserved", extra={"key": obj.key})
        return "unreserved"
    wanted = reservation.data
    if wanted.get("status") != PENDING:
        return _settled_before(reservation, obj.key)
    if obj.event_time and obj.event_time > wanted["urlExpiresAt"]:
        return _refuse(
            reservation,
            obj.key,
            codes.UPLOAD_EXPIRED.code,
            f"the file arrived at {obj.event_time}, after its upload URL expired at {wanted['urlExpiresAt']}",
        )
    try:
        received = files.read(obj.key, limit=int(wanted["size"]))
    except ClientError as err:
        if err.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            return _refuse(
                reservation, obj.key, codes.FILE_MISSING.code, "the file was gone before it could be registered"
            )
        raise
    if received is None:
        return _refuse(
            reservation,
            obj.key,
            codes.SIZE_MISMATCH.code,
            f"the upload declared {wanted['size']} bytes but the file has more",
        )
    try:  # the spooled copy (in /tmp past files.SPOOL_BYTES) goes as soon as this file is settled, whatever happens
        if received.size != int(wanted["size"]):
            return _refuse(
                reservation,
                obj.key,
                codes.SIZE_MISMATCH.code,
                f"the upload declared {wanted['size']} bytes but the file has {received.size}",
            )
        return _create_document(reservation, obj.key, received)
    finally:
        received.content.close()


def _create_document(reservation: Reservation, key: str, received: files.Received) -> str:
    # the document type as resources/documents.py declared it (the apps load every resource
    # module before a worker runs): the catalogue, not the resource module, so no cycle
    document = ENTITY_TYPES["document"]
    wanted = reservation.data
    data = {**(wanted.get("document") or {}), "locationId": wanted["locationId"]}
    try:
        content_type = direct.checked_type(received, wanted["contentType"], "file")
        data.update(
            fileName=wanted["fileName"], contentType=content_type, size=received.size, checksum=received.checksum
        )
        context = _context_of(reservation)
        store.create(
            context,
            document,
            data,
            path="",
            entity_id=reservation.document_id,
            file_key=key,
            file_version=received.version,
            companions=direct.file_text(
                context.tenant_id, reservation.document_id, document.name, content_type, received
            ),
            also=upload_store.marking_registered(reservation, received.checksum, received.version),
        )
    except Conflict:
        if _registered(reservation):
            return REGISTERED  # a concurrent delivery of the same message won
        raise
    except ApiError as err:  # the document's rules refuse it (location gone, type deprecated since)
        if err.status >= 500 or err.status == 429:
            raise  # not the file's fault: retry
        detail = err.errors[0]["message"] if err.errors else err.detail
        return _refuse(reservation, key, err.code, detail)
    observability.record_upload_registered(received.size)
    return REGISTERED


def _context_of(reservation: Reservation) -> CallContext:
    """The caller who asked for the upload: the registration is theirs (audit, changedBy)."""
    stamp = reservation.asked_by
    return CallContext(
        tenant_id=reservation.tenant_id,
        key_id=stamp.get("keyId") or "",
        agent_name=stamp.get("agentName") or "",
        scopes=frozenset(),
        integration_id=stamp.get("integrationId"),
        person_id=stamp.get("personId"),
        request_id=stamp.get("requestId") or "",
        operation=stamp.get("operation") or "documents.uploads.create",
        channel=stamp.get("channel") or "rest",
    )


def _settled_before(reservation: Reservation, key: str) -> str:
    """A repeated notice, or a second upload to a settled key (the presigned POST was used
    again before it expired): the registered version stays the only one; after a refusal,
    nothing stays."""
    wanted = reservation.data
    status = str(wanted.get("status"))
    if status == REGISTERED and wanted.get("version"):
        if files.keep_only(key, wanted["version"]):
            logger.warning("discarded a second upload to a registered document's key", extra={"key": key})
    elif status == FAILED:
        files.delete(key)
    return status


def _registered(reservation: Reservation) -> bool:
    again = upload_store.get_reservation(reservation.tenant_id, reservation.batch_id, reservation.document_id)
    return again is not None and again.data.get("status") == REGISTERED


def _refuse(reservation: Reservation, key: str, code: str, reason: str) -> str:
    files.delete(key)
    upload_store.mark_failed(reservation, code, reason)
    logger.info("upload refused", extra={"key": key, "code": code})
    observability.record_upload_refused(code)
    return FAILED
