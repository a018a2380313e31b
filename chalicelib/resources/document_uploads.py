"""Uploading documents: one file with the command (documents.upload), or many straight to S3
through presigned POSTs (documents.uploads.create), registered by the upload queue's handler
(uploads/register.py) and followed with documents.uploads.progress."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chalicelib import clock, ids
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.errors import ApiError, NotFound, invalid_at, not_found_at
from chalicelib.registry import operation
from chalicelib.resources.documents import DOCUMENT, FIELDS, READONLY
from chalicelib.store import entities as store
from chalicelib.store import reach
from chalicelib.store import uploads as upload_store
from chalicelib.uploads import direct, files, sniff

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import DocumentsUploadArgs, DocumentsUploadsCreateArgs, DocumentsUploadsProgressArgs

MAX_BATCH = 1000
DEFAULT_URL_SECONDS = 3600
MAX_URL_SECONDS = 12 * 3600

METADATA = s.obj(
    {name: schema for name, schema in FIELDS.items() if name not in READONLY and name != "locationId"},
    description=(
        "The document's metadata: title, documentType (a code of documents.typemappings), "
        "category, documentDate, visibility."
    ),
)
DOCUMENT_WITH_LINK = s.obj(
    {
        "document": s.entity_output(
            {**FIELDS, **direct.DOWNLOAD_FIELDS}, "The registered document, with a download link."
        )
    },
    required=["document"],
)
LOCATION = FIELDS["locationId"]


@operation(
    name="documents.upload",
    kind="command",
    summary="Upload one file (up to 4 MiB) and file it as a document at a location.",
    docs=f"""Uploads a file and registers it as a document at `locationId` (an object, contract, unit, object group,
process or process update of the tenant), with optional metadata in `document` (title, documentType,
category, documentDate, visibility; the same rules as documents.update). Answers the document with a
short-lived `downloadUrl`; the event `document.created` follows.

{direct.FILE_DOCS}

Example with curl: \
`curl -F locationId=haus-12 -F 'document={{"title": "Energieausweis"}}' -F resource=@energieausweis.pdf ...`""",
    args=s.obj(
        {"locationId": LOCATION, "resource": direct.RESOURCE, "document": METADATA}, required=["locationId", "resource"]
    ),
    result=DOCUMENT_WITH_LINK,
    scope="write:documents",
    errors=direct.FILE_ERRORS,
    accepts_files=True,
    example={
        "locationId": "<id or alias>",
        "resource": {
            "fileName": "Energieausweis.pdf",
            "contentType": "application/pdf",
            "content": "JVBERi0xLjQKJcOkw7zDtsOfCjEgMCBvYmoKPDw+PgplbmRvYmoKdHJhaWxlcgo8PD4+CiUlRU9GCg==",
        },
        "document": {
            "title": "Energieausweis",
            "documentType": "energyCertificate",
            "category": "technical",
            "visibility": "portal",
        },
    },
)
def upload(ctx: CallContext, args: DocumentsUploadArgs) -> dict[str, Any]:
    accepted = direct.accept(args["resource"], "resource")
    data = {**(args.get("document") or {}), "locationId": args["locationId"]}
    return {"document": direct.store_with_file(ctx, DOCUMENT, data, accepted, path="")}


# --- bulk ------------------------------------------------------------------------------

UPLOAD_REQUEST = s.obj(
    {
        "locationId": LOCATION,
        "fileName": s.string(
            "The file's name, kept as the document's fileName (path parts and control characters removed).",
            max_length=500,
            one_line=False,
        ),
        "contentType": s.enum(
            "The file's media type; the POST must send it as Content-Type, and the file's bytes must match it.",
            sorted(sniff.ALLOWED_TYPES),
        ),
        "size": s.integer(
            f"The file's exact size in bytes (at most {files.MAX_BULK_BYTES}); S3 refuses any other size.",
            minimum=1,
            maximum=files.MAX_BULK_BYTES,
        ),
        "document": METADATA,
    },
    required=["locationId", "fileName", "contentType", "size"],
)
PRESIGNED = s.obj(
    {
        "documentId": s.string("The id the document will have once the file is registered."),
        "fileName": s.string("The sanitised file name."),
        "locationId": s.string("Where the document will be filed."),
        "url": s.string("Where to POST the file (multipart/form-data).", max_length=2000),
        "fields": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "Form fields to send, in this order, before the file part (named `file`).",
        },
    },
    required=["documentId", "fileName", "locationId", "url", "fields"],
)
BATCH = s.obj(
    {
        "id": s.string("Batch id, for documents.uploads.progress."),
        "count": s.integer("Number of uploads in the batch."),
        "createdAt": s.timestamp("When the batch was created."),
        "urlExpiresAt": s.timestamp("When the upload URLs stop working; files that arrive later are refused."),
    },
    required=["id", "count", "urlExpiresAt"],
)


@operation(
    name="documents.uploads.create",
    kind="command",
    summary="Bulk upload: presigned S3 uploads for up to 1,000 documents, registered as they arrive.",
    docs=f"""The bulk path, built for thousands of documents an hour. Declare up to {MAX_BATCH} files (location,
file name, media type, exact size, optional metadata); the answer holds for each a presigned S3 POST
(`url` and `fields`) bound to that one file, and the `documentId` it will get. Send each file as
`multipart/form-data` to `url` with every entry of `fields` first and the file last in a part named
`file`, e.g. `curl -F key=... -F Content-Type=... -F policy=... (every field) -F file=@scan.pdf <url>`.

