"""Contacts: natural persons (tenants, owners, staff) and legal persons (companies,
owner communities, service providers)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import declare_create, declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.entities import EntityType, declare
from chalicelib.errors import Conflict, invalid_at
from chalicelib.field_groups import EMAIL, PHONE, POSTAL_ADDRESS
from chalicelib.registry import Operation, register
from chalicelib.store import entities as store
from chalicelib.store import merges

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import ContactsMergeArgs

PERSON_TYPES = {"natural": ("Natürliche Person", "Natural person"), "legal": ("Juristische Person", "Legal person")}

FIELDS: dict[str, Any] = {
    "personType": s.enum(
        "`natural` for a person, `legal` for a company, community of owners or authority.", PERSON_TYPES
    ),
    "salutation": s.enum(
        "Salutation: Herr (`mr`), Frau (`ms`), divers (`mx`), family, company, or none.",
        {
            "mr": ("Herr", "Mr"),
            "ms": ("Frau", "Ms"),
            "mx": ("Divers", "Mx"),
            "family": ("Familie", "Family"),
            "company": ("Firma", "Company"),
            "none": ("Keine Anrede", "No salutation"),
        },
    ),
    "title": s.string("Academic or honorary title, e.g. Dr., Prof.", max_length=50),
    "firstName": s.string("First name (natural persons)."),
    "lastName": s.string("Last name (natural persons: required)."),
    "companyName": s.string("Company name (legal persons: required), e.g. Hausverwaltung Muster GmbH.", max_length=300),
    "legalForm": s.string("Legal form, e.g. GmbH, AG, GbR, KG, e.V., WEG.", max_length=50),
    "companyId": s.ref("contact", "The legal person (company) this contact belongs to."),
    "emails": s.array(EMAIL, "E-mail addresses.", max_items=20),
    "phones": s.array(PHONE, "Phone numbers.", max_items=20),
    "address": POSTAL_ADDRESS,
    "language": {
        "type": "string",
        "maxLength": 2,
        "pattern": "^[a-z]{2}$",
        "description": "Preferred correspondence language, ISO 639-1 (de, en, tr, ...).",
    },
    "dateOfBirth": s.date("Date of birth (natural persons)."),
    "vatId": {
        "type": "string",
        "maxLength": 15,
        "pattern": "^[A-Z]{2}[0-9A-Z]{2,13}$",
        "description": "VAT identification number (USt-IdNr.), e.g. DE123456789.",
    },
    "notes": s.text("Free-text notes."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "personType": ("Personenart", "Kind of person"),
        "salutation": ("Anrede", "Salutation"),
        "title": ("Titel", "Title"),
        "firstName": ("Vorname", "First name"),
        "lastName": ("Nachname", "Last name"),
        "companyName": ("Firmenname", "Company name"),
        "legalForm": ("Rechtsform", "Legal form"),
        "companyId": ("Firma", "Company"),
        "emails": ("E-Mail-Adressen", "E-mail addresses"),
        "emails.address": ("E-Mail-Adresse", "E-mail address"),
        "emails.type": ("Art der E-Mail-Adresse", "E-mail address type"),
        "emails.primary": ("Bevorzugte Adresse", "Primary address"),
        "phones": ("Telefonnummern", "Phone numbers"),
        "phones.number": ("Telefonnummer", "Phone number"),
        "phones.type": ("Art des Anschlusses", "Phone type"),
        "phones.primary": ("Bevorzugte Nummer", "Primary number"),
        "address": ("Adresse", "Address"),
        "street": ("Straße", "Street"),
        "houseNumber": ("Hausnummer", "House number"),
        "addition": ("Adresszusatz", "Address addition"),
        "postalCode": ("Postleitzahl", "Postal code"),
        "city": ("Ort", "City"),
        "countryCode": ("Land", "Country"),
        "language": ("Sprache", "Language"),
        "dateOfBirth": ("Geburtsdatum", "Date of birth"),
        "vatId": ("USt-IdNr.", "VAT ID"),
        "notes": ("Notizen", "Notes"),
    },
)


def _check(data: dict[str, Any], contact_id: str | None) -> None:
    kind = data.get("personType")
    if kind == "natural" and not data.get("lastName"):
        raise invalid_at("contact.lastName", "a natural person needs a lastName")
    if kind == "legal" and not data.get("companyName"):
        raise invalid_at("contact.companyName", "a legal person needs a companyName")


CONTACT = declare(
    EntityType(
        name="contact",
        plural="contacts",
        prefix="con",
        area="contacts",
        fields=FIELDS,
        filters=("companyId", "personType"),
        required=("personType",),
        check=_check,
    )
)

FIELDS_DOC = """A contact is a natural person (`personType: natural`: tenant, owner, staff member, tradesperson)
or a legal person (`personType: legal`: property company, community of owners, service provider).
Natural persons need `lastName`, legal persons `companyName`. `companyId` links a person to the legal
person it belongs to (the contact must exist in the tenant)."""

declare_list(
    CONTACT,
    name="contacts",
    docs="Lists contacts. " + FIELDS_DOC,
    filters={
        "companyId": s.ref("contact", "Only contacts that belong to this company."),
        "personType": s.enum("Only natural or only legal persons.", PERSON_TYPES),
    },
)
declare_show(CONTACT, name="contacts.show", arg="contact", docs=FIELDS_DOC)
declare_create(
    CONTACT,
    name="contacts.create",
    arg="contact",
    docs=FIELDS_DOC,
    example={
        "personType": "natural",
        "salutation": "ms",
        "firstName": "Erika",
        "lastName": "Mustermann",
        "emails": [{"address": "erika@example.org", "type": "private", "primary": True}],
        "address": {
            "street": "Musterstraße",
            "houseNumber": "12a",
            "postalCode": "10115",
            "city": "Berlin",
            "countryCode": "DE",
        },
        "language": "de",
    },
)
declare_update(
    CONTACT,
    name="contacts.update",
    arg="contact",
    docs=FIELDS_DOC,
    example={"phones": [{"number": "+49 30 1234567", "type": "mobile"}]},
)
declare_lifecycle(CONTACT, prefix="contacts", arg="contact")


# --- merge ------------------------------------------------------------------------------


def merge(ctx: CallContext, args: ContactsMergeArgs) -> dict[str, Any]:
    source_id, target_id = args["sourceContact"], args["targetContact"]
    if source_id == target_id:
        raise Conflict("A contact cannot be merged into itself.", code=codes.MERGE_INTO_SELF)
    store.get_item(ctx, CONTACT, source_id, path="sourceContact")
    store.get_item(ctx, CONTACT, target_id, path="targetContact")
    moved_refs = store.repoint_inbound(ctx, source_id, target_id)
    source = store.get_item(ctx, CONTACT, source_id, path="sourceContact")
    target = store.get_item(ctx, CONTACT, target_id, path="targetContact")
    # The caller learns only its own aliases' count: other integrations' move too, but are theirs to know.
    moved_aliases = merges.merge_into(ctx, CONTACT, source, target).get(ctx.integration_key, set())
    return {
        "contact": store.to_wire(ctx, store.get_item(ctx, CONTACT, target_id)),
        "merge": {
            "sourceContact": source_id,
            "targetContact": target_id,
            "movedReferences": moved_refs,
            "movedAliases": len(moved_aliases),
        },
    }


register(
    Operation(
        name="contacts.merge",
        kind="command",
        summary=(
            "Merge a duplicate contact into another: references and aliases move to the target, "
            "the source is soft-deleted."
        ),
        docs="""Merges `sourceContact` into `targetContact`. Every live entity that references the source (a person's
`companyId`, contract parties, responsibilities, bank data, ...) is repointed to the target; \
every alias of the source (of every integration) now names the
target; the source is soft-deleted (marked `mergedInto`) and answers 404 from then on. The target's own
fields stay as they are. Answers 200 with the target. Merging a contact into itself is refused (409).
Merge payloads are reference-only: ids or aliases, no fields.""",
        args=s.obj(
            {
                "sourceContact": s.ref("contact", "The duplicate, soft-deleted by the merge."),
                "targetContact": s.ref("contact", "The contact that remains."),
            },
            required=["sourceContact", "targetContact"],
        ),
        result=s.obj(
            {
                "contact": s.entity_output(FIELDS, "The target after the merge."),
                "merge": s.obj(
                    {
                        "sourceContact": s.string("Id of the merged (now deleted) contact."),
                        "targetContact": s.string("Id of the remaining contact."),
                        "movedReferences": s.integer("Entities repointed from source to target."),
                        "movedAliases": s.integer(
                            "The caller's own aliases (of its integration) that now name the target."
                        ),
                    }
                ),
            },
            required=["contact", "merge"],
        ),
        handler=merge,
        scope="write:contacts",
        destructive=True,
        errors=(codes.MERGE_INTO_SELF, (codes.STALE_VERSION, "either contact changed during the merge; retry.")),
        example={"sourceContact": "<id or alias>", "targetContact": "<id or alias>"},
    )
)
