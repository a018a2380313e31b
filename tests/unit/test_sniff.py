"""The upload sniffer, on real sample bytes built here: what it recognises, what it refuses, and
how a declared type is checked against the detected one."""

from __future__ import annotations

import io
import random
import struct
import zipfile
import zlib

import pytest

from chalicelib.uploads.sniff import ALLOWED_TYPES, HEAD_SIZE, TEXT_TYPES, accepts, sniff, stored_type

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
ODT = "application/vnd.oasis.opendocument.text"
ODS = "application/vnd.oasis.opendocument.spreadsheet"
GERMAN = "Nebenkostenabrechnung für Wohnung 1.02 – äöüß\n"


def detect(content: bytes) -> str | None:
    """What an upload handler sees: the head, and the whole file for a deeper look."""
    return sniff(content[:HEAD_SIZE], lambda: io.BytesIO(content))


# Samples


def png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)  # 1x1, 8-bit greyscale
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b"")
    )


PDF = (
    b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"


def ooxml(main_part: str, main_type: str, *extra: tuple[str, bytes]) -> bytes:
    content_types = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        f'<Override PartName="/{main_part}" ContentType="{main_type}"/></Types>'
    )
    rels = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"'
        f' Target="{main_part}"/></Relationships>'
    )
    return make_zip(
        ("[Content_Types].xml", content_types.encode()), ("_rels/.rels", rels.encode()), (main_part, b"<doc/>"), *extra
    )


def docx(*extra: tuple[str, bytes]) -> bytes:
    return ooxml("word/document.xml", DOCX + ".main+xml", *extra)


