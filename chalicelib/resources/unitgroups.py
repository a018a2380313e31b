"""Unit groups: how the units of an object are grouped (Haus, Aufgang, Etage, Tiefgarage)."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.declare import declare_create, declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.entities import EntityType, declare

GROUP_TYPES = {
    "building": ("Gebäude", "Building"),
    "staircase": ("Treppenhaus", "Staircase"),
    "floor": ("Etage", "Floor"),
    "garage": ("Tiefgarage oder Garagenhof", "Garage"),
    "other": ("Sonstige", "Other"),
}

FIELDS: dict[str, Any] = {
    "objectId": s.ref("object", "The object the group belongs to. Fixed after creation."),
    "name": s.string('Display name, e.g. "Haus A", "Aufgang Musterstraße 12b", "Tiefgarage".'),
    "type": s.enum(
        "`building`: Haus / Gebäude of a multi-building object; `staircase`: Treppenhaus / Aufgang; `floor`: Etage; "
        "`garage`: Tiefgarage or garage block; `other`: any other grouping.",
        GROUP_TYPES,
    ),
    "notes": s.text("Free-text notes."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "objectId": ("Objekt", "Object"),
        "name": ("Name", "Name"),
        "type": ("Art der Einheitengruppe", "Unit group type"),
        "notes": ("Notizen", "Notes"),
    },
)


UNIT_GROUP = declare(
    EntityType(
        name="unitGroup",
        plural="unitGroups",
        prefix="ugr",
        area="objects",
        fields=FIELDS,
        filters=("objectId",),
        required=("objectId", "name"),
    )
)

DOC = """A unit group bundles units of one object: a building (`type: building`, Haus) of a multi-building
WEG, a staircase (`staircase`, Treppenhaus / Aufgang), a floor (`floor`, Etage) or an underground car park
(`garage`, Tiefgarage). Units name their group in `unitGroupId`; the group must belong to the unit's
object. `objectId` is fixed once created. A group with live units cannot be deleted."""

declare_list(
    UNIT_GROUP,
    name="unitgroups.listforobject",
    docs="Lists the unit groups of one object (`object`: id or alias), in creation order. " + DOC,
    filters={"object": s.ref("object", "The object whose unit groups to list.")},
    fields={"object": "objectId"},
    required_filters=("object",),
    paging_required=False,
    summary="List the unit groups of an object.",
)
declare_show(UNIT_GROUP, name="unitgroups.show", arg="unitGroup", docs=DOC)
declare_create(
    UNIT_GROUP,
    name="unitgroups.create",
    arg="unitGroup",
    docs=DOC,
    example={"objectId": "<object id or alias>", "name": "Haus A", "type": "building"},
)
declare_update(
    UNIT_GROUP,
    name="unitgroups.update",
    arg="unitGroup",
    docs=DOC,
    example={"name": "Haus A (Vorderhaus)"},
    immutable=("objectId",),
)
declare_lifecycle(UNIT_GROUP, prefix="unitgroups", arg="unitGroup")
