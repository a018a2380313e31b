"""What a received file is: an e-invoice we accept, found and parsed as hostile input, or a refusal
that names what the file is and what is accepted.

Accepted: a UBL 2.1 Invoice or CreditNote, a UN/CEFACT CII CrossIndustryInvoice (D16B, as XRechnung and
ZUGFeRD 2 / Factur-X carry it), and a PDF carrying one of those as an associated or embedded file
under a name the standards use (factur-x.xml, zugferd-invoice.xml, xrechnung.xml).

The XML is parsed as defusedxml would, by expat with a handler that refuses every declaration, but in
two passes (defusedxml's parser builds the tree in Python, 16 µs an element: 8 s for a hostile half
million): a first pass of bare expat refuses any DTD at all (a DOCTYPE is refused, so no entity,
internal or external, is ever declared or expanded) and counts levels and elements; then ElementTree's
C parser builds the tree. Nothing is fetched from the network; at most MAX_XML_BYTES, MAX_DEPTH levels
and MAX_ELEMENTS elements. A PDF is read by pypdf with every decoder's output bounded, and the
embedded file by MAX_XML_BYTES, whatever its declared size says."""

from __future__ import annotations

import codecs
import io
import logging
import re
import xml.etree.ElementTree as ET
import xml.parsers.expat as expat
from dataclasses import dataclass
from typing import Any, Literal

from chalicelib.einvoice import namespaces

MAX_FILE_BYTES = 30_000_000  # a PDF or an XML file received (an XRechnung may carry attachments in base64)
MAX_XML_BYTES = 20_000_000  # the invoice's XML, bare or inflated out of a PDF
MAX_DEPTH = 64  # levels of elements: a UBL or CII invoice needs about 12
MAX_ELEMENTS = 200_000  # elements of one document (5,000 lines of 40 each): the parse's time and memory
MAX_PDF_FILES = 64  # file specifications looked at in a PDF (associated files and the name tree)
MAX_NAME_TREE_DEPTH = 8  # levels of the PDF's EmbeddedFiles name tree

UBL_INVOICE, UBL_CREDIT_NOTE, CII = namespaces.UBL_INVOICE, namespaces.UBL_CREDIT_NOTE, namespaces.CII

# The names the ZUGFeRD 2 / Factur-X and XRechnung standards give the attached XML, in the order looked for.
ATTACHMENT_NAMES = ("factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml")

ACCEPTED = (
    "an XRechnung or EN 16931 invoice as UBL 2.1 Invoice or CreditNote XML, as UN/CEFACT CII "
    "(CrossIndustryInvoice) XML, or a ZUGFeRD 2 / Factur-X PDF carrying the CII XML "
    f"({', '.join(ATTACHMENT_NAMES)})"
)

Syntax = Literal["ubl", "cii"]
Document = Literal["Invoice", "CreditNote", "CrossIndustryInvoice"]
RefusalCode = Literal["unsupported", "malformed", "too_large", "unsafe"]

logging.getLogger("pypdf").setLevel(logging.ERROR)  # a malformed file's every warning is no news here


class Refused(ValueError):
    """The file is no e-invoice we accept, or not one that may be read. `found` says what it is,
    `code` why: unsupported (a file of another kind: HTTP 415), malformed (400), too_large (413),
    unsafe (a DTD, an entity, too deep: 400). The message names both and what is accepted."""

    STATUS = {"unsupported": 415, "malformed": 400, "too_large": 413, "unsafe": 400}

    def __init__(self, code: RefusalCode, found: str) -> None:
        self.code: RefusalCode = code
        self.found = found
        self.status = self.STATUS[code]
        super().__init__(f"{found}: not accepted; accepted is {ACCEPTED}")


@dataclass(frozen=True)
class Detected:
    """An accepted e-invoice: its syntax and document, where it came from, its XML (as received and
    as text) and the parsed root element."""

    syntax: Syntax
    document: Document
    container: Literal["xml", "pdf"]
    xml: bytes
    xml_text: str
    root: ET.Element
    attachment: str | None = None  # the PDF's file the XML was found in
    customization_id: str | None = None  # BT-24: the specification (EN 16931, XRechnung, a Factur-X profile)


def detect(data: bytes) -> Detected:
    """The e-invoice `data` holds, or `Refused` with what it is."""
    if len(data) > MAX_FILE_BYTES:
        raise Refused("too_large", f"a file of {len(data):,} bytes (at most {MAX_FILE_BYTES:,})")
    if not data.strip():
        raise Refused("malformed", "an empty file")
    head = data[:1024]
    if _looks_like_xml(head):
        return _from_xml(data, container="xml", attachment=None)
    if b"%PDF-" in head:  # a PDF reader accepts junk before the header within its first kilobyte
        return _from_pdf(data)
    raise Refused("unsupported", _kind_of(head))


# --- XML ---------------------------------------------------------------------------------------


class _Unsafe(Exception):
    pass


