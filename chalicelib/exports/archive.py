"""The files of an export's documents and UVI documents, in one zip beside its lines: each file
streamed from its stored version into the zip, which is uploaded in parts as it grows (memory stays
one part and one read chunk). A file's entry is `<type>/<alias>/<file name>`, the `file` of its
line; the zip is stored (no compression: PDFs and images are compressed already)."""

from __future__ import annotations

import zipfile
from typing import IO, Any, cast

from chalicelib.exports.sink import PartUpload
from chalicelib.uploads import files

READ_BYTES = files.MiB


class FileArchive:
    def __init__(self, key: str) -> None:
        self.upload = PartUpload(key, "application/zip")
        # zipfile writes to an unseekable file object (sizes after each entry); closing it is ours
        self.zip = zipfile.ZipFile(cast(IO[bytes], self.upload), mode="w", compression=zipfile.ZIP_STORED)
        self.count = 0

    def add(self, type_name: str, alias: str, item: Any) -> str | None:
        """The entity's file into the zip; its entry's name (None when it has no file)."""
        if not item.fileKey:
            return None
        name = f"{type_name}/{_safe(alias)}/{files.sanitise_file_name(str(item.data_dict().get('fileName') or 'file'))}"
        extra = {"VersionId": item.fileVersion} if item.fileVersion else {}
        body = files.s3().get_object(Bucket=files.bucket(), Key=item.fileKey, **extra)["Body"]
        try:
            with self.zip.open(name, mode="w", force_zip64=True) as entry:
                for chunk in body.iter_chunks(READ_BYTES):
                    entry.write(chunk)
        finally:
            body.close()
        self.count += 1
        return name

    def close(self) -> int:
        self.zip.close()
        return self.upload.close()

    def abort(self) -> None:
        self.upload.abort()


def _safe(alias: str) -> str:
    """An alias as one path segment of an entry's name."""
    return files.sanitise_file_name(alias.replace("/", "_")) or "entity"