def odf(media_type: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(
            "mimetype", media_type, compress_type=zipfile.ZIP_STORED
        )  # first and uncompressed, as ODF wants
        archive.writestr("content.xml", "<office:document-content/>", compress_type=zipfile.ZIP_DEFLATED)
        archive.writestr("META-INF/manifest.xml", "<manifest:manifest/>", compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def make_zip(*entries: tuple[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def ole(*names: str, directory_sector: int = 0, padding: bytes = b"") -> bytes:
    """An OLE2 compound file (version 3, 512-byte sectors) with a directory of `names`, in sector
    `directory_sector` (that many sectors of `padding` come before it)."""
    header = bytearray(512)
    header[:8] = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
    struct.pack_into("<HHHH", header, 0x18, 0x3E, 3, 0xFFFE, 9)  # minor and major version, byte order, sector shift
    struct.pack_into("<I", header, 0x30, directory_sector)
    entries = b""
    for name in ("Root Entry", *names):
        encoded = (name + "\0").encode("utf-16-le")
        entry = bytearray(128)
        entry[: len(encoded)] = encoded
        struct.pack_into("<HB", entry, 64, len(encoded), 5 if name == "Root Entry" else 2)
        entries += bytes(entry)
    entries += bytes(-len(entries) % 512)
    filler = (padding * (directory_sector * 512 // max(len(padding), 1) + 1))[: directory_sector * 512]
    return bytes(header) + filler + entries


def heif(major: bytes, *compatible: bytes) -> bytes:
    brands = major + b"\x00\x00\x00\x00" + b"".join(compatible)
    return struct.pack(">I", 8 + len(brands)) + b"ftyp" + brands + b"\x00\x00\x00\x08meta"


MAIL = (
    b"Return-Path: <hausverwaltung@example.de>\r\n"
    b"Received: from mail.example.de by mx.example.net; Tue, 4 Mar 2025 09:12:01 +0100\r\n"
    b"From: Hausverwaltung <hausverwaltung@example.de>\r\n"
    b"To: mieter@example.net\r\n"
    b"Subject: =?utf-8?q?Nebenkostenabrechnung_2024?=\r\n"
    b"MIME-Version: 1.0\r\n"
    b'Content-Type: multipart/alternative; boundary="b1"\r\n'
    b"\r\n--b1\r\nContent-Type: text/html\r\n\r\n<html><body><p>Guten Tag</p></body></html>\r\n--b1--\r\n"
)


# Recognised


@pytest.mark.parametrize(
    ("content", "media_type"),
    [
        (PDF, "application/pdf"),
        (JPEG, "image/jpeg"),
        (png(), "image/png"),
        (b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + bytes(6) + b";", "image/gif"),
        (b"GIF87a\x01\x00\x01\x00\x00\x00\x00;", "image/gif"),
        (b"II*\x00\x08\x00\x00\x00" + bytes(16), "image/tiff"),
        (b"MM\x00*\x00\x00\x00\x08" + bytes(16), "image/tiff"),
        (b"RIFF\x1a\x00\x00\x00WEBPVP8 \x0e\x00\x00\x00" + bytes(14), "image/webp"),
        (b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0e\x00\x00\x00" + bytes(14), "image/webp"),
        (heif(b"heic", b"mif1", b"heic"), "image/heic"),
        (heif(b"mif1", b"heic"), "image/heic"),
    ],
)
def test_images_and_pdf_are_told_by_their_signature(content: bytes, media_type: str) -> None:
    assert detect(content) == media_type
    assert sniff(content) == media_type  # no container: the head is enough


def test_heif_brands_without_hevc_are_not_heic() -> None:
    assert detect(heif(b"mif1", b"avif")) is None  # AVIF shares the HEIF container
    assert detect(heif(b"mif1")) is None
    assert detect(heif(b"isom", b"mp41")) is None  # an MP4 video


def test_a_pdf_after_leading_garbage_is_still_a_pdf() -> None:
    assert detect(b"\x1b%-12345X@PJL JOB\r\n" + PDF) == "application/pdf"
    assert detect(bytes(1024) + PDF) == "application/pdf"
    assert detect(bytes(1025) + PDF) is None  # beyond what readers skip


def test_a_pdf_behind_html_is_refused() -> None:
    assert detect(b"<html><script>alert(1)</script>" + PDF) is None


@pytest.mark.parametrize(
    ("content", "media_type"),
    [
        (docx(), DOCX),
        (ooxml("xl/workbook.xml", XLSX + ".main+xml"), XLSX),
        (ooxml("ppt/presentation.xml", PPTX + ".main+xml"), PPTX),
        (odf(ODT), ODT),
        (odf(ODS), ODS),
    ],
)
def test_office_documents_are_told_by_their_container(content: bytes, media_type: str) -> None:
    assert detect(content) == media_type


def test_a_docx_is_told_apart_from_a_plain_zip() -> None:
    assert detect(docx()) == DOCX
    assert detect(make_zip(("Mietvertrag.docx", b"not really"), ("readme.txt", b"hello"))) == "application/zip"


def test_a_zip_named_like_a_docx_is_only_a_zip() -> None:
    content = make_zip(("word/document.xml", b"<doc/>"))  # a docx's part, but no [Content_Types].xml
    assert detect(content) == "application/zip"
    assert not accepts(DOCX, "application/zip")


def test_an_empty_zip_is_a_zip() -> None:
    assert detect(make_zip()) == "application/zip"


def test_a_large_docx_needs_the_whole_file() -> None:
    content = docx(("word/media/image1.png", random.Random(0).randbytes(3 * HEAD_SIZE)))
    assert detect(content) == DOCX
    assert sniff(content[:HEAD_SIZE]) is None  # the central directory is at the end


def test_the_whole_file_is_left_open_for_the_caller() -> None:
    whole = io.BytesIO(docx())
    assert sniff(whole.getvalue()[:HEAD_SIZE], lambda: whole) == DOCX
    assert not whole.closed


def test_office_documents_with_macros_or_other_main_parts_are_refused() -> None:
    assert detect(ooxml("word/document.xml", "application/vnd.ms-word.document.macroEnabled.main+xml")) is None  # .docm
    assert (
        detect(
            ooxml(
                "word/document.xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml"
            )
        )
        is None
    )
    assert detect(docx(("word/vbaProject.bin", b"\xd0\xcf\x11\xe0"))) is None
    assert detect(odf("application/vnd.oasis.opendocument.presentation")) is None
    content = io.BytesIO(odf(ODT))
    with zipfile.ZipFile(content, "a") as archive:
        archive.writestr("Basic/Standard/Module1.xml", "<script:module/>")
    assert detect(content.getvalue()) is None


def test_an_odt_without_its_mimetype_first_is_a_plain_zip() -> None:
    assert detect(make_zip(("content.xml", b"<x/>"), ("mimetype", ODT.encode()))) == "application/zip"


def test_a_damaged_zip_is_not_recognised() -> None:
    assert detect(docx()[:200]) is None
    assert detect(b"PK\x03\x04" + bytes(100)) is None


def test_an_encrypted_zip_entry_is_not_recognised() -> None:
    content = bytearray(docx())
    struct.pack_into("<H", content, 6, 1)  # the first entry's "encrypted" flag, in its local header
    central = content.find(b"PK\x01\x02")  # the first entry in the central directory
    struct.pack_into("<H", content, central + 8, 1)
    assert detect(bytes(content)) is None


@pytest.mark.parametrize(
    ("names", "media_type"),
    [
        (("1Table", "WordDocument", "\x05SummaryInformation"), "application/msword"),
        (("Workbook", "\x05SummaryInformation"), "application/vnd.ms-excel"),
        (("Book",), "application/vnd.ms-excel"),
        (
            ("__nameid_version1.0", "__substg1.0_0037001F", "__attach_version1.0_#00000000", "WordDocument"),
            "application/vnd.ms-outlook",
        ),
        (("PowerPoint Document", "Current User"), None),  # .ppt
        (("EncryptionInfo", "EncryptedPackage"), None),  # a password-protected .docx
        (("WordDocumentation", "Bookkeeping"), None),  # only whole names count
    ],
)
def test_ole_files_are_told_by_their_directory(names: tuple[str, ...], media_type: str | None) -> None:
    assert detect(ole(*names)) == media_type
    assert sniff(ole(*names)) == media_type  # small: the head is the whole file


def test_an_ole_directory_beyond_the_first_64_kib_is_found_through_the_whole_file() -> None:
    content = ole("WordDocument", directory_sector=200, padding="Workbook text".encode("utf-16-le"))
    assert len(content) > 64 * 1024
    assert detect(content) == "application/msword"
    assert sniff(content[:HEAD_SIZE]) is None


# Text


def test_utf8_text_with_umlauts_is_plain_text() -> None:
    assert detect(GERMAN.encode()) == "text/plain"
    assert detect(b"\xef\xbb\xbf" + GERMAN.encode()) == "text/plain"


def test_windows_1252_text_is_plain_text() -> None:
    content = GERMAN.encode("cp1252")
    assert content.decode("cp1252") == GERMAN and b"\x96" in content  # the en dash, not UTF-8
    assert detect(content) == "text/plain"


def test_utf16_text_with_a_bom_is_plain_text() -> None:
    assert detect("\ufeff".encode("utf-16-le") + GERMAN.encode("utf-16-le")) == "text/plain"
    assert detect("\ufeff".encode("utf-16-be") + GERMAN.encode("utf-16-be")) == "text/plain"


def test_text_cut_inside_a_character_is_still_text() -> None:
    content = (GERMAN * 400).encode()
    cut = next(n for n in range(HEAD_SIZE, HEAD_SIZE - 100, -1) if content[n - 1] >= 0xC0)  # ends on a lead byte
    assert sniff(content[:cut], lambda: io.BytesIO(content)) == "text/plain"


def test_csv_is_detected_as_text_and_accepted_as_declared() -> None:
    content = "Wohnung;Mieter;Betrag\n1.02;Müller;1.234,56\n1.03;Weiß;987,00\n".encode()
    detected = detect(content)
    assert detected == "text/plain"
    assert accepts("text/csv; charset=utf-8", detected)
    assert stored_type("Text/CSV; charset=utf-8", detected) == "text/csv"


def test_xml_is_told_by_its_declaration() -> None:
    invoice = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>'
    )
    assert detect(invoice.encode()) == "application/xml"
    assert detect(b"\xef\xbb\xbf \r\n" + invoice.encode()) == "application/xml"
    assert detect(b"<rsm:CrossIndustryInvoice/>") == "text/plain"  # no declaration


def test_xml_elements_named_like_html_ones_are_fine() -> None:
    assert (
        detect(b'<?xml version="1.0"?>\n<Message><Header><Id>1</Id></Header><Body><Scripted/></Body></Message>')
        == "application/xml"
    )


def test_markup_deep_inside_plain_text_is_harmless() -> None:
    assert (
        detect(b"Notizen\n" + b"x" * 2000 + b"\n<script>alert(1)</script>") == "text/plain"
    )  # served as text, never sniffed that far


def test_an_eml_is_told_by_its_header_lines() -> None:
    assert detect(MAIL) == "message/rfc822"  # its HTML part does not matter
    assert detect(b"From MAILER-DAEMON Tue Mar  4 09:12:01 2025\n" + MAIL.replace(b"\r\n", b"\n")) == "message/rfc822"
    folded = b"Subject: a long\r\n subject\r\nFrom: a@example.de\r\n\r\nbody"
    assert detect(folded) == "message/rfc822"


def test_text_with_fewer_than_two_mail_headers_is_plain_text() -> None:
    assert detect(b"Subject: Nebenkosten\r\n\r\nbody") == "text/plain"
    assert detect(b"Hinweis: bitte zahlen\nKonto: DE02 1203 0000 0000 2020 51\n") == "text/plain"  # no mail field
    assert detect(b"From: a@example.de\nTo: b@example.de\nthis is not a header\nnor this\n") == "text/plain"


# Refused


@pytest.mark.parametrize(
    "content",
    [
        b"<!DOCTYPE html><html><body>hi</body></html>",
        b"\n\n   <html><body>hi</body></html>",
        b"<script>alert(1)</script>",
        b"  <body onload=alert(1)>",
        b"Liebe Mieter,\n<SCRIPT src=//evil.example/x.js></SCRIPT>",
        b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        "\ufeff<html></html>".encode("utf-16-le"),
    ],
)
def test_html_and_svg_are_refused(content: bytes) -> None:
    assert detect(content) is None


@pytest.mark.parametrize(
    "xml",
    [
        '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>',
        '<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>',
        '<?xml version="1.0"?><x:script xmlns:x="http&#x3a;//www.w3.org/1999/xhtml">alert(1)</x:script>',
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY ns "http://www.w3.org/1999/xhtml">]><x/>',
        '<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="/documents/evil"?><x/>',
    ],
)
def test_xml_that_a_browser_would_run_is_refused(xml: str) -> None:
    assert detect(xml.encode()) is None


@pytest.mark.parametrize(
    "content",
    [
        b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + bytes(48) + b"This program cannot be run in DOS mode.",
        b"\x7fELF\x02\x01\x01" + bytes(9),
        b"\xcf\xfa\xed\xfe\x07\x00\x00\x01",
        b"\xca\xfe\xba\xbe\x00\x00\x00\x02",
    ],
)
def test_executables_are_refused(content: bytes) -> None:
    assert detect(content) is None


def test_empty_and_random_bytes_are_not_recognised() -> None:
    assert sniff(b"") is None
    assert detect(random.Random(0).randbytes(4096)) is None
    assert detect(bytes(range(1, 32)) * 100) is None  # no NUL, but all control characters
    assert detect(b"a\x00b") is None


# Declared against detected


def test_declared_and_detected_types_must_match() -> None:
    assert accepts("application/pdf", "application/pdf")
    assert not accepts("image/png", "application/pdf")
    assert not accepts(DOCX, "application/zip")
    assert not accepts("application/octet-stream", "application/pdf")
    assert stored_type("image/png", "application/pdf") == "application/pdf"


def test_parameters_case_and_aliases_of_the_declared_type_are_ignored() -> None:
    assert accepts("Application/PDF; name=x.pdf", "application/pdf")
    assert accepts("image/jpg", "image/jpeg")
    assert accepts("application/x-zip-compressed", "application/zip")
    assert accepts("text/xml; charset=utf-8", "application/xml")
    assert stored_type("image/jpg", "image/jpeg") == "image/jpeg"
    assert stored_type("text/xml", "application/xml") == "application/xml"


def test_any_text_may_be_stored_as_plain_text_or_csv() -> None:
    for detected in sorted(TEXT_TYPES):
        assert accepts("text/plain", detected)
        assert accepts("text/csv", detected)
    assert stored_type("text/plain", "message/rfc822") == "text/plain"
    assert stored_type("text/plain; charset=windows-1252", "text/plain") == "text/plain"


def test_plain_text_is_not_refined_into_a_type_the_bytes_could_have_shown() -> None:
    assert not accepts("application/xml", "text/plain")
    assert not accepts("message/rfc822", "text/plain")
    assert not accepts("text/html", "text/plain")
    assert stored_type("application/xml", "text/plain") == "text/plain"


def test_only_allowed_types_are_accepted() -> None:
    assert not accepts("image/svg+xml", "image/svg+xml")
    assert not accepts("", "")
    assert TEXT_TYPES <= ALLOWED_TYPES.keys()


def _zip_with(entries: int, first: tuple[str, bytes] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        if first:
            archive.writestr(*first)
        for n in range(entries):
            archive.writestr(f"e{n}", b"")
    return out.getvalue()


def _zip64_end(entries: int, directory: int, offset: int) -> bytes:
    return struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, entries, entries, directory, offset)


def _end(entries: int, directory: int, offset: int) -> bytes:
    return struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, entries, entries, directory, offset, 0)


def _lying(entries: int, claimed: int, *, zip64: bool) -> bytes:
    """A real archive of `entries` whose classic end record claims `claimed`; with `zip64`, a
    ZIP64 end record (the one zipfile reads: just before its locator) holds the truth while the
    locator points at a decoy ZIP64 record, stored as the first entry, that claims 3 entries."""
    decoy_at = 30 + len("decoy")  # the first entry's data, after its local header and name
    real = _zip_with(entries, ("decoy", _zip64_end(3, 46, 0)))
    *_, size, offset, _ = struct.unpack("<4s4H2LH", real[-22:])
    if not zip64:
        return real[:-22] + _end(claimed, size, offset)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, decoy_at, 1)
    return real[:-22] + _zip64_end(entries + 1, size, offset) + locator + _end(claimed, size, offset)


def test_a_zip_directory_past_the_cap_is_refused_before_it_is_loaded() -> None:
    """Issue 16, finding 2: the entry count comes from the end record; zipfile, which reads
    the whole directory into objects, never opens an archive past MAX_ZIP_ENTRIES."""
    import tracemalloc

    from chalicelib.uploads.zipbounds import MAX_ZIP_ENTRIES, ArchiveTooLarge, zip_directory

    many = _zip_with(MAX_ZIP_ENTRIES + 1)
    assert zip_directory(io.BytesIO(many))[0] == MAX_ZIP_ENTRIES + 1
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveTooLarge) as refused:
            sniff(many[:HEAD_SIZE], lambda: io.BytesIO(many))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * len(many) // 3, (
        f"peaked at {peak} bytes for a {len(many)}-byte archive"
    )  # the directory was never parsed
    assert refused.value.code == "archive_too_large" and "10,001 entries" in str(refused.value)
    assert sniff(_zip_with(3)[:HEAD_SIZE], lambda: io.BytesIO(_zip_with(3))) == "application/zip"


def test_an_end_record_claiming_millions_of_entries_is_refused() -> None:
    from chalicelib.uploads.zipbounds import ArchiveTooLarge, zip_directory

    zip64_end = (
        b"PK\x06\x06"
        + (44).to_bytes(8, "little")
        + bytes(20)
        + (3_000_000).to_bytes(8, "little")
        + (10**9).to_bytes(8, "little")
        + bytes(8)
    )
    locator = b"PK\x06\x07" + bytes(4) + (4).to_bytes(8, "little") + (1).to_bytes(4, "little")
    classic = b"PK\x05\x06" + bytes(6) + b"\xff\xff" + b"\xff\xff\xff\xff" + bytes(6)
    forged = b"PK\x03\x04" + zip64_end + locator + classic
    assert zip_directory(io.BytesIO(forged)) == (3_000_000, 10**9)
    with pytest.raises(ArchiveTooLarge):
        sniff(forged, lambda: io.BytesIO(forged))


@pytest.mark.parametrize("claimed", [3, 0xFFFF], ids=["classic-claims-3", "classic-overflows"])
@pytest.mark.parametrize("zip64", [False, True], ids=["classic", "zip64-decoy"])
def test_an_end_record_that_understates_the_directory_is_refused(claimed: int, zip64: bool) -> None:
    """The cap holds for what zipfile would build, not for what a record claims: the ZIP64
    record zipfile reads (just before its locator, wherever the locator points) and the
    directory's actual entries. Each of these archives was accepted before, and zipfile built
    all 20,001 entries."""
    import tracemalloc

    from chalicelib.uploads.zipbounds import ArchiveTooLarge

    archive = _lying(20_000, claimed, zip64=zip64)
    assert len(zipfile.ZipFile(io.BytesIO(archive)).infolist()) == 20_001  # what zipfile would load
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveTooLarge):
            sniff(archive[:HEAD_SIZE], lambda: io.BytesIO(archive))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(archive), f"peaked at {peak} bytes for a {len(archive)}-byte archive"


def test_the_end_record_is_read_as_zipfile_reads_it() -> None:
    """zip_directory mirrors zipfile's private _EndRecData (Python 3.11): should a new Python
    read end records otherwise, this fails before the cap can drift from what zipfile loads."""
    from chalicelib.uploads.zipbounds import zip_directory

    samples = [
        _zip_with(3),
        _zip_with(0),
        _lying(50, 3, zip64=False),
        _lying(50, 3, zip64=True),
        _lying(50, 0xFFFF, zip64=True),
    ]
    commented = io.BytesIO()
    with zipfile.ZipFile(commented, "w") as archive:
        archive.writestr("a", b"x")
        archive.comment = b"PK\x05\x06 a comment that looks like an end record"
    samples.append(commented.getvalue())
    for sample in samples:
        record = zipfile._EndRecData(io.BytesIO(sample))  # type: ignore[attr-defined]
        assert zip_directory(io.BytesIO(sample)) == (record[4], record[5])
