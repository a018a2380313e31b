"""Where files live in S3, and the limits that hold for them.

Keys are built only from ids the service generated, never from a client's file name, so no
upload can traverse paths or land under another tenant's prefix:
  <tenant>/documents/<documentId>              a file uploaded through the API (direct)
  <tenant>/uploads/<batchId>/<documentId>      a file uploaded to a presigned POST (bulk)
  exports/<tenant>/<exportId>/<name>            an export's files (exports/keys.py; expired by the
                                               bucket's lifecycle, not the sweep's to judge)
The original file name is metadata (sanitised), used for the download's Content-Disposition.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any
from urllib.parse import quote

from botocore.config import Config

from chalicelib import clock, config, ids

MiB = 1024 * 1024
# Direct uploads travel through API Gateway and Lambda, whose request payload is 6 MB; a
# file base64-encoded (JSON, or a binary body API Gateway encodes) grows by a third.
MAX_DIRECT_BYTES = 4 * MiB
MAX_DIRECT_BODY_BYTES = 6 * MiB - 64 * 1024
# Presigned uploads go straight to S3; the limit keeps registration (one read of the file
# to hash and sniff it) well inside a Lambda's time and /tmp.
MAX_BULK_BYTES = 100 * MiB
DOWNLOAD_URL_SECONDS = 300
SNIFF_BYTES = 64 * 1024
SPOOL_BYTES = 8 * MiB  # files up to this size are hashed and sniffed in memory, larger ones in /tmp

EXPORT_PREFIX = "exports/"
_ID = r"[a-z]{2,5}_[0-9A-HJKMNP-TV-Z]{26}"
_UPLOAD_KEY = re.compile(rf"^({_ID})/uploads/({_ID})/({_ID})$")
_clients: dict[tuple[str | None, str], Any] = {}


def bucket() -> str:
    return config.upload_bucket()


def s3() -> Any:
    """One client per endpoint and region, made on first use (never at import)."""
    import boto3  # cold start: boto3 (~15 ms) loads with the first S3 client

    key = (config.aws_endpoint_url(), config.region())
    if key not in _clients:
        _clients[key] = boto3.client(
            "s3",
            region_name=config.region(),
            config=Config(
                signature_version="s3v4",
                s3={"addressing_style": "path" if key[0] else "virtual"},
                max_pool_connections=32,
            ),
        )
    return _clients[key]


def direct_key(tenant_id: str, document_id: str) -> str:
    return f"{tenant_id}/documents/{document_id}"


def upload_key(tenant_id: str, batch_id: str, document_id: str) -> str:
    return f"{tenant_id}/uploads/{batch_id}/{document_id}"


def parse_upload_key(key: str) -> tuple[str, str, str] | None:
    """(tenant, batch, document) of a presigned upload's key; None for any other key."""
    match = _UPLOAD_KEY.match(key)
    if not match or not all(ids.looks_like_id(part) for part in match.groups()):
        return None
    return match.group(1), match.group(2), match.group(3)


def sanitise_file_name(name: str) -> str:
    """A file name safe to store and to offer in a download: the last path segment only,
    NFC, no control or reserved characters, no leading dots, at most 200 characters with
    its extension kept."""
    name = unicodedata.normalize("NFC", name).replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    name = re.sub(r'[<>:"|?*]', "_", name)
    name = re.sub(r"\s+", " ", name).strip().lstrip(".").strip()
    if len(name) > 200:
        stem, dot, ext = name.rpartition(".")
        name = stem[: 200 - len(ext) - 1] + "." + ext if dot and len(ext) <= 16 else name[:200]
    return name or "file"


def stored() -> Iterator[dict[str, Any]]:
    """Every object in the bucket (Key, Size, LastModified, ...), page by page."""
    for page in s3().get_paginator("list_objects_v2").paginate(Bucket=bucket()):
        yield from page.get("Contents") or []


def put(key: str, body: bytes, content_type: str) -> str | None:
    """Store a file; its S3 version (the bucket is versioned: None where it is not)."""
    answer = s3().put_object(Bucket=bucket(), Key=key, Body=body, ContentType=content_type)
    return answer.get("VersionId")


