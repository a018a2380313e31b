"""Object groups: named sets of objects (a portfolio, the objects of one owner, a region)."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.declare import declare_create, declare_lifecycle, declare_show, declare_update
from chalicelib.entities import EntityType, declare

# Every member is a reference: the store writes one edge per member, plus a liveness check
# per newly added member, in the single transaction of the write (at most 100 items). An
# update that replaces every member needs 1 + 3 * n items, so n stays at 33.
MAX_OBJECTS = 33

FIELDS: dict[str, Any] = {
    "name": s.string(
        'Display name, e.g. "Portfolio Nord", "Objekte Familie Schmidt", "Region Rhein-Main".', max_length=300
    ),
    "description": s.text("What the group is for."),
    "objectIds": {
        **s.array(
            s.ref("object", "A member object."),
            f"The objects in the group, each at most once (up to {MAX_OBJECTS}).",
            max_items=MAX_OBJECTS,
        ),
        "uniqueItems": True,
    },
    "type": s.enum(
        "`portfolio`: Bestand / Portfolio of an investor or a manager's team; "
        "`owner`: the objects of one owner (Eigentümer); "
        "`region`: a region or branch office (Niederlassung); `other`: any other grouping.",
        {
            "portfolio": ("Portfolio (Bestand)", "Portfolio"),
            "owner": ("Objekte eines Eigentümers", "One owner's objects"),
            "region": ("Region oder Niederlassung", "Region or branch office"),
            "other": ("Sonstige", "Other"),
        },
    ),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "name": ("Name", "Name"),
        "description": ("Beschreibung", "Description"),
        "objectIds": ("Objekte", "Objects"),
        "type": ("Art der Objektgruppe", "Object group type"),
    },
)


OBJECT_GROUP = declare(
    EntityType(
        name="objectGroup", plural="objectGroups", prefix="ogr", area="objects", fields=FIELDS, required=("name",)
    )
)

DOC = f"""An object group is a named set of the tenant's objects: a portfolio (`type: portfolio`, Bestand), the
objects of one owner (`owner`), a region or branch (`region`) or any other grouping (`other`). `objectIds`
lists the members (ids or aliases on input, each at most once, up to {MAX_OBJECTS}); every member must be a live
object of the tenant, else 404 at its path. An object may belong to several groups. While an object is a
member of a live group it cannot be deleted: remove it from the group (update `objectIds`) first. On update,
`objectIds` replaces the whole list. Documents can be located at an object group."""

declare_show(OBJECT_GROUP, name="objectgroups.show", arg="objectGroup", docs=DOC)
declare_create(
    OBJECT_GROUP,
    name="objectgroups.create",
    arg="objectGroup",
    docs=DOC,
    example={"name": "Portfolio Nord", "type": "portfolio", "objectIds": ["<object id or alias>"]},
)
declare_update(
    OBJECT_GROUP,
    name="objectgroups.update",
    arg="objectGroup",
    docs=DOC,
    example={"objectIds": ["<object id or alias>"]},
)
declare_lifecycle(OBJECT_GROUP, prefix="objectgroups", arg="objectGroup")
