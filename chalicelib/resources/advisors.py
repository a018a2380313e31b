"""Advisors of an object: Verwaltungsbeirat of a WEG, Rechnungsprüfer, Steuerberater, Anwalt."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.declare import (
    declare_create,
    declare_delete,
    declare_list,
    declare_restore,
    declare_show,
    declare_update,
)
from chalicelib.entities import EntityType, Period, declare

ROLES = {
    "advisoryBoardChair": ("Vorsitz des Verwaltungsbeirats", "Chair of the advisory board"),
    "advisoryBoardMember": ("Mitglied des Verwaltungsbeirats", "Advisory board member"),
    "auditor": ("Rechnungsprüfer", "Auditor"),
    "taxAdvisor": ("Steuerberater", "Tax advisor"),
    "lawyer": ("Rechtsanwalt", "Lawyer"),
    "other": ("Sonstige Funktion", "Other role"),
}

FIELDS: dict[str, Any] = {
    "objectId": s.ref("object", "The object (usually a WEG) the advisor serves."),
    "contactId": s.ref("contact", "The advisor (an owner on the advisory board, or an external adviser)."),
    "role": s.enum(
        "`advisoryBoardChair` Vorsitzender des Verwaltungsbeirats, "
        "`advisoryBoardMember` Mitglied des Verwaltungsbeirats (§ 29 WEG), "
        "`auditor` Rechnungsprüfer / Kassenprüfer, `taxAdvisor` Steuerberater, `lawyer` Rechtsanwalt, `other`.",
        ROLES,
    ),
    "since": s.date("First day in office (e.g. date of the election in the Eigentümerversammlung)."),
    "until": s.date("Last day in office (end of the term); open-ended when absent."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "objectId": ("Objekt", "Object"),
        "contactId": ("Kontakt", "Contact"),
        "role": ("Funktion als Berater", "Advisory role"),
        "since": ("Im Amt seit", "In office since"),
        "until": ("Im Amt bis", "In office until"),
    },
)


ADVISOR = declare(
    EntityType(
        name="advisor",
        plural="advisors",
        prefix="adv",
        area="advisors",
        fields=FIELDS,
        filters=("objectId", "contactId"),
        required=("objectId", "contactId", "role"),
        periods=(Period("since", "until"),),
    )
)

DOC = """An advisor serves an object: in a WEG the Verwaltungsbeirat (§ 29 WEG: `advisoryBoardChair`,
`advisoryBoardMember`), elected by the Eigentümerversammlung, which supports and checks the manager and
reviews the Wirtschaftsplan and the Jahresabrechnung; further the Rechnungsprüfer (`auditor`), tax advisor
or lawyer of the community. `since`/`until` give the term of office (`until` may not lie before
`since`)."""

declare_list(
    ADVISOR,
    name="advisors.list",
    docs="Lists the advisors of the tenant, optionally of one object (or, beyond the interface, of one contact). "
    + DOC,
    filters={
        "objectId": s.ref("object", "Only advisors of this object."),
        "contactId": s.ref("contact", "Only advisor roles of this contact."),
    },
)
declare_show(ADVISOR, name="advisors.show", arg="advisor", docs=DOC)
declare_create(
    ADVISOR,
    name="advisors.assign",
    arg="advisor",
    docs=DOC,
    example={
        "objectId": "<object id or alias>",
        "contactId": "<contact id or alias>",
        "role": "advisoryBoardChair",
        "since": "2024-05-15",
    },
    summary="Assign an advisor (e.g. Verwaltungsbeirat) to an object.",
)
declare_update(
    ADVISOR,
    name="advisors.update",
    arg="advisor",
    docs=DOC,
    example={"until": "2026-05-14"},
    summary="Change an advisor's role or term.",
)
declare_delete(
    ADVISOR,
    name="advisors.revoke",
    arg="advisor",
    summary="Revoke an advisor (soft delete, restorable with advisors.restore).",
    docs="Ends the assignment of an advisor to an object (Abberufung). " + DOC,
)
declare_restore(ADVISOR, name="advisors.restore", arg="advisor")
