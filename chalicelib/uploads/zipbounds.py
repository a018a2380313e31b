"""How big a ZIP's central directory is, told before zipfile reads it.

zipfile.ZipFile parses the whole central directory in its constructor, one ZipInfo (~380 bytes
of objects) per entry: 2.2 million entries fit in a 100 MiB upload and need ~0.8 GiB, in a
worker that handles ten files at once. `check` reads the end record (and the ZIP64 one) exactly
as zipfile does, refuses a directory past the caps, then walks the directory's fixed-size
headers, without building anything, to count the entries it really holds: a record may
understate them, and zipfile parses by the directory's size, not by the record's count."""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from typing import IO

from chalicelib import error_codes as codes

# An Office or ODF document holds a few dozen entries, a large workbook a few thousand; so do
# the ZIP archives people file with a property (scans, statements). 10,000 entries cost
# zipfile ~4 MB, a 4 MiB directory is read twice (here, then by zipfile): per file, well
# inside the worker's share of memory.
MAX_ZIP_ENTRIES = 10_000
MAX_ZIP_DIRECTORY_BYTES = 4 * 1024 * 1024

_EOCD, _ZIP64_LOCATOR, _ZIP64_EOCD, _ENTRY = b"PK\x05\x06", b"PK\x06\x07", b"PK\x06\x06", b"PK\x01\x02"
_EOCD_SIZE, _LOCATOR_SIZE, _ZIP64_SIZE, _ENTRY_SIZE = 22, 20, 56, 46
_EOCD_SEARCH = _EOCD_SIZE + (1 << 16)  # zipfile's window: the end record and the longest comment (and a byte)


class ArchiveTooLarge(Exception):
    """A ZIP (or Office/ODF) file whose directory is past the caps: not opened."""

    code = codes.ARCHIVE_TOO_LARGE.code

    def __init__(self, entries: int, directory_bytes: int) -> None:
        super().__init__(
            f"the archive's directory holds {entries:,} entries in {directory_bytes:,} bytes; "
            f"accepted are at most {MAX_ZIP_ENTRIES:,} entries "
            f"and {MAX_ZIP_DIRECTORY_BYTES // (1024 * 1024)} MiB of directory"
        )
        self.entries, self.directory_bytes = entries, directory_bytes


@dataclass(frozen=True)
class Directory:
    entries: int  # as the end record claims
    size: int  # bytes, as the end record says: what zipfile reads
    start: int  # where zipfile looks for it


def end_record(whole: IO[bytes]) -> Directory | None:
    """The central directory as zipfile.ZipFile will find it (zipfile._EndRecData and
    _RealGetContents of Python 3.11): the end record at the very end, else the last one in the
    final 64 KiB; the ZIP64 record is the 56 bytes before a locator found just before it
    (where the locator points is ignored, as zipfile ignores it; an archive shorter than that
    cannot start with a ZIP signature and hold both). None: zipfile would not find a
    directory. Reads at most 64 KiB + 76 bytes."""
    size = whole.seek(0, io.SEEK_END)
    if size < _EOCD_SIZE:
        return None
    whole.seek(size - _EOCD_SIZE)
    last = whole.read(_EOCD_SIZE)
    if last.startswith(_EOCD) and last[-2:] == b"\0\0":
        record, at = last, size - _EOCD_SIZE
    else:
        start = max(0, size - _EOCD_SEARCH)
        whole.seek(start)
        tail = whole.read()
        found = tail.rfind(_EOCD)
        record, at = tail[found : found + _EOCD_SIZE], start + found
        if found < 0 or len(record) != _EOCD_SIZE:
            return None
    entries, directory = struct.unpack(
        "<10xHL", record[:16]
    )  # the offset field: zipfile derives the start from the end
    end = at  # where the directory (and ZIP64 records) end
    if at >= _LOCATOR_SIZE + _ZIP64_SIZE:
        whole.seek(at - _LOCATOR_SIZE - _ZIP64_SIZE)
        zip64, locator = whole.read(_ZIP64_SIZE), whole.read(_LOCATOR_SIZE)
        if locator.startswith(_ZIP64_LOCATOR) and zip64.startswith(_ZIP64_EOCD):
            entries, directory = struct.unpack_from("<32xQQ", zip64)
            end = at - _LOCATOR_SIZE - _ZIP64_SIZE
    return Directory(entries=entries, size=directory, start=end - directory)


def zip_directory(whole: IO[bytes]) -> tuple[int, int] | None:
    """(entries, directory bytes) the end record claims; None when there is none."""
    found = end_record(whole)
    return None if found is None else (found.entries, found.size)


def check(whole: IO[bytes]) -> bool:
    """Whether zipfile may open the archive: False when it would find no directory; raises
    ArchiveTooLarge past the caps, whether the end record says so or the directory shows it."""
    found = end_record(whole)
    if found is None:
        return False
    if found.entries > MAX_ZIP_ENTRIES or found.size > MAX_ZIP_DIRECTORY_BYTES:
        raise ArchiveTooLarge(found.entries, found.size)  # what it claims is refused, whether it holds it or not
    if found.start < 0:
        return False  # a directory that would start before the file: zipfile refuses it
    whole.seek(found.start)
    counted = _count(whole.read(found.size))
    if counted > MAX_ZIP_ENTRIES:
        raise ArchiveTooLarge(counted, found.size)
    return True


def _count(directory: bytes) -> int:
    """Entries zipfile would build from these bytes (it parses until their end), stopping
    once past the cap or at a header it would refuse."""
    count = at = 0
    while at < len(directory) and count <= MAX_ZIP_ENTRIES:
        if directory[at : at + 4] != _ENTRY or len(directory) - at < _ENTRY_SIZE:
            break  # zipfile raises BadZipFile here
        name, extra, comment = struct.unpack_from("<HHH", directory, at + 28)
        at += _ENTRY_SIZE + name + extra + comment
        count += 1
    return count
