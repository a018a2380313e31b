"""Responsibilities (Zuständigkeiten): which contact does which job for an object
(Objektbetreuer, Buchhalter, Hausmeister, Wartungsfirma, ...)."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.declare import declare_create, declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.entities import EntityType, Period, declare

JOB_CATEGORIES = {
    "propertyManager": ("Objektbetreuung", "Property manager"),
    "accountant": ("Buchhaltung", "Accountant"),
    "caretaker": ("Hausmeister", "Caretaker"),
    "technician": ("Haustechnik", "Building technician"),
    "cleaning": ("Gebäudereinigung", "Cleaning"),
    "winterService": ("Winterdienst", "Winter service"),
    "gardening": ("Gartenpflege", "Gardening"),
    "elevator": ("Aufzugswartung", "Lift maintenance"),
    "heating": ("Heizungswartung", "Heating maintenance"),
    "insurance": ("Versicherungsbetreuung", "Insurance"),
    "other": ("Sonstige Zuständigkeit", "Other job"),
}

CATEGORY_DOC = (
    "Job category: `propertyManager` Objektbetreuer / Verwalter, `accountant` Buchhalter, `caretaker` Hausmeister, "
    "`technician` Haustechniker, `cleaning` Treppenhausreinigung / Gebäudereinigung, `winterService` Winterdienst, "
    "`gardening` Gartenpflege, `elevator` Aufzugswartung, `heating` Heizungswartung / Heizungsbauer, "
    "`insurance` Versicherungsbetreuer / Makler, `other` sonstige Zuständigkeit."
)

FIELDS: dict[str, Any] = {
    "contactId": s.ref(
        "contact",
        "The contact who does the job (staff member or service provider). From the `contact` argument on creation.",
    ),
    "objectId": s.ref("object", "The object the job is done for. From the `object` argument on creation."),
    "categoryId": s.enum(CATEGORY_DOC, JOB_CATEGORIES),
    "validFrom": s.date("First day of the responsibility (e.g. start of the Hausmeistervertrag)."),
    "validTo": s.date("Last day of the responsibility; open-ended when absent."),
    "notes": s.text("Free-text notes, e.g. on-call hours, contract number."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "contactId": ("Kontakt", "Contact"),
        "objectId": ("Objekt", "Object"),
        "categoryId": ("Aufgabenbereich", "Job category"),
        "validFrom": ("Gültig ab", "Valid from"),
        "validTo": ("Gültig bis", "Valid to"),
        "notes": ("Notizen", "Notes"),
    },
)


RESPONSIBILITY = declare(
    EntityType(
        name="responsibility",
        plural="responsibilities",
        prefix="rsp",
        area="responsibilities",
        fields=FIELDS,
        filters=("objectId", "contactId", "categoryId"),
        required=("contactId", "objectId", "categoryId"),
        periods=(Period("validFrom", "validTo"),),
    )
)

DOC = """A responsibility (Zuständigkeit) says which contact does which job (`categoryId`) for an object: the
Objektbetreuer (`propertyManager`) and Buchhalter (`accountant`) of the management, the Hausmeister
(`caretaker`), the cleaning, winter-service, gardening, elevator or heating company, the insurance broker.
`validFrom`/`validTo` bound it in time (`validTo` may not lie before `validFrom`); without `validTo` it is
open-ended. An object may have several responsibilities of the same category (e.g. two caretakers)."""

declare_list(
    RESPONSIBILITY,
    name="responsibilities.list",
    docs="Lists responsibilities, optionally of one contact, one object or one job category. " + DOC,
    filters={
        "contactId": s.ref("contact", "Only responsibilities of this contact."),
        "objectId": s.ref("object", "Only responsibilities for this object."),
        "categoryId": s.enum("Only this job category.", JOB_CATEGORIES),
    },
)
declare_show(RESPONSIBILITY, name="responsibilities.show", arg="responsibility", docs=DOC)
declare_create(
    RESPONSIBILITY,
    name="responsibilities.create",
    arg="responsibility",
    docs=DOC + "\n\nThe contact and the object come as the separate `contact` and `object` arguments (id or alias).",
    parents={"contact": "contactId", "object": "objectId"},
    example={"categoryId": "caretaker", "validFrom": "2025-01-01", "notes": "Mo-Fr 7-16 Uhr, Notdienst über Zentrale."},
    summary="Make a contact responsible for a job at an object.",
)
declare_update(
    RESPONSIBILITY,
    name="responsibilities.update",
    arg="responsibility",
    docs=DOC + "\n\n`contactId` and `objectId` may change (e.g. a new caretaker takes over the same entry).",
    example={"validTo": "2025-12-31"},
)
declare_lifecycle(RESPONSIBILITY, prefix="responsibilities", arg="responsibility")