def _vet(data: bytes) -> None:
    """A first pass of expat over `data` with a handler on every declaration that could define or
    fetch anything: a DOCTYPE (so also any entity or DTD) raises; elements are counted and their
    depth kept. expat calls these handlers from C, a few hundred nanoseconds an element, so a
    hostile file is refused at its first DOCTYPE, at level MAX_DEPTH or at element MAX_ELEMENTS."""
    depth = elements = 0

    def start(name: str, attributes: Any) -> None:
        nonlocal depth, elements
        depth += 1
        elements += 1
        if depth > MAX_DEPTH:
            raise _Unsafe("deep")
        if elements > MAX_ELEMENTS:
            raise _Unsafe("many")

    def end(name: str) -> None:
        nonlocal depth
        depth -= 1

    def declaration(*_: Any) -> None:
        raise _Unsafe("dtd")

    def external(*_: Any) -> int:
        raise _Unsafe("dtd")

    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = declaration
    parser.EntityDeclHandler = declaration
    parser.UnparsedEntityDeclHandler = declaration
    parser.NotationDeclHandler = declaration
    parser.ExternalEntityRefHandler = external
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.Parse(data, True)


def parse_xml(data: bytes) -> ET.Element:
    """The root element of `data`, parsed as hostile input; `Refused` for a DTD or entity (unsafe),
    too many levels (unsafe), too many bytes or elements (too_large), or XML that is not well-formed
    (malformed). Two passes: `_vet`, then ElementTree's C parser builds the tree of what passed (a
    document without a DOCTYPE can declare no entity; expat expands only the five predefined ones)."""
    if len(data) > MAX_XML_BYTES:
        raise Refused("too_large", f"an XML document of {len(data):,} bytes (at most {MAX_XML_BYTES:,})")
    try:
        _vet(data)
        return ET.fromstring(data)
    except _Unsafe as error:
        kind = str(error)
        if kind == "deep":
            raise Refused("unsafe", f"an XML document nested deeper than {MAX_DEPTH} levels") from None
        if kind == "many":
            raise Refused("too_large", f"an XML document of more than {MAX_ELEMENTS:,} elements") from None
        raise Refused("unsafe", "an XML document with a DTD (DOCTYPE), entity or notation declaration") from None
    except (expat.ExpatError, ET.ParseError) as error:
        raise Refused("malformed", f"XML that is not well-formed ({error})") from None


_DECLARED_ENCODING = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def xml_text(data: bytes) -> str:
    """The XML as text, decoded as its byte-order mark or declaration says (UTF-8 by default): how
    the Schematron's processor receives the document expat has already checked."""
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(encoding)
    declared = _DECLARED_ENCODING.match(data.lstrip()[:200])
    encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        return data.decode(encoding)
    except (LookupError, UnicodeDecodeError):
        raise Refused("malformed", f"XML whose bytes are not in its declared encoding {encoding}") from None


def _split(tag: str) -> tuple[str, str]:
    if tag.startswith("{"):
        namespace, _, local = tag[1:].partition("}")
        return namespace, local
    return "", tag


def _from_xml(data: bytes, *, container: Literal["xml", "pdf"], attachment: str | None) -> Detected:
    root = parse_xml(data)
    namespace, local = _split(root.tag)
    syntax: Syntax
    document: Document
    if (namespace, local) == (UBL_INVOICE, "Invoice"):
        syntax, document = "ubl", "Invoice"
        customization = root.findtext(f"{{{namespaces.CBC}}}CustomizationID")
    elif (namespace, local) == (UBL_CREDIT_NOTE, "CreditNote"):
        syntax, document = "ubl", "CreditNote"
        customization = root.findtext(f"{{{namespaces.CBC}}}CustomizationID")
    elif (namespace, local) == (CII, "CrossIndustryInvoice"):
        syntax, document = "cii", "CrossIndustryInvoice"
        ram = f"{{{namespaces.RAM}}}"
        customization = root.findtext(
            f"{{{CII}}}ExchangedDocumentContext/{ram}GuidelineSpecifiedDocumentContextParameter/{ram}ID"
        )
    else:
        where = f" (in {attachment} of a PDF)" if attachment else ""
        raise Refused("unsupported", _xml_kind(namespace, local) + where)
    return Detected(
        syntax=syntax,
        document=document,
        container=container,
        xml=data,
        xml_text=xml_text(data),
        root=root,
        attachment=attachment,
        customization_id=customization.strip() if customization else None,
    )


def _xml_kind(namespace: str, local: str) -> str:
    if namespace.startswith("urn:ferd:CrossIndustryDocument"):
        return "a ZUGFeRD 1.0 invoice (CrossIndustryDocument; ZUGFeRD 2 and Factur-X carry CII CrossIndustryInvoice)"
    if namespace.startswith("urn:oasis:names:specification:ubl:schema:xsd:"):
        return f"a UBL {local} document, not an Invoice or CreditNote"
    if local == "CrossIndustryInvoice":
        return f"a CrossIndustryInvoice of namespace {namespace or 'none'} (accepted: {CII})"
    if local == "html" or namespace == "http://www.w3.org/1999/xhtml":
        return "an HTML page"
    if namespace == "http://www.w3.org/2000/svg":
        return "an SVG image"
    return f"an XML document whose root is {local}" + (f" of namespace {namespace}" if namespace else "")


