"""Signatories (Zeichnungsberechtigte): who may sign for a legal person or an object
(Geschäftsführer, Prokurist, Vorstand, Verwaltungsbeirat, ...)."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.declare import declare_create, declare_lifecycle, declare_show, declare_update
from chalicelib.entities import EntityType, Period, declare

ROLES = {
    "managingDirector": ("Geschäftsführer", "Managing director"),
    "authorizedOfficer": ("Prokurist", "Authorised officer (Prokura)"),
    "boardMember": ("Vorstand", "Board member"),
    "advisoryBoard": ("Verwaltungsbeirat", "Advisory board"),
    "owner": ("Eigentümer oder Inhaber", "Owner"),
    "propertyManager": ("Verwalter", "Property manager"),
    "other": ("Sonstige Vollmacht", "Other authority"),
}

FIELDS: dict[str, Any] = {
    "contactId": s.ref("contact", "The person who may sign."),
    "objectId": s.ref(
        "object", "Optional: the object the authority applies to (e.g. for a WEG or a property company's building)."
    ),
    "role": s.enum(
        "Capacity in which the person signs: `managingDirector` Geschäftsführer, `authorizedOfficer` Prokurist, "
        "`boardMember` Vorstand, `advisoryBoard` Verwaltungsbeirat, `owner` Eigentümer / Inhaber, "
        "`propertyManager` Verwalter (with a Verwaltervollmacht), `other` sonstige Vollmacht.",
        ROLES,
    ),
    "authority": s.enum(
        "Power of representation: `sole` einzelvertretungsberechtigt (signs alone), "
        "`joint` gesamtvertretungsberechtigt (signs only together with another).",
        {
            "sole": ("Einzelvertretungsberechtigt", "Sole representation"),
            "joint": ("Gesamtvertretungsberechtigt", "Joint representation"),
        },
    ),
    "validFrom": s.date("First day of the authority (e.g. date of appointment, Handelsregistereintrag)."),
    "validTo": s.date("Last day of the authority; open-ended when absent."),
    "notes": s.text("Free-text notes, e.g. limits of the power of attorney, register number."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "contactId": ("Kontakt", "Contact"),
        "objectId": ("Objekt", "Object"),
        "role": ("Unterzeichnet als", "Signs as"),
        "authority": ("Vertretungsbefugnis", "Power of representation"),
        "validFrom": ("Gültig ab", "Valid from"),
        "validTo": ("Gültig bis", "Valid to"),
        "notes": ("Notizen", "Notes"),
    },
)


SIGNATORY = declare(
    EntityType(
        name="signatory",
        plural="signatories",
        prefix="sig",
        area="signatories",
        fields=FIELDS,
        required=("contactId", "role"),
        periods=(Period("validFrom", "validTo"),),
    )
)

DOC = """A signatory (Zeichnungsberechtigter) is a contact who may sign on behalf of a company, a community
of owners or an object: as Geschäftsführer (`managingDirector`), Prokurist (`authorizedOfficer`), Vorstand
(`boardMember`), Verwaltungsbeirat (`advisoryBoard`), owner or property manager. `authority` says whether
the person signs alone (`sole`, einzelvertretungsberechtigt) or only together with another signatory
(`joint`, gesamtvertretungsberechtigt). `objectId` optionally limits the authority to one object;
`validFrom`/`validTo` bound it in time (`validTo` may not lie before `validFrom`)."""

declare_show(SIGNATORY, name="signatories.show", arg="signatory", docs=DOC)
declare_create(
    SIGNATORY,
    name="signatories.create",
    arg="signatory",
    docs=DOC,
    example={
        "contactId": "<contact id or alias>",
        "role": "managingDirector",
        "authority": "sole",
        "validFrom": "2024-07-01",
    },
    summary="Record who may sign (Zeichnungsberechtigter).",
)
declare_update(SIGNATORY, name="signatories.update", arg="signatory", docs=DOC, example={"authority": "joint"})
declare_lifecycle(SIGNATORY, prefix="signatories", arg="signatory")
