"""Posts (Aushänge / Mitteilungen): notices to the residents of an object, shown in the portal."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.declare import declare_create, declare_lifecycle, declare_show, declare_update
from chalicelib.entities import EntityType, Period, declare

FIELDS: dict[str, Any] = {
    "objectId": s.ref("object", "The object whose residents see the post."),
    "title": s.string("Headline, e.g. Wasserabstellung am 12.03.", max_length=300),
    "body": s.string("The text of the notice.", max_length=20000),
    "category": s.enum(
        "`announcement` Bekanntmachung, `maintenance` Wartungs- / Bauarbeiten (Wasserabstellung, Aufzugswartung), "
        "`event` Veranstaltung (Hoffest, Eigentümerversammlung), `emergency` Notfall / Störung, `general` Allgemeines.",
        {
            "announcement": ("Bekanntmachung", "Announcement"),
            "maintenance": ("Wartungs- und Bauarbeiten", "Maintenance or building work"),
            "event": ("Veranstaltung", "Event"),
            "emergency": ("Notfall oder Störung", "Emergency or outage"),
            "general": ("Allgemeines", "General"),
        },
    ),
    "audience": s.enum(
        "Who sees it: `allResidents` alle Bewohner, `owners` nur Eigentümer, `tenants` nur Mieter.",
        {
            "allResidents": ("Alle Bewohner", "All residents"),
            "owners": ("Nur Eigentümer", "Owners only"),
            "tenants": ("Nur Mieter", "Tenants only"),
        },
    ),
    "visibleFrom": s.timestamp("From when it is shown in the portal; immediately when absent."),
    "visibleUntil": s.timestamp("Until when it is shown; indefinitely when absent."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "objectId": ("Objekt", "Object"),
        "title": ("Titel", "Title"),
        "body": ("Text der Mitteilung", "Text of the notice"),
        "category": ("Art der Mitteilung", "Kind of notice"),
        "audience": ("Zielgruppe", "Audience"),
        "visibleFrom": ("Sichtbar ab", "Visible from"),
        "visibleUntil": ("Sichtbar bis", "Visible until"),
    },
)


POST = declare(
    EntityType(
        name="post",
        plural="posts",
        prefix="pst",
        area="documents",
        fields=FIELDS,
        required=("objectId", "title"),
        periods=(Period("visibleFrom", "visibleUntil"),),
    )
)

DOC = """A post is a notice (Aushang / Mitteilung) to the residents of one object, shown in the resident
portal: an announcement, maintenance or construction work (Wasserabstellung, Aufzugswartung), an event,
an emergency or general information. `audience` limits it to owners or tenants; `visibleFrom` and
`visibleUntil` bound when it is shown (`visibleUntil` may not lie before `visibleFrom`). Timestamps are
ISO 8601 in UTC, e.g. 2025-03-12T06:00:00Z."""

declare_show(POST, name="posts.show", arg="post", docs=DOC)
declare_create(
    POST,
    name="posts.create",
    arg="post",
    docs=DOC,
    example={
        "objectId": "<object id or alias>",
        "title": "Wasserabstellung am 12.03.",
        "body": "Am Mittwoch, 12.03., wird von 8 bis 12 Uhr das Wasser im ganzen Haus abgestellt.",
        "category": "maintenance",
        "audience": "allResidents",
        "visibleFrom": "2025-03-05T00:00:00Z",
        "visibleUntil": "2025-03-12T12:00:00Z",
    },
    summary="Publish a notice (Aushang) to the residents of an object.",
)
declare_update(POST, name="posts.update", arg="post", docs=DOC, example={"visibleUntil": "2025-03-13T12:00:00Z"})
declare_lifecycle(POST, prefix="posts", arg="post")
