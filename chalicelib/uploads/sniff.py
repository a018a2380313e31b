"""Media type of an uploaded file, told from its bytes: the client's Content-Type is never trusted.

`sniff` looks at the first bytes (HEAD_SIZE) and, for ZIP and OLE2 containers only, at the whole file
through `open_file`. It answers a type of ALLOWED_TYPES or None: None for what it does not recognise, for
types not allowed, and for anything a browser could run when the file is served back (executables,
HTML, SVG, XML carrying XHTML or SVG). A ZIP whose central directory is past the caps of zipbounds
raises zipbounds.ArchiveTooLarge instead: refused, with its own reason, before it is opened. `accepts`
and `stored_type` compare the answer with the declared type. The markup screen is a heuristic: serve
stored files with `Content-Disposition: attachment` and `X-Content-Type-Options: nosniff` all the same."""

from __future__ import annotations

import codecs
import io
import re
import zipfile
import zlib
from collections.abc import Callable
from typing import IO

from chalicelib.uploads import zipbounds

HEAD_SIZE = 8192  # what callers pass as `head` (or the whole file, if smaller)

_DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
_XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
_PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
_ODT = "application/vnd.oasis.opendocument.text"
_ODS = "application/vnd.oasis.opendocument.spreadsheet"

ALLOWED_TYPES: dict[str, str] = {
    "application/pdf": "PDF document",
    "image/jpeg": "JPEG image",
    "image/png": "PNG image",
    "image/gif": "GIF image",
    "image/tiff": "TIFF image",
    "image/webp": "WebP image",
    "image/heic": "HEIC image",
    _DOCX: "Word document (.docx)",
    _XLSX: "Excel workbook (.xlsx)",
    _PPTX: "PowerPoint presentation (.pptx)",
    _ODT: "OpenDocument text (.odt)",
    _ODS: "OpenDocument spreadsheet (.ods)",
    "application/zip": "ZIP archive",
    "application/msword": "Word 97-2003 document (.doc)",
    "application/vnd.ms-excel": "Excel 97-2003 workbook (.xls)",
    "application/vnd.ms-outlook": "Outlook message (.msg)",
    "text/plain": "Plain text",
    "text/csv": "CSV table",
    "application/xml": "XML document",
    "message/rfc822": "E-mail (.eml)",
}

# Every text type is also plain text, so a client may store any of them as text/plain, or as text/csv,
# which the bytes cannot prove (both are shown as text, never run). The reverse (text/plain declared as
# application/xml or message/rfc822) is refused: those the bytes can prove, and XML is rendered.
TEXT_TYPES = frozenset({"text/plain", "text/csv", "application/xml", "message/rfc822"})
_AS_PLAIN_TEXT = frozenset({"text/plain", "text/csv"})

# Other names clients (browsers, operating systems) declare for the same types.
_ALIASES = {
    "image/jpg": "image/jpeg",
    "image/pjpeg": "image/jpeg",
    "image/x-png": "image/png",
    "image/heif": "image/heic",  # what Android declares for the same HEVC-coded files
    "application/x-pdf": "application/pdf",
    "application/x-zip-compressed": "application/zip",  # Windows
    "text/xml": "application/xml",
}

# Signatures at offset 0, first match wins; None: recognised and refused.
_MAGIC: tuple[tuple[bytes, str | None], ...] = (
    (b"%PDF-", "application/pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"II*\x00", "image/tiff"),  # little-endian
    (b"MM\x00*", "image/tiff"),  # big-endian
    (b"MZ", None),  # DOS/Windows programs (a text starting with "MZ" is refused too: rare, and safe)
    (b"\x7fELF", None),
    (b"\xfe\xed\xfa\xce", None),  # Mach-O, 32 and 64 bit, both byte orders
    (b"\xce\xfa\xed\xfe", None),
    (b"\xfe\xed\xfa\xcf", None),
    (b"\xcf\xfa\xed\xfe", None),
    (b"\xca\xfe\xba\xbe", None),  # Mach-O universal binaries (and Java classes)
)

_PDF_SLACK = 1024  # scanners and mail gateways put up to this much before %PDF-, and readers skip it
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")  # a first entry, or an empty archive
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_OLE_SCAN = 64 * 1024
# OLE2 directory entries are 128 bytes, each starting with its NUL-terminated UTF-16LE name.
# The first of these found wins: writers put an application's own streams first in the directory.
_OLE_STREAMS = [
    (name.encode("utf-16-le"), media_type)
    for name, media_type in (
        ("WordDocument\0", "application/msword"),
        ("Workbook\0", "application/vnd.ms-excel"),
        ("Book\0", "application/vnd.ms-excel"),  # Excel 5/95
        ("__substg1.0_", "application/vnd.ms-outlook"),  # a property stream of a .msg
    )
]
_ODF = {_ODT.encode(): _ODT, _ODS.encode(): _ODS}
# HEIF ('ftyp' box) brands of HEVC-coded still images. mif1/msf1 only name the container, which AVIF
# shares, so they alone do not make an image/heic; hevc/hevx are image sequences.
_HEIC_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis"})
# A damaged container is not recognised (None), rather than an error.
_BROKEN = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, RuntimeError, zlib.error)

