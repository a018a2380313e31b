"""Object addresses: the addresses of an object (a corner building with two entrances, a separate
postal or delivery address)."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.declare import declare_create, declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.entities import EntityType, declare
from chalicelib.field_groups import POSTAL_ADDRESS

FIELDS: dict[str, Any] = {
    "objectId": s.ref("object", "The object the address belongs to. Fixed after creation."),
    **POSTAL_ADDRESS["properties"],
    "type": s.enum(
        "`main`: Hauptadresse; `additional`: further address of the same object "
        "(Nebenadresse, e.g. a second house number or entrance of a corner building); "
        "`postal`: Postanschrift (where mail for the object goes); `delivery`: Lieferadresse.",
        {
            "main": ("Hauptadresse", "Main address"),
            "additional": ("Nebenadresse", "Additional address"),
            "postal": ("Postanschrift", "Postal address"),
            "delivery": ("Lieferadresse", "Delivery address"),
        },
    ),
    "isPrimary": s.boolean("The address to show and use first for the object."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "objectId": ("Objekt", "Object"),
        "street": ("Straße", "Street"),
        "houseNumber": ("Hausnummer", "House number"),
        "addition": ("Adresszusatz", "Address addition"),
        "postalCode": ("Postleitzahl", "Postal code"),
        "city": ("Ort", "City"),
        "countryCode": ("Land", "Country"),
        "type": ("Adressart", "Address type"),
        "isPrimary": ("Bevorzugte Adresse", "Primary address"),
    },
)


OBJECT_ADDRESS = declare(
    EntityType(
        name="objectAddress",
        plural="objectAddresses",
        prefix="oad",
        area="objects",
        fields=FIELDS,
        filters=("objectId",),
        required=("objectId", "street", "postalCode", "city"),
    )
)

DOC = """An object address is one address of an object: an object at a street corner or with several house
numbers has several (`type: main` for the Hauptadresse, `additional` for the others); `postal` is the
Postanschrift and `delivery` a Lieferadresse. `street`, `postalCode` (PLZ) and `city` are required,
`houseNumber` carries suffixes ("12a"), `addition` takes c/o, Hinterhaus, Aufgang; `countryCode` is ISO 3166-1
alpha-2 (DE). `isPrimary` marks the address to use first. `objectId` is fixed once created. The object's own
`address` field stays its display address; object addresses add the further ones."""

declare_list(
    OBJECT_ADDRESS,
    name="objectaddresses.list",
    docs="Lists the object addresses of the tenant, optionally only those of one object. " + DOC,
    filters={"objectId": s.ref("object", "Only addresses of this object.")},
)
declare_show(OBJECT_ADDRESS, name="objectaddresses.show", arg="objectAddress", docs=DOC)
declare_create(
    OBJECT_ADDRESS,
    name="objectaddresses.create",
    arg="objectAddress",
    docs=DOC,
    example={
        "objectId": "<object id or alias>",
        "street": "Lindenallee",
        "houseNumber": "3a",
        "postalCode": "50968",
        "city": "Köln",
        "countryCode": "DE",
        "type": "additional",
        "isPrimary": False,
    },
)
declare_update(
    OBJECT_ADDRESS,
    name="objectaddresses.update",
    arg="objectAddress",
    docs=DOC,
    example={"houseNumber": "3b"},
    immutable=("objectId",),
)
declare_lifecycle(OBJECT_ADDRESS, prefix="objectaddresses", arg="objectAddress")
