"""Documents: files filed at a location (object, contract, unit, object group, process or
process update). Here documents are read, re-filed, reclassified, deleted and restored, and
the type catalogue is served; uploads (direct and bulk) are in document_uploads.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib import ids
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.document_types import BY_CODE, CATEGORIES, DOCUMENT_TYPES, NODE_TYPES, active_types
from chalicelib.entities import EntityType, by_prefix, declare
from chalicelib.errors import invalid_at
from chalicelib.field_groups import VISIBILITY
from chalicelib.registry import operation
from chalicelib.store.entities import StoredEntity
from chalicelib.uploads import direct

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import DocumentsTypemappingsArgs

LOCATION_TYPES = list(NODE_TYPES)

FIELDS: dict[str, Any] = {
    "locationId": s.ref(
        LOCATION_TYPES,
        "Where the document is filed: an object, contract, unit, object group, process (Vorgang) or process update. "
        "May change to another existing location the document type allows.",
    ),
    "title": s.string(
        "Title shown in lists and the portal, e.g. Nebenkostenabrechnung 2024 Whg. 1.02.", max_length=300
    ),
    "documentType": s.with_words(
        s.checked(
            s.string(
                "Code of the document type (Dokumentart) from documents.typemappings, e.g. leaseContract "
                "(Mietvertrag), utilityStatement (Nebenkostenabrechnung), meetingMinutes (Protokoll der "
                "Eigentümerversammlung).",
                max_length=100,
            )
        ),
        {t.code: (t.name_de, t.name_en) for t in DOCUMENT_TYPES},
    ),
    "category": s.with_words(
        s.checked(
            s.string(
                "Code of the category the document is filed under; "
                "one of its document type's categories (documents.typemappings).",
                max_length=100,
            )
        ),
        CATEGORIES,
    ),
    "documentDate": s.date("Date of the document itself (Belegdatum, Datum des Schreibens), not of the upload."),
    "visibility": s.enum(
        "`internal`: only for the management; `portal`: also shown to residents/owners in the portal.",
        VISIBILITY,
    ),
    **direct.FILE_FIELDS,
}
FIELDS = s.labelled(
    FIELDS,
    {
        "locationId": ("Abgelegt bei", "Filed at"),
        "title": ("Titel", "Title"),
        "documentType": ("Dokumentart", "Document type"),
        "category": ("Dokumentkategorie", "Document category"),
        "documentDate": ("Belegdatum", "Document date"),
        "visibility": ("Sichtbarkeit", "Visibility"),
        "fileName": ("Dateiname", "File name"),
        "contentType": ("Dateityp", "File type"),
        "size": ("Größe (Bytes)", "Size (bytes)"),
        "checksum": ("Prüfsumme (SHA-256)", "Checksum (SHA-256)"),
    },
)
READONLY = direct.FILE_READONLY


def _check(data: dict[str, Any], document_id: str | None) -> None:
    location = data["locationId"]
    code = data.get("documentType")
    category = data.get("category")
    if code is None:
        if category is not None:
            raise invalid_at("document.category", "a category needs a documentType")
        return
    doc_type = BY_CODE.get(code)
    if doc_type is None:
        raise invalid_at(
            "document.documentType", f"unknown document type {code!r}; documents.typemappings lists the valid ones"
        )
    if doc_type.deprecated and document_id is None:
        raise invalid_at("document.documentType", _deprecated_message(code))
    if category is not None and category not in doc_type.categories:
        raise invalid_at(
            "document.category", f"{category!r} is not a category of {code}; allowed: {', '.join(doc_type.categories)}"
        )
    location_type = by_prefix(ids.prefix_of(location))
    if location_type is not None and location_type.name not in doc_type.node_types:
        raise invalid_at(
            "document.locationId",
            f"a {code} document cannot be filed at a {location_type.name}; allowed: {', '.join(doc_type.node_types)}",
        )


def _deprecated_message(code: str) -> str:
    replacement = BY_CODE[code].replaced_by
    return f"document type {code} is deprecated" + (f"; use {replacement}" if replacement else "")


DOCUMENT = declare(
    EntityType(
        name="document",
        plural="documents",
        prefix="doc",
        area="documents",
        fields=FIELDS,
        filters=("locationId",),
        readonly=READONLY,
        required=("locationId",),
        check=_check,
    )
)

DOC = """A document is a file filed at a location: an object, a contract, a unit, an object group, a process
(Vorgang) or a process update. These operations handle its metadata: `title`, `documentType` (Dokumentart,
a code of documents.typemappings: Mietvertrag, Nebenkostenabrechnung, Wirtschaftsplan, Protokoll der
Eigentümerversammlung, ...), `category` (one of the type's categories), `documentDate` (the date of the
document itself) and `visibility` (`portal`: residents and owners see it in the portal; `internal`: only
the management). The file fields `fileName`, `contentType`, `size` (bytes) and `checksum` (SHA-256, hex)
are set by the upload and cannot be changed.