def _looks_like_xml(head: bytes) -> bool:
    for bom in (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        if head.startswith(bom):
            return True
    return head.lstrip().startswith(b"<")


_MAGIC = (
    (b"PK\x03\x04", "a ZIP archive (or an Office document)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"Rar!", "a RAR archive"),
    (b"7z\xbc\xaf", "a 7-Zip archive"),
    (b"\xd0\xcf\x11\xe0", "an old Office document (OLE)"),
)


def _kind_of(head: bytes) -> str:
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    text = head.lstrip()
    if text[:1] in (b"{", b"["):
        return "a JSON document"
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return "a binary file of an unknown kind"
    return "a text file that is not XML"


# --- PDF ---------------------------------------------------------------------------------------


def _from_pdf(data: bytes) -> Detected:
    from pypdf import PdfReader, apply_configuration  # cold start: pypdf (a quarter second) loads for a PDF only
    from pypdf.errors import LimitReachedError, PyPdfError  # cold start: as above

    try:
        with apply_configuration(
            jbig2dec_binary=None,
            zlib_maximum_output_length=MAX_XML_BYTES,
            lzw_maximum_output_length=MAX_XML_BYTES,
            run_length_maximum_output_length=MAX_XML_BYTES,
            brotli_maximum_output_length=MAX_XML_BYTES,
            image_maximum_buffer_size=MAX_XML_BYTES,
        ):
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                raise Refused("unsupported", "an encrypted PDF")
            names: list[str] = []
            found: tuple[str, Any] | None = None
            for name, spec in _file_specs(reader.trailer["/Root"].get_object()):
                names.append(name)
                if name.casefold() in ATTACHMENT_NAMES and (
                    found is None
                    or ATTACHMENT_NAMES.index(name.casefold()) < ATTACHMENT_NAMES.index(found[0].casefold())
                ):
                    found = (name, spec)
            if found is None:
                attached = f" (its attached files: {', '.join(sorted(set(names))[:10])})" if names else ""
                raise Refused("unsupported", f"a PDF without an embedded e-invoice{attached}")
            name, spec = found
            xml = _embedded_bytes(name, spec)
    except Refused:
        raise
    except LimitReachedError:
        raise Refused("too_large", f"a PDF whose streams inflate past {MAX_XML_BYTES:,} bytes") from None
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        raise Refused("malformed", "a PDF that cannot be read") from None
    return _from_xml(xml, container="pdf", attachment=name)


def _file_specs(catalog: Any) -> list[tuple[str, Any]]:
    """The (name, file specification) pairs of the PDF's associated files (the catalog's /AF, where
    PDF/A-3 and Factur-X put the invoice) and of its EmbeddedFiles name tree; at most MAX_PDF_FILES."""
    found: list[tuple[str, Any]] = []

    def add(name: Any, spec: Any) -> None:
        spec = spec.get_object() if hasattr(spec, "get_object") else spec
        if not hasattr(spec, "get") or len(found) >= MAX_PDF_FILES:
            return
        label = spec.get("/UF") or spec.get("/F") or name
        found.append((str(label), spec))

    for spec in (catalog.get("/AF") or [])[:MAX_PDF_FILES]:
        add(None, spec)
    names = catalog.get("/Names")
    tree = names.get_object().get("/EmbeddedFiles") if names is not None else None
    seen: set[int] = set()

    def walk(node: Any, depth: int) -> None:
        if node is None or depth > MAX_NAME_TREE_DEPTH or len(found) >= MAX_PDF_FILES:
            return
        key = getattr(node, "idnum", None)
        if key is not None:
            if key in seen:
                return
            seen.add(key)
        node = node.get_object()
        pairs = node.get("/Names") or []
        for index in range(0, min(len(pairs), 2 * MAX_PDF_FILES) - 1, 2):
            add(pairs[index], pairs[index + 1])
        for kid in (node.get("/Kids") or [])[:MAX_PDF_FILES]:
            walk(kid, depth + 1)

    walk(tree, 0)
    return found


def _embedded_bytes(name: str, spec: Any) -> bytes:
    embedded = spec.get("/EF")
    stream = embedded.get_object().get("/UF") or embedded.get_object().get("/F") if embedded is not None else None
    if stream is None:
        raise Refused("malformed", f"a PDF whose {name} has no embedded content")
    stream = stream.get_object()
    params = stream.get("/Params")
    declared = params.get_object().get("/Size") if params is not None else None
    if isinstance(declared, int) and declared > MAX_XML_BYTES:
        raise Refused("too_large", f"a PDF whose {name} declares {declared:,} bytes (at most {MAX_XML_BYTES:,})")
    content: bytes = stream.get_data()
    if len(content) > MAX_XML_BYTES:
        raise Refused("too_large", f"a PDF whose {name} holds {len(content):,} bytes (at most {MAX_XML_BYTES:,})")
    return content