# What makes a browser render and run text. HTML near the start, where browsers sniff (tags as whole
# words; <head> and <body> only first, so an XML <Header> or <Body> passes); in XML anywhere: SVG, the
# XHTML and SVG namespaces, XSLT, and the DTD features (entities, default attributes) that could spell
# a namespace without these words.
_HTML = re.compile(r"^<(?:head|body)\b|<(?:!doctype html|html|script|iframe)\b")
_ACTIVE = re.compile(
    r"<svg\b|<\?xml-stylesheet|<!entity|<!attlist|http://www\.w3\.org/(?:1999/xhtml|2000/svg)|xmlns[^=>]*=\s*[\"'][^\"'&]*&"
)
_MARKUP_SPAN = 1024  # browsers that sniff plain text look at its start only
# RFC 5322 header line: a field name (printable ASCII but ':') and a colon.
_HEADER = re.compile(r"([!-9;-~]+):")
_MAIL_FIELDS = frozenset(
    {
        "from",
        "to",
        "cc",
        "subject",
        "date",
        "received",
        "return-path",
        "mime-version",
        "message-id",
        "delivered-to",
        "reply-to",
    }
)


def sniff(head: bytes, open_file: Callable[[], IO[bytes]] | None = None) -> str | None:
    """Media type detected from the file's first bytes (`head`: at least HEAD_SIZE bytes, or the whole file
    if smaller), or None when not recognised or not allowed. `open_file` returns a seekable binary file of the
    WHOLE content; it is called at most once, for ZIP and OLE2 containers only, and the file stays the caller's
    (sniff seeks and reads, never closes). Without it those are told from `head` alone, which only works
    when head is the whole file. Raises zipbounds.ArchiveTooLarge for a ZIP past the caps."""
    if not head:
        return None
    for magic, media_type in _MAGIC:
        if head.startswith(magic):
            return media_type
    if head[:4] == b"RIFF" and head[8:15] == b"WEBPVP8":  # VP8, VP8L or VP8X chunk
        return "image/webp"
    if head[4:8] == b"ftyp":
        size = min(int.from_bytes(head[:4], "big"), len(head), 256)
        brands = {head[8:12]} | {head[i : i + 4] for i in range(16, size - 3, 4)}  # major, compatible
        return "image/heic" if brands & _HEIC_BRANDS else None
    if head.startswith((_OLE, *_ZIP)):
        whole = open_file() if open_file is not None else io.BytesIO(head)
        try:
            return _ole(whole) if head.startswith(_OLE) else _zip(whole)
        except _BROKEN:
            return None
    pdf = head.find(b"%PDF-", 0, _PDF_SLACK + 5)
    if pdf > 0:  # leading garbage, unless it is markup (a polyglot)
        return None if _markup(head[:pdf].decode("latin-1").lstrip().lower()) else "application/pdf"
    text = _decode(head)
    return None if text is None else _text_type(text)


def accepts(declared: str, detected: str) -> bool:
    """Whether a file declared (by the client) as `declared` may be stored, given `detected` (a sniff result).
    Exact match, or a detected text type declared as text/plain or text/csv. Parameters ('; charset=...')
    and case are ignored, and common aliases (image/jpg, text/xml, application/x-zip-compressed) resolved."""
    wanted, found = _normalise(declared), _normalise(detected)
    return found in ALLOWED_TYPES and (wanted == found or (found in TEXT_TYPES and wanted in _AS_PLAIN_TEXT))


def stored_type(declared: str, detected: str) -> str:
    """The media type to store: the declared one where accepts() allows it (a text refinement), else detected."""
    return _normalise(declared) if accepts(declared, detected) else _normalise(detected)


def _normalise(media_type: str) -> str:
    bare = media_type.split(";", 1)[0].strip().lower()
    return _ALIASES.get(bare, bare)