Rules: the document type must be a current (not deprecated) type of the catalogue and the category one of
its categories (400); the location must be of a node type the document type allows (400) and must exist
in the tenant (404). A document stored with a type that has since been deprecated keeps it until its
type is changed."""

declare_list(
    DOCUMENT,
    name="documents.list",
    docs="Lists the documents of the tenant, optionally of one location. " + DOC,
    filters={"locationId": s.ref(LOCATION_TYPES, "Only documents filed at this location.")},
)
declare_show(
    DOCUMENT,
    name="documents.show",
    arg="document",
    docs=DOC + "\n\nThe answer carries `downloadUrl`, a presigned link to the file valid for a few minutes "
    "(documents registered without a file have none).",
    extra=direct.download,
    extra_fields=direct.DOWNLOAD_FIELDS,
)


def _guard(ctx: CallContext, item: StoredEntity, payload: dict[str, Any]) -> None:
    code = payload.get("documentType")
    if code is not None and code in BY_CODE and BY_CODE[code].deprecated:
        raise invalid_at("document.documentType", _deprecated_message(code))


declare_update(
    DOCUMENT,
    name="documents.update",
    arg="document",
    docs=DOC
    + "\n\nMoving a document: send another `locationId`. Reclassifying: send `documentType` and, where the old "
    "category does not fit the new type, `category`.",
    example={
        "title": "Nebenkostenabrechnung 2024",
        "documentType": "utilityStatement",
        "category": "billing",
        "visibility": "portal",
    },
    guard=_guard,
    summary="Change a document's metadata: title, type, category, date, visibility, location.",
)
declare_lifecycle(DOCUMENT, prefix="documents", arg="document")


# --- type catalogue ---------------------------------------------------------------------

NAMED = {"code": s.string("Code."), "nameDe": s.string("German name."), "nameEn": s.string("English name.")}
TYPE_MAPPING = s.obj(
    {
        **NAMED,
        "nodeTypes": s.array(
            s.enum("Location type.", LOCATION_TYPES), "The location types a document of this type may be filed at."
        ),
        "categories": s.array(
            s.obj(NAMED, required=list(NAMED)), "The categories a document of this type may be filed under."
        ),
    },
    required=["code", "nameDe", "nameEn", "nodeTypes", "categories"],
)


def _mapping(code: str) -> dict[str, Any]:
    t = BY_CODE[code]
    return {
        "code": t.code,
        "nameDe": t.name_de,
        "nameEn": t.name_en,
        "nodeTypes": list(t.node_types),
        "categories": [{"code": c, "nameDe": CATEGORIES[c][0], "nameEn": CATEGORIES[c][1]} for c in t.categories],
    }


@operation(
    name="documents.typemappings",
    kind="query",
    summary="The document types valid for the portal, with their location (node) types and categories.",
    docs="""Lists the catalogue of document types (Dokumentarten) a document may have: \
each with its `code` (the value of a
document's `documentType`), German and English name, the `nodeTypes` it may be filed at (object, contract, unit,
objectGroup, process, processUpdate) and its `categories` (the values a document's `category` may take). Examples:
Mietvertrag (`leaseContract`, at a contract or unit), Nebenkostenabrechnung (`utilityStatement`), Wirtschaftsplan,
Jahresabrechnung, Protokoll der Eigentümerversammlung, Energieausweis, Übergabeprotokoll, Rechnung, Mahnung,
Versicherungspolice, Grundriss, Teilungserklärung, Hausordnung, Wartungsvertrag. Deprecated types are left out:
they can no longer be chosen, though documents stored with them keep them.""",
    args=s.obj({}),
    result=s.obj(
        {"typeMappings": s.array(TYPE_MAPPING, "The current document types, in catalogue order.", max_items=1000)},
        required=["typeMappings"],
    ),
    scope="read",
    idempotent=True,
    example={},
)
def typemappings(ctx: CallContext, args: DocumentsTypemappingsArgs) -> dict[str, Any]:
    return {"typeMappings": [_mapping(t.code) for t in active_types()]}
