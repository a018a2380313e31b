"""An export's files, written to S3 as they are made and uploaded in parts of PART_BYTES (S3
multipart upload), so the worker holds at most one part whatever a file's size."""

from __future__ import annotations

import zlib
from typing import Any

from chalicelib.uploads import files

PART_BYTES = 8 * files.MiB  # S3 takes parts of 5 MiB and more (the last may be smaller)
GZIP = 31  # zlib's wbits for a gzip header and trailer


class PartUpload:
    """Bytes in, a file out in S3, gzip-compressed on the way when `gzip` (`close()` completes
    it, `abort()` drops its parts). A file object for writing, as zipfile takes one."""

    def __init__(self, key: str, content_type: str, *, gzip: bool = False) -> None:
        self.key = key
        self.compressor = zlib.compressobj(6, zlib.DEFLATED, GZIP) if gzip else None
        self.buffer = bytearray()
        self.parts: list[dict[str, Any]] = []
        self.size = 0  # bytes stored
        # a .gz file as such (no Content-Encoding: clients would unpack it on the way)
        started = files.s3().create_multipart_upload(Bucket=files.bucket(), Key=key, ContentType=content_type)
        self.upload_id = started["UploadId"]

    def write(self, data: bytes) -> int:
        self.buffer += self.compressor.compress(data) if self.compressor else data
        if len(self.buffer) >= PART_BYTES:
            self._send()
        return len(data)

    def flush(self) -> None:
        """zipfile flushes its file object; parts go when they are full."""

    def _send(self) -> None:
        number = len(self.parts) + 1
        answer = files.s3().upload_part(
            Bucket=files.bucket(), Key=self.key, UploadId=self.upload_id, PartNumber=number, Body=bytes(self.buffer)
        )
        self.parts.append({"PartNumber": number, "ETag": answer["ETag"]})
        self.size += len(self.buffer)
        self.buffer = bytearray()

    def close(self) -> int:
        """Complete the file; its size as stored."""
        if self.compressor:
            self.buffer += self.compressor.flush()
        self._send()
        files.s3().complete_multipart_upload(
            Bucket=files.bucket(), Key=self.key, UploadId=self.upload_id, MultipartUpload={"Parts": self.parts}
        )
        return self.size

    def abort(self) -> None:
        files.s3().abort_multipart_upload(Bucket=files.bucket(), Key=self.key, UploadId=self.upload_id)
