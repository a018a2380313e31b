"""Units: the apartments, shops, parking spaces and storage rooms of an object
(Wohnungseigentum / Teileigentum in a WEG, rental units in a rental building)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import declare_create, declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.entities import EntityType, declare
from chalicelib.errors import invalid_at
from chalicelib.resources.unitgroups import UNIT_GROUP
from chalicelib.store import entities as store

UNIT_TYPES = {
    "apartment": ("Wohnung", "Apartment"),
    "commercial": ("Gewerbeeinheit", "Commercial unit"),
    "parking": ("Stellplatz oder Garage", "Parking space or garage"),
    "storage": ("Keller oder Abstellraum", "Storage room"),
    "other": ("Sonstige", "Other"),
}

FIELDS: dict[str, Any] = {
    "objectId": s.ref("object", "The object (property) the unit belongs to. Fixed after creation."),
    "unitGroupId": s.ref(
        "unitGroup", "The unit group (Haus, Aufgang, Etage, Tiefgarage) of the same object the unit lies in."
    ),
    "number": s.string(
        'The unit number as the manager and the declaration of division use it, e.g. "1.02" or "WE 12".', max_length=50
    ),
    "type": s.enum(
        "`apartment`: Wohnung (Wohnungseigentum / Mietwohnung); "
        "`commercial`: Gewerbeeinheit (Teileigentum, Laden, Büro); "
        "`parking`: Stellplatz or Garage; `storage`: Keller, Abstellraum; `other`: anything else.",
        UNIT_TYPES,
    ),
    "floor": s.integer(
        "Floor (Etage): 0 = Erdgeschoss, 1 = 1. Obergeschoss, negative = Untergeschoss/Keller.",
        minimum=-10,
        maximum=200,
    ),
    "position": s.string('Position on the floor, e.g. "links", "Mitte", "rechts", "Vorderhaus".', max_length=100),
    "area": s.decimal("Living or usable area in m² (Wohnfläche / Nutzfläche)."),
    "rooms": s.decimal('Number of rooms (Zimmer), half rooms allowed, e.g. "2.5".', places=1),
    "coOwnershipShare": s.decimal(
        "MEA: Miteigentumsanteil, the unit's share of the common property per the declaration of division "
        "(Teilungserklärung), counted against `coOwnershipBase`, e.g. 83.25 of 1000.",
        places=4,
    ),
    "coOwnershipBase": s.integer(
        "The MEA denominator (e.g. 1000 or 10000: the shares of all units add up to it).", minimum=1, maximum=1000000000
    ),
    "heatingArea": s.decimal("Heated area in m² used for the heating-cost allocation (beheizte Fläche, HeizkostenV)."),
    "notes": s.text("Free-text notes."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "objectId": ("Objekt", "Object"),
        "unitGroupId": ("Einheitengruppe", "Unit group"),
        "number": ("Einheitsnummer", "Unit number"),
        "type": ("Einheitsart", "Unit type"),
        "floor": ("Etage", "Floor"),
        "position": ("Lage im Geschoss", "Position on the floor"),
        "area": ("Fläche (m²)", "Area (m²)"),
        "rooms": ("Zimmer", "Rooms"),
        "coOwnershipShare": ("Miteigentumsanteil (MEA)", "Co-ownership share"),
        "coOwnershipBase": ("MEA-Basis", "Co-ownership base"),
        "heatingArea": ("Beheizte Fläche (m²)", "Heated area (m²)"),
        "notes": ("Notizen", "Notes"),
    },
)


def _check(data: dict[str, Any], unit_id: str | None) -> None:
    share, base = data.get("coOwnershipShare"), data.get("coOwnershipBase")
    if share is not None and base is not None and Decimal(share) > Decimal(base):
        raise invalid_at("unit.coOwnershipShare", f"the MEA {share} exceeds its base {base}")


def _derive(ctx: CallContext, data: dict[str, Any]) -> None:
    """No derived fields; checks that the unit group lies in the unit's object (one read)."""
    group_id = data.get("unitGroupId")
    if group_id is None or data.get("objectId") is None:
        return
    group = store.get_item(ctx, UNIT_GROUP, group_id, path="unit.unitGroupId")
    if group.data_dict().get("objectId") != data["objectId"]:
        raise invalid_at("unit.unitGroupId", f"unit group {group_id} belongs to another object")


UNIT = declare(
    EntityType(
        name="unit",
        plural="units",
        prefix="uni",
        area="units",
        fields=FIELDS,
        filters=("objectId", "unitGroupId"),
        required=("objectId", "number", "type"),
        check=_check,
        derive=_derive,
    )
)

DOC = """A unit is one part of an object: in a WEG a Wohnungseigentum (`type: apartment`) or Teileigentum
(`commercial`, `parking`, `storage`), in a rental building a rentable unit. `number` is the unit number of
the declaration of division or the manager's numbering ("1.02", "WE 12"). `floor` counts from the ground
floor (0 = Erdgeschoss, negative = basement), `position` says where on the floor ("links", "Mitte").
`area` is the Wohn-/Nutzfläche, `heatingArea` the area used for heating-cost allocation, `rooms` the number
of rooms ("2.5"); all areas are decimal strings in m².

`coOwnershipShare` is the MEA (Miteigentumsanteil), up to 4 decimal places, and `coOwnershipBase` its
denominator (1000, 10000): the share may not exceed its base. `unitGroupId` places the unit in a unit group
(Haus, Aufgang, Etage, Tiefgarage) that must belong to the same object. `objectId` is fixed once created.
Contracts (leases, ownerships) reference units, so a unit with live contracts cannot be deleted, and an
object with live units cannot be deleted either."""

declare_list(
    UNIT,
    name="units",
    docs="Lists the units of the tenant, optionally only those of one object. " + DOC,
    filters={"objectId": s.ref("object", "Only units of this object.")},
)
declare_show(UNIT, name="units.show", arg="unit", docs=DOC)
declare_create(
    UNIT,
    name="units.create",
    arg="unit",
    docs=DOC,
    example={
        "objectId": "<object id or alias>",
        "number": "1.02",
        "type": "apartment",
        "floor": 1,
        "position": "links",
        "area": "74.35",
        "rooms": "2.5",
        "coOwnershipShare": "83.25",
        "coOwnershipBase": 1000,
    },
)
declare_update(
    UNIT,
    name="units.update",
    arg="unit",
    docs=DOC + "\n\n`objectId` cannot change; create a new unit instead.",
    example={"area": "75.10"},
    immutable=("objectId",),
)
declare_lifecycle(UNIT, prefix="units", arg="unit")