def delete(key: str) -> None:
    """Remove a file with every version of it (a refused or orphaned upload)."""
    doomed: list[str | None] = [*versions(key)] or [None]
    for version in doomed:
        s3().delete_object(Bucket=bucket(), Key=key, **({"VersionId": version} if version else {}))


def versions(key: str) -> list[str]:
    """The stored versions of exactly this key (none in an unversioned bucket)."""
    found = []
    for page in s3().get_paginator("list_object_versions").paginate(Bucket=bucket(), Prefix=key):
        found += [
            v["VersionId"]
            for v in page.get("Versions", []) + page.get("DeleteMarkers", [])
            if v["Key"] == key and v["VersionId"] != "null"
        ]
    return found


def keep_only(key: str, version: str) -> int:
    """Delete every version of `key` but `version`: what was uploaded again to a registered
    key (a presigned POST is valid until it expires) never replaces the registered file."""
    doomed = [v for v in versions(key) if v != version]
    for other in doomed:
        s3().delete_object(Bucket=bucket(), Key=key, VersionId=other)
    return len(doomed)


def download_url(key: str, file_name: str, content_type: str, version: str | None = None) -> tuple[str, str]:
    """A presigned GET of the registered version, valid for DOWNLOAD_URL_SECONDS, offering
    the file under its name."""
    disposition = f"attachment; filename*=UTF-8''{quote(file_name, safe='')}"
    params = {
        "Bucket": bucket(),
        "Key": key,
        "ResponseContentDisposition": disposition,
        "ResponseContentType": content_type,
    }
    if version:
        params["VersionId"] = version
    url = s3().generate_presigned_url("get_object", Params=params, ExpiresIn=DOWNLOAD_URL_SECONDS)
    return url, clock.iso_in(DOWNLOAD_URL_SECONDS)


def presigned_post(key: str, content_type: str, size: int, expires_in: int) -> dict[str, Any]:
    """A browser-style POST upload bound to one key, one Content-Type and exactly `size`
    bytes: S3 refuses anything else, and refuses it after `expires_in` seconds."""
    post: dict[str, Any] = s3().generate_presigned_post(
        Bucket=bucket(),
        Key=key,
        Fields={"Content-Type": content_type},
        Conditions=[{"Content-Type": content_type}, ["content-length-range", size, size]],
        ExpiresIn=expires_in,
    )
    return post


@dataclass
class Received:
    """A stored file as read back: its size, SHA-256, first bytes, and the content (in
    memory or spooled to /tmp) for the sniffer's deeper looks."""

    size: int
    checksum: str
    head: bytes
    content: IO[bytes]
    version: str | None = None  # the S3 version read

    def reopen(self) -> IO[bytes]:
        self.content.seek(0)
        return self.content


def digest(chunks: Any, limit: int) -> Received | None:
    """Hash and spool a stream of byte chunks; None once it passes `limit` bytes."""
    sha = hashlib.sha256()
    spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    size, head = 0, b""
    try:
        for chunk in chunks:
            size += len(chunk)
            if size > limit:
                spool.close()
                return None
            if len(head) < SNIFF_BYTES:
                head += chunk[: SNIFF_BYTES - len(head)]
            sha.update(chunk)
            spool.write(chunk)
    except BaseException:  # a read cut short (S3, the network): its part in /tmp goes now, not at garbage collection
        spool.close()
        raise
    return Received(size=size, checksum=sha.hexdigest(), head=head, content=spool)


def read(key: str, limit: int) -> Received | None:
    """The stored object, streamed (memory stays bounded); None when it is over `limit`."""
    answer = s3().get_object(Bucket=bucket(), Key=key)
    body = answer["Body"]
    try:
        received = digest(body.iter_chunks(1024 * 1024), limit)
    finally:
        body.close()
    if received is not None:
        received.version = answer.get("VersionId")
    return received


BULK_HINT = (
    f"Files over {MAX_DIRECT_BYTES // MiB} MiB go through the bulk path: documents.uploads.create hands out presigned "
    f"S3 uploads of up to {MAX_BULK_BYTES // MiB} MiB each."
)
