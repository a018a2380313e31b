"""The document type catalogue: which kinds of documents a property manager files, where they may
be attached (node types) and under which categories they appear in the portal.

Data only; documents.py validates against it and serves it as `documents.typemappings`.
Deprecated types stay in the data (documents stored with them remain readable) but are not
offered any more and cannot be chosen for a document."""

from __future__ import annotations

from dataclasses import dataclass

# Location (node) types a document can be attached to: the entity types of documents' locationId.
NODE_TYPES = ("object", "contract", "unit", "objectGroup", "process", "processUpdate")

# Category code -> (German name, English name).
CATEGORIES: dict[str, tuple[str, str]] = {
    "contracts": ("Verträge", "Contracts"),
    "billing": ("Abrechnungen", "Statements"),
    "finance": ("Finanzen und Buchhaltung", "Finance and accounting"),
    "meetings": ("Versammlungen und Beschlüsse", "Meetings and resolutions"),
    "technical": ("Technik und Wartung", "Technical and maintenance"),
    "legal": ("Recht", "Legal"),
    "insurance": ("Versicherungen", "Insurance"),
    "correspondence": ("Korrespondenz", "Correspondence"),
    "plans": ("Pläne und Baudokumentation", "Plans and building records"),
    "handover": ("Übergaben", "Handovers"),
    "photos": ("Fotos", "Photos"),
}


@dataclass(frozen=True)
class DocumentType:
    code: str
    name_de: str
    name_en: str
    node_types: tuple[str, ...]
    categories: tuple[str, ...]
    deprecated: bool = False
    replaced_by: str | None = None


ALL_NODES = NODE_TYPES
CASE_NODES = ("object", "unit", "contract", "process", "processUpdate")

DOCUMENT_TYPES: tuple[DocumentType, ...] = (
    DocumentType(
        "managementContract",
        "Verwaltervertrag",
        "Property management agreement",
        ("object", "objectGroup"),
        ("contracts",),
    ),
    DocumentType(
        "maintenanceContract",
        "Wartungsvertrag",
        "Maintenance contract",
        ("object", "objectGroup"),
        ("contracts", "technical"),
    ),
    DocumentType("leaseContract", "Mietvertrag", "Lease agreement", ("contract", "unit"), ("contracts",)),
    DocumentType("leaseAmendment", "Nachtrag zum Mietvertrag", "Lease amendment", ("contract",), ("contracts",)),
    DocumentType(
        "utilityStatement",
        "Nebenkostenabrechnung",
        "Service charge statement",
        ("contract", "unit", "object"),
        ("billing", "finance"),
    ),
    DocumentType(
        "heatingCostStatement",
        "Heizkostenabrechnung",
        "Heating cost statement",
        ("contract", "unit", "object"),
        ("billing", "finance"),
    ),
    DocumentType(
        "economicPlan",
        "Wirtschaftsplan",
        "Annual budget (economic plan)",
        ("object", "objectGroup", "unit"),
        ("finance", "meetings"),
    ),
    DocumentType(
        "annualStatement",
        "Jahresabrechnung",
        "Annual statement of accounts",
        ("object", "objectGroup", "unit"),
        ("finance", "billing"),
    ),
    DocumentType(
        "meetingInvitation",
        "Einladung zur Eigentümerversammlung",
        "Invitation to the owners' meeting",
        ("object", "objectGroup"),
        ("meetings", "correspondence"),
    ),
    DocumentType(
        "meetingMinutes",
        "Protokoll der Eigentümerversammlung",
        "Minutes of the owners' meeting",
        ("object", "objectGroup"),
        ("meetings", "legal"),
    ),
    DocumentType(
        "resolutionCollection", "Beschlusssammlung", "Collection of resolutions", ("object",), ("meetings", "legal")
    ),
    DocumentType(
        "energyCertificate", "Energieausweis", "Energy performance certificate", ("object", "unit"), ("technical",)
    ),
    DocumentType(
        "handoverProtocol", "Übergabeprotokoll", "Handover report", ("unit", "contract"), ("handover", "contracts")
    ),
    DocumentType("invoice", "Rechnung", "Invoice", CASE_NODES, ("finance",)),
    DocumentType(
        "dunningLetter",
        "Mahnung",
        "Payment reminder",
        ("contract", "process", "processUpdate"),
        ("finance", "correspondence", "legal"),
    ),
    DocumentType(
        "offer",
        "Angebot / Kostenvoranschlag",
        "Quotation",
        ("object", "unit", "process", "processUpdate"),
        ("technical", "finance"),
    ),
    DocumentType(
        "maintenanceReport",
        "Wartungs- und Prüfprotokoll",
        "Maintenance and inspection report",
        ("object", "unit", "process", "processUpdate"),
        ("technical",),
    ),
    DocumentType(
        "insurancePolicy",
        "Versicherungspolice",
        "Insurance policy",
        ("object", "objectGroup"),
        ("insurance", "contracts"),
    ),
    DocumentType(
        "damageReport",
        "Schadensmeldung",
        "Damage report",
        ("object", "unit", "process", "processUpdate"),
        ("insurance", "technical"),
    ),
    DocumentType("floorPlan", "Grundriss", "Floor plan", ("object", "unit", "objectGroup"), ("plans",)),
    DocumentType(
        "declarationOfDivision", "Teilungserklärung", "Declaration of division", ("object",), ("legal", "plans")
    ),
    DocumentType("landRegisterExtract", "Grundbuchauszug", "Land register extract", ("object", "unit"), ("legal",)),
    DocumentType("houseRules", "Hausordnung", "House rules", ("object", "objectGroup"), ("legal", "correspondence")),
    DocumentType("letter", "Schreiben", "Letter", ALL_NODES, ("correspondence",)),
    DocumentType("photo", "Foto", "Photo", ALL_NODES, ("photos", "technical")),
    # Deprecated: kept so stored documents stay readable; not offered, not selectable.
    DocumentType(
        "operatingCostStatement",
        "Betriebskostenabrechnung (alt)",
        "Operating cost statement (legacy)",
        ("contract", "unit"),
        ("billing",),
        deprecated=True,
        replaced_by="utilityStatement",
    ),
    DocumentType(
        "tenantSelfDisclosure",
        "Mieterselbstauskunft",
        "Tenant self-disclosure",
        ("contract", "unit"),
        ("contracts",),
        deprecated=True,
    ),
    DocumentType("fax", "Telefax", "Fax", ALL_NODES, ("correspondence",), deprecated=True, replaced_by="letter"),
)

BY_CODE: dict[str, DocumentType] = {t.code: t for t in DOCUMENT_TYPES}


def active_types() -> list[DocumentType]:
    return [t for t in DOCUMENT_TYPES if not t.deprecated]


def _consistent() -> None:
    for t in DOCUMENT_TYPES:
        if not set(t.node_types) <= set(NODE_TYPES) or not set(t.categories) <= set(CATEGORIES) or not t.categories:
            raise ValueError(f"document type {t.code}: unknown node type or category")
        if t.replaced_by is not None and (t.replaced_by not in BY_CODE or BY_CODE[t.replaced_by].deprecated):
            raise ValueError(f"document type {t.code}: replaced_by must name an active type")
    if len(BY_CODE) != len(DOCUMENT_TYPES):
        raise ValueError("document type codes must be unique")


_consistent()
