"""Helpers for upload tests and the upload benchmark: multipart bodies, presigned POSTs to
S3 (moto's server), sample files, and waiting for registration."""

from __future__ import annotations

import urllib.error
import urllib.request
import uuid
from typing import Any

from tests.client import Tenant
from tests.eventually import eventually

# A small but real PDF (header, one object, trailer) and PNG signature + IHDR.
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"
PNG = (
    b"\x89PNG\r\n\x1a\n"
    b"\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)
HTML = b"<!DOCTYPE html><html><body><script>alert(1)</script></body></html>"
# A ZIP of a few bytes whose end record (ZIP64) claims 3 million entries in 1 GB of directory:
# zipfile would try to read and parse all of it.
ZIP_CLAIMING_MILLIONS = (
    b"PK\x03\x04"
    + b"PK\x06\x06" + (44).to_bytes(8, "little") + bytes(20)
    + (3_000_000).to_bytes(8, "little") + (10**9).to_bytes(8, "little") + bytes(8)
    + b"PK\x06\x07" + bytes(4) + (4).to_bytes(8, "little") + (1).to_bytes(4, "little")
    + b"PK\x05\x06" + bytes(6) + b"\xff\xff" + b"\xff\xff\xff\xff" + bytes(6)
)  # fmt: skip


def pdf(marker: str = "") -> bytes:
    """A distinct PDF per marker (different checksums)."""
    return PDF + f"% {marker or uuid.uuid4().hex}\n".encode()


def pdf_saying(*pages: str) -> bytes:
    """A real PDF with a text layer: one page per text (fpdf2, as the demo company's documents)."""
    from fpdf import FPDF

    document = FPDF()
    document.set_font("helvetica", size=11)
    for text in pages:
        document.add_page()
        document.multi_cell(0, 6, text)
    return bytes(document.output())


def multipart(
    fields: list[tuple[str, str]],
    file_field: str,
    file_name: str,
    content: bytes,
    content_type: str | None = "application/octet-stream",
) -> tuple[bytes, str]:
    boundary = "----pm" + uuid.uuid4().hex
    lines: list[bytes] = []
    for name, value in fields:
        lines += [
            f"--{boundary}".encode(),
            f'Content-Disposition: form-data; name="{name}"'.encode(),
            b"",
            value.encode(),
        ]
    lines += [
        f"--{boundary}".encode(),
        f'Content-Disposition: form-data; name="{file_field}"; filename="{file_name}"'.encode(),
    ]
    if content_type:
        lines.append(f"Content-Type: {content_type}".encode())
    lines += [b"", content, f"--{boundary}--".encode(), b""]
    return b"\r\n".join(lines), f"multipart/form-data; boundary={boundary}"


def post_file(
    upload: dict[str, Any], content: bytes, *, url: str | None = None, fields: dict[str, str] | None = None
) -> int:
    """POST a file to a presigned S3 upload as a browser form would; the HTTP status."""
    body, content_type = multipart(
        list((fields or upload["fields"]).items()),
        "file",
        upload["fileName"],
        content,
        upload["fields"].get("Content-Type"),
    )
    req = urllib.request.Request(url or upload["url"], data=body, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as err:
        return int(err.code)


def batch_progress(tenant: Tenant, batch_id: str) -> dict[str, Any]:
    """The batch's progress as it is now."""
    return dict(tenant.get("documents.uploads.progress", {"batch": batch_id, "limit": 1000, "offset": 0}))


def wait_settled(tenant: Tenant, batch_id: str, timeout: float = 30.0, uploaded: int | None = None) -> dict[str, Any]:
    """The batch's progress once no upload is pending any more (or `uploaded` files arrived)."""

    def settled() -> dict[str, Any]:
        answer = batch_progress(tenant, batch_id)
        counts = answer["batch"]["counts"]
        done = counts["uploaded"] >= uploaded if uploaded is not None else counts["pending"] == 0
        assert done, counts
        return answer

    return eventually(
        settled,
        timeout=timeout,
        message=f"batch {batch_id} to settle" if uploaded is None else f"{uploaded} uploads of batch {batch_id}",
    )


def object_exists(key: str) -> bool:
    """Whether the upload bucket holds `key` (on the test stack's S3)."""
    import boto3
    from botocore.exceptions import ClientError

    from chalicelib.uploads import files

    try:
        boto3.client("s3").head_object(Bucket=files.bucket(), Key=key)
        return True
    except ClientError:
        return False
