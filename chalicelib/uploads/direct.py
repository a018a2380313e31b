"""Direct uploads: a small file sent with the command itself (JSON with base64 content, or
multipart/form-data), checked, stored in S3 and registered with its entity.

Order of writes: the file first, then the entity. An entity never points at a missing file;
if the entity cannot be written the file is removed again, and if even that fails (or the
process dies in between) the file is an orphan the sweep reports (uploads/sweep.py)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chalicelib import error_codes as codes
from chalicelib import ids
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.entities import EntityType
from chalicelib.entity_search import pdf_text
from chalicelib.errors import PayloadTooLarge, invalid_at
from chalicelib.log import logger
from chalicelib.registry import DocumentedError
from chalicelib.store import entities as store
from chalicelib.store import file_texts
from chalicelib.uploads import files, sniff
from chalicelib.uploads.zipbounds import MAX_ZIP_DIRECTORY_BYTES, MAX_ZIP_ENTRIES, ArchiveTooLarge

# The fields of an entity that holds a file (documents, UVIs): set by the upload, read-only after.
FILE_FIELDS: dict[str, Any] = {
    "fileName": s.string("Original file name, e.g. NKA_2024_WE12.pdf. Set by the upload.", max_length=500),
    "contentType": s.checked(
        s.string(
            "Media type of the file, e.g. application/pdf, read from its bytes. Set by the upload.", max_length=200
        )
    ),
    "size": s.integer("File size in bytes. Set by the upload.", minimum=0),
    "checksum": {
        "type": "string",
        "pattern": "^[0-9a-f]{64}$",
        "description": "SHA-256 of the file, lowercase hex. Set by the upload.",
    },
}
FILE_READONLY = tuple(FILE_FIELDS)

# Clients that do not know a file's type send these; they say nothing, so they are not
# compared with what the bytes show.
UNKNOWN_TYPES = frozenset({"application/octet-stream", "binary/octet-stream", ""})

RESOURCE = s.obj(
    {
        # Cleaned rather than refused: names come from users' file systems and browsers.
        "fileName": s.string(
            "The file's name, e.g. NKA_2024_WE12.pdf. Path parts and control characters are removed.",
            max_length=500,
            one_line=False,
        ),
        "contentType": s.string(
            "The media type the client believes the file has. "
            "Optional: the service reads the type from the file's bytes and refuses a file whose bytes say otherwise.",
            max_length=200,
        ),
        "content": {
            "type": "string",
            "minLength": 1,  # an empty file is refused (empty_file): the one base64 of it is ""
            "maxLength": files.MAX_DIRECT_BODY_BYTES,
            "format": "byte",  # base64 (OpenAPI 3.0); decoding refuses anything else
            "description": "The file's bytes, base64-encoded (RFC 4648). "
            f"At most {files.MAX_DIRECT_BYTES // files.MiB} MiB decoded. "
            "With multipart/form-data send the file itself as the part `resource` instead.",
        },
    },
    required=["fileName", "content"],
    description="The uploaded file.",
)

# A minimal PDF, base64: what the upload examples send.
EXAMPLE_PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjEgMCBvYmoKPDw+PgplbmRvYmoKdHJhaWxlcgo8PD4+CiUlRU9GCg=="

FILE_DOCS = f"""The file: JSON with `resource.content` in base64, or `multipart/form-data` with one part per argument
(the file in the part `resource`, object arguments as JSON text). Files of up to
{files.MAX_DIRECT_BYTES // files.MiB} MiB travel this way; larger ones answer 413 and go through the bulk path
(`documents.uploads.create`: presigned S3 uploads of up to {files.MAX_BULK_BYTES // files.MiB} MiB). The media type is
read from the file's bytes, not taken from the client: allowed are {", ".join(sorted(sniff.ALLOWED_TYPES))}.
The stored `fileName` is the given name without path parts or control characters; `size` and `checksum`
(SHA-256) are computed by the service."""

FILE_ERRORS: tuple[DocumentedError, ...] = (
    codes.FILE_TYPE_NOT_ALLOWED,
    codes.FILE_TYPE_MISMATCH,
    codes.EMPTY_FILE,
    (
        codes.ARCHIVE_TOO_LARGE,
        f"a ZIP (or Office/ODF) file whose directory holds over {MAX_ZIP_ENTRIES:,} entries or "
        f"{MAX_ZIP_DIRECTORY_BYTES // files.MiB} MiB; it is refused before it is opened.",
    ),
    (codes.PAYLOAD_TOO_LARGE, "the file or body is over the direct limit; use documents.uploads.create."),
)


@dataclass
class Accepted:
    file_name: str
    content_type: str
    content: bytes
    received: files.Received

    def fields(self) -> dict[str, Any]:
        """The file fields of the entity the file belongs to."""
        return {
            "fileName": self.file_name,
            "contentType": self.content_type,
            "size": self.received.size,
            "checksum": self.received.checksum,
        }


def accept(resource: Mapping[str, Any], path: str) -> Accepted:
    try:
        content = base64.b64decode(resource["content"], validate=True)
    except (binascii.Error, ValueError):
        raise invalid_at(f"{path}.content", "not valid base64") from None
    if len(content) > files.MAX_DIRECT_BYTES:
        raise PayloadTooLarge(
            f"The file has {len(content)} bytes; direct uploads take at most {files.MAX_DIRECT_BYTES}. "
            f"{files.BULK_HINT}"
        )
    if not content:
        raise invalid_at(f"{path}.content", "the file is empty", code=codes.EMPTY_FILE)
    received = files.digest([content], files.MAX_DIRECT_BYTES)
    assert received is not None  # the size was checked above
    declared = (resource.get("contentType") or "").split(";")[0].strip().lower()
    content_type = checked_type(received, declared, f"{path}.content")
    return Accepted(files.sanitise_file_name(resource["fileName"]), content_type, content, received)


def checked_type(received: files.Received, declared: str, path: str) -> str:
    """The media type to store: what the bytes show, refined by a declared type where the
    bytes cannot tell (text/csv is text/plain to a sniffer); 400 where they disagree."""
    try:
        detected = sniff.sniff(received.head, received.reopen)
    except ArchiveTooLarge as err:
        raise invalid_at(path, str(err), code=codes.ARCHIVE_TOO_LARGE) from None
    if detected is None:
        raise invalid_at(
            path,
            f"the file's content is not of an allowed type ({', '.join(sorted(sniff.ALLOWED_TYPES))})",
            code=codes.FILE_TYPE_NOT_ALLOWED,
        )
    if declared in UNKNOWN_TYPES:
        return detected
    if not sniff.accepts(declared, detected):
        raise invalid_at(
            path, f"declared as {declared}, but the file's bytes are {detected}", code=codes.FILE_TYPE_MISMATCH
        )
    return sniff.stored_type(declared, detected)


def store_with_file(
    ctx: CallContext, etype: EntityType, data: dict[str, Any], accepted: Accepted, *, path: str
) -> dict[str, Any]:
    """Write the file, then the entity; remove the file again if the entity is refused.
    Answers the entity as shown, with its download link."""
    entity_id = ids.new_id(etype.prefix)
    data = {**data, **accepted.fields()}
    etype.verify(data, None)  # refuse bad metadata before anything is written
    key = files.direct_key(ctx.tenant_id, entity_id)
    kept = file_text(ctx.tenant_id, entity_id, etype.name, accepted.content_type, accepted.received)
    version = files.put(key, accepted.content, accepted.content_type)
    try:
        item = store.create(
            ctx, etype, data, path=path, entity_id=entity_id, file_key=key, file_version=version, companions=kept
        )
    except BaseException:
        try:
            files.delete(key)
        except Exception:  # noqa: BLE001 - the sweep reports the orphan; the caller gets the first error
            logger.exception("could not remove the file of a refused upload", extra={"key": key})
        raise
    return {**store.to_wire(ctx, item), **download(item)}


def file_text(
    tenant_id: str, entity_id: str, type_name: str, content_type: str, received: files.Received
) -> tuple[Any, ...]:
    """The companion keeping a document's PDF text for the entity search (store/file_texts.py),
    written with the document; none for another file or a PDF without text."""
    if not pdf_text.kept(type_name, content_type):
        return ()
    text = pdf_text.text_of(received.reopen())
    return (file_texts.companion(tenant_id, entity_id, text),) if text else ()


def download(item: store.StoredEntity) -> dict[str, Any]:
    """The presigned download fields of an entity with a file (none for one without)."""
    data = item.data_dict()
    if not item.fileKey:
        return {}
    url, expires = files.download_url(
        item.fileKey,
        data.get("fileName") or "file",
        data.get("contentType") or "application/octet-stream",
        item.fileVersion,
    )
    return {"downloadUrl": url, "downloadUrlExpiresAt": expires}


DOWNLOAD_FIELDS = {
    "downloadUrl": s.string(
        f"A presigned HTTPS link to the file, valid for {files.DOWNLOAD_URL_SECONDS // 60} minutes; "
        "ask again for a fresh one. Only on show and upload answers.",
        max_length=4000,
    ),
    "downloadUrlExpiresAt": s.timestamp("When downloadUrl stops working."),
}