def _zip(whole: IO[bytes]) -> str | None:
    if not zipbounds.check(whole):  # raises ArchiveTooLarge before zipfile loads a directory past the caps
        return None
    whole.seek(0)
    with zipfile.ZipFile(whole) as archive:
        entries = archive.infolist()
        names = [entry.filename.lower() for entry in entries]
        if entries and entries[0].filename == "mimetype":  # ODF: its type, as the first entry
            media_type = _ODF.get(_read(archive, entries[0]).strip())
        elif "[content_types].xml" in names:  # OOXML: the content type of the main part names the format
            declared = _read(archive, entries[names.index("[content_types].xml")]).lower()
            found = [t for t in (_DOCX, _XLSX, _PPTX) if f"{t}.main+xml".encode() in declared]
            media_type = found[0] if len(found) == 1 else None  # templates and macro-enabled (.docm) have others
        else:
            return "application/zip"
        macros = any("vbaproject" in name or name.startswith(("basic/", "scripts/")) for name in names)
        return None if macros else media_type


def _read(archive: zipfile.ZipFile, entry: zipfile.ZipInfo, limit: int = 1 << 20) -> bytes:
    """At most `limit` bytes of an entry (no zip bombs); Office and ODF only store or deflate."""
    if entry.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        return b""
    with archive.open(entry) as member:
        return member.read(limit)


def _ole(whole: IO[bytes]) -> str | None:
    """Doc, xls or msg by the names in the OLE2 directory: its first sector (wherever the header says it is),
    then the first 64 KiB. Other OLE2 files (.ppt, encrypted Office documents, ...) are not recognised."""
    whole.seek(0)
    start = whole.read(_OLE_SCAN)
    shift = int.from_bytes(start[0x1E:0x20], "little")  # sector size: 512 (version 3) or 4096 (version 4)
    directory = b""
    if shift in (9, 12):
        whole.seek((int.from_bytes(start[0x30:0x34], "little") + 1) << shift)  # sector n starts after the header
        directory = whole.read(1 << shift)
    scanned = directory + start  # both start 128-aligned in the file, so entries stay 128-aligned here
    for offset in range(0, len(scanned), 128):
        for name, media_type in _OLE_STREAMS:
            if scanned.startswith(name, offset):
                return media_type
    return None


def _decode(head: bytes) -> str | None:
    """Text of `head`: UTF-8 or UTF-16 after a BOM; else, without NUL bytes, UTF-8, failing that Windows-1252
    (where 5 byte values are undefined). A character cut at the end of `head` is left out."""
    encodings: tuple[str, ...]
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if head.startswith(bom):
            body, encodings = head[len(bom) :], (encoding,)
            break
    else:
        if b"\0" in head:
            return None
        body, encodings = head, ("utf-8", "cp1252")
    for encoding in encodings:
        try:
            return codecs.getincrementaldecoder(encoding)().decode(body, final=False)
        except UnicodeDecodeError:
            continue
    return None


def _text_type(text: str) -> str | None:
    """Text is at most 1% control characters other than tab, line breaks and form feed (and no NUL)."""
    controls = sum(1 for c in text if (c < " " and c not in "\t\n\r\f") or "\x7f" <= c < "\xa0")
    if not text or "\0" in text or controls * 100 > len(text):
        return None
    start = text.lstrip().lower()
    if start.startswith("<?xml"):
        return None if _markup(start, whole=True) else "application/xml"
    if _is_mail(text):  # before the markup screen: a mail's HTML part is not run when served as message/rfc822
        return "message/rfc822"
    return None if _markup(start) else "text/plain"


def _markup(lowered: str, whole: bool = False) -> bool:
    """Whether text (lower case, leading whitespace stripped) holds markup a browser would run (`whole`: XML)."""
    start = lowered[:_MARKUP_SPAN]
    return bool(_HTML.search(start) or _ACTIVE.search(lowered if whole else start))


def _is_mail(text: str) -> bool:
    """Mail: the text starts with at least two header lines (folded ones continue the one before), one of them
    a mail field, up to a blank line or the end of `head`. An mbox "From " line first is skipped."""
    lines = text.split("\n")
    if lines[0].startswith("From "):
        lines = lines[1:]
    fields: list[str] = []
    for number, line in enumerate(lines):
        line = line.rstrip("\r")
        if not line:
            break
        if line[0] in " \t" and fields:
            continue
        header = _HEADER.match(line)
        if header is None:
            if number == len(lines) - 1:  # the last line, which head may have cut short
                break
            return False
        fields.append(header.group(1).lower())
    return len(fields) >= 2 and not _MAIL_FIELDS.isdisjoint(fields)
