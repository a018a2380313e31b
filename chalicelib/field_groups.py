"""Field groups that several resources share (postal address, e-mails, phones)."""

from __future__ import annotations

from chalicelib import schemas as s

COUNTRY = {
    "type": "string",
    "maxLength": 2,
    "pattern": "^[A-Z]{2}$",
    "description": "ISO 3166-1 alpha-2 country code, e.g. DE.",
}

POSTAL_ADDRESS = s.obj(
    {
        "street": s.string("Street name, e.g. Musterstraße."),
        "houseNumber": s.string("House number with suffix, e.g. 12a.", max_length=20),
        "addition": s.string("Address addition: c/o, floor, building part.", max_length=200),
        "postalCode": s.string("Postal code (PLZ), e.g. 10115.", max_length=20),
        "city": s.string("City, e.g. Berlin."),
        "countryCode": COUNTRY,
    },
    required=["street", "postalCode", "city"],
    description="Postal address.",
)

# Who sees an entry: documents, UVIs, process updates.
VISIBILITY = {"internal": ("Nur intern", "Internal only"), "portal": ("Auch im Portal", "Also in the portal")}

EMAIL = s.obj(
    {
        "address": s.email("E-mail address."),
        "type": s.enum(
            "Kind of address.",
            {"private": ("Privat", "Private"), "work": ("Geschäftlich", "Work"), "other": ("Sonstige", "Other")},
        ),
        "primary": s.boolean("The address to use first."),
    },
    required=["address"],
)

PHONE = s.obj(
    {
        "number": {
            "type": "string",
            "maxLength": 31,
            "pattern": r"^\+?[0-9 ()/.-]{3,30}$",
            "description": "Phone number, preferably E.164 (+49 30 1234567).",
        },
        "type": s.enum(
            "Kind of number.",
            {
                "mobile": ("Mobil", "Mobile"),
                "landline": ("Festnetz", "Landline"),
                "fax": ("Fax", "Fax"),
                "other": ("Sonstige", "Other"),
            },
        ),
        "primary": s.boolean("The number to call first."),
    },
    required=["number"],
)