S3 refuses a file of another size or Content-Type, and any upload after `urlExpiresAt` (`expiresIn`
seconds, default {DEFAULT_URL_SECONDS}, at most {MAX_URL_SECONDS}). Once a file is stored, the service reads it
(size, SHA-256, media type from its bytes) and registers the document; `document.created` follows. A file
whose bytes do not match its declaration, or whose location was deleted meanwhile, is removed and its
upload reported as failed with the reason. Follow a batch with documents.uploads.progress.

Files may be up to {files.MAX_BULK_BYTES // files.MiB} MiB; allowed types: {", ".join(sorted(sniff.ALLOWED_TYPES))}.
Locations and metadata are checked for the whole batch before any URL is handed out (400/404 with the
upload's index in the path).""",
    args=s.obj(
        {
            "uploads": {
                **s.array(UPLOAD_REQUEST, f"The files to upload, 1 to {MAX_BATCH}.", max_items=MAX_BATCH),
                "minItems": 1,
            },
            "expiresIn": s.integer(
                f"Seconds the upload URLs stay valid (60 to {MAX_URL_SECONDS}; default {DEFAULT_URL_SECONDS}).",
                minimum=60,
                maximum=MAX_URL_SECONDS,
            ),
        },
        required=["uploads"],
    ),
    result=s.obj(
        {
            "batch": BATCH,
            "uploads": s.array(
                PRESIGNED, "One presigned upload per requested file, in request order.", max_items=MAX_BATCH
            ),
        },
        required=["batch", "uploads"],
    ),
    scope="write:documents",
    errors=((codes.NOT_FOUND, "a location does not exist in the tenant (path `uploads[i].locationId`)."),),
    example={
        "uploads": [
            {
                "locationId": "<id or alias>",
                "fileName": "Protokoll_ETV_2026.pdf",
                "contentType": "application/pdf",
                "size": 48213,
                "document": {
                    "title": "Protokoll der Eigentümerversammlung 2026",
                    "documentType": "meetingMinutes",
                    "category": "meetings",
                },
            }
        ],
        "expiresIn": 3600,
    },
)
def create_uploads(ctx: CallContext, args: DocumentsUploadsCreateArgs) -> dict[str, Any]:
    requested = args["uploads"]
    _check_batch(ctx, requested)
    expires_in = args.get("expiresIn", DEFAULT_URL_SECONDS)
    url_expires_at = clock.iso_in(expires_in)
    batch_id = ids.new_id("upb")
    uploads: list[upload_store.UploadRequest] = [
        {
            "documentId": ids.new_id(DOCUMENT.prefix),
            "locationId": upload["locationId"],
            "document": dict(upload.get("document") or {}),
            "fileName": files.sanitise_file_name(upload["fileName"]),
            "contentType": upload["contentType"],
            "size": upload["size"],
        }
        for upload in requested
    ]
    upload_store.reserve_batch(ctx, batch_id, uploads, url_expires_at)  # before any URL exists
    answers = []
    for upload in uploads:
        key = files.upload_key(ctx.tenant_id, batch_id, upload["documentId"])
        post = files.presigned_post(key, upload["contentType"], upload["size"], expires_in)
        answers.append(
            {
                "documentId": upload["documentId"],
                "fileName": upload["fileName"],
                "locationId": upload["locationId"],
                "url": post["url"],
                "fields": post["fields"],
            }
        )
    return {
        "batch": {"id": batch_id, "count": len(uploads), "createdAt": clock.now_iso(), "urlExpiresAt": url_expires_at},
        "uploads": answers,
    }


def _check_batch(ctx: CallContext, requested: Sequence[Mapping[str, Any]]) -> None:
    """Every upload's metadata obeys the document rules and every location is live."""
    for i, upload in enumerate(requested):
        try:
            DOCUMENT.verify({**(upload.get("document") or {}), "locationId": upload["locationId"]}, None)
        except ApiError as err:
            error = (err.errors or [{"path": "document", "message": err.detail}])[0]
            field = error["path"].removeprefix("document.")
            path = f"uploads[{i}].locationId" if field == "locationId" else f"uploads[{i}].document.{field}"
            raise invalid_at(path, error["message"], code=codes.of(err.code)) from None
    locations = list(dict.fromkeys(upload["locationId"] for upload in requested))
    if reach.limited(ctx):  # the live locations within the key's objects: others are as unknown as missing ones
        live = reach.within(ctx, locations)
    else:
        live = {item.id for item in store.fetch_entities([store.entity_pk(ctx.tenant_id, loc) for loc in locations])}
    for i, upload in enumerate(requested):
        if upload["locationId"] not in live:
            raise not_found_at(
                f"uploads[{i}].locationId", f"No live location with id {upload['locationId']} in this tenant."
            )


# --- progress --------------------------------------------------------------------------

STATUSES = (
    upload_store.PENDING,
    upload_store.REGISTERED,
    upload_store.FAILED,
    "expired",
)  # expired: pending past the URLs' expiry
STATUS_DOC = (
    "`pending` (no file yet), `registered` (the document exists), `failed` (the file was refused and removed; "
    "`failure` says why), `expired` (no file arrived before the URLs expired)"
)
PROGRESS_ITEM = s.obj(
    {
        "documentId": s.string("The document's id (it exists once registered)."),
        "fileName": s.string("The file name."),
        "locationId": s.string("Where the document is filed."),
        "status": s.enum("What became of the upload: " + STATUS_DOC + ".", list(STATUSES)),
        "failure": s.obj(
            {
                "code": s.string(
                    "Stable code, e.g. size_mismatch, file_type_mismatch, archive_too_large, upload_expired."
                ),
                "reason": s.string("What was wrong.", max_length=1000),
            }
        ),
        "registeredAt": s.timestamp("When the document was registered."),
    },
    required=["documentId", "fileName", "locationId", "status"],
)
COUNTS = s.obj(
    {
        name: s.integer(f"Uploads {what}.")
        for name, what in (
            ("requested", "in the batch"),
            ("uploaded", "whose file arrived (registered or failed)"),
            ("registered", "registered as documents"),
            ("failed", "refused"),
            ("pending", "still waiting for their file"),
            ("expired", "whose URL expired without a file"),
        )
    },
    required=["requested", "uploaded", "registered", "failed", "pending", "expired"],
)


@operation(
    name="documents.uploads.progress",
    kind="query",
    summary="Progress of a bulk upload batch: counts, and each upload's status with the reason of failures.",
    docs=f"""Reports a batch from documents.uploads.create: `counts` (requested, uploaded, registered, failed, pending,
expired) and a page of its uploads, each with its status: {STATUS_DOC}. Filter with `status`; page with
`limit` (1 to 1000) and `offset`. Batches are kept for 30 days; their documents stay.""",
    args=s.obj(
        {
            "batch": s.string("The batch id from documents.uploads.create.", max_length=40),
            "status": s.enum("Only uploads with this status.", list(STATUSES)),
            **s.paging(),
        },
        required=["batch", "limit", "offset"],
    ),
    result=s.obj(
        {
            "batch": s.obj(
                {**BATCH["properties"], "counts": COUNTS}, required=["id", "count", "urlExpiresAt", "counts"]
            ),
            "pagination": s.PAGINATION,
            "uploads": s.array(PROGRESS_ITEM, "One page of the batch's uploads, in request order.", max_items=1000),
        },
        required=["batch", "pagination", "uploads"],
    ),
    scope="read:documents",
    idempotent=True,
    example={"batch": "upb_01JD0000000000000000000000", "limit": 100, "offset": 0},
)
def progress(ctx: CallContext, args: DocumentsUploadsProgressArgs) -> dict[str, Any]:
    batch_id = args["batch"]
    batch, items = upload_store.batch_statuses(ctx.tenant_id, batch_id) if ids.looks_like_id(batch_id) else (None, [])
    # An object-limited key follows only its own batches: another's may name locations outside its objects.
    if batch is None or (reach.limited(ctx) and batch.asked_by.get("keyId") != ctx.key_id):
        raise NotFound(f"No upload batch with id {batch_id} in this tenant.")
    data = batch.data
    expired = clock.now_iso() > data["urlExpiresAt"]
    status_of = {document_id: _status(status, expired) for document_id, status in items}
    counts = {name: sum(1 for status in status_of.values() if status == name) for name in STATUSES}
    counts.update(requested=len(items), uploaded=counts["registered"] + counts["failed"])
    wanted = [document_id for document_id, status in status_of.items() if args.get("status") in (None, status)]
    limit, offset = args["limit"], args["offset"]
    page = upload_store.batch_reservations(ctx.tenant_id, batch_id, wanted[offset : offset + limit])
    return {
        "batch": {
            "id": batch_id,
            "count": int(data["count"]),
            "createdAt": batch.created_at,
            "urlExpiresAt": data["urlExpiresAt"],
            "counts": counts,
        },
        "pagination": {"total": len(wanted), "limit": limit, "offset": offset},
        "uploads": [_progress_item(item, expired) for item in page],
    }


def _status(stored: str, expired: bool) -> str:
    return "expired" if stored == upload_store.PENDING and expired else stored


def _progress_item(reservation: upload_store.Reservation, expired: bool) -> dict[str, Any]:
    data = reservation.data
    answer: dict[str, Any] = {
        "documentId": reservation.document_id,
        "fileName": data["fileName"],
        "locationId": data["locationId"],
        "status": _status(data["status"], expired),
    }
    if data.get("failure"):
        answer["failure"] = data["failure"]
    if data.get("registeredAt"):
        answer["registeredAt"] = data["registeredAt"]
    return answer
