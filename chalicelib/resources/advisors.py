"""Advisors of an object: Verwaltungsbeirat of a WEG, Rechnungsprüfer, Steuerberater, Anwalt."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.entities import EntityType, declare
from chalicelib.errors import invalid_at
from chalicelib.resources.common import (
    declare_create,
    declare_delete,
    declare_list,
    declare_restore,
    declare_show,
    declare_update,
)

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


def _check(data: dict[str, Any], advisor_id: str | None) -> None:
    for name in ("objectId", "contactId"):
        if data.get(name) is None:
            raise invalid_at(f"advisor.{name}", f"an advisor needs {name}")
    since, until = data.get("since"), data.get("until")
    if since and until and until < since:
        raise invalid_at("advisor.until", "until lies before since")


ADVISOR = declare(
    EntityType(
        name="advisor",
        plural="advisors",
        prefix="adv",
        area="advisors",
        fields=FIELDS,
        filters=("objectId", "contactId"),
        check=_check,
    )
)

DOC = """An advisor serves an object: in a WEG the Verwaltungsbeirat (§ 29 WEG: `advisoryBoardChair`,
`advisoryBoardMember`), elected by the Eigentümerversammlung, which supports and checks the manager and
reviews the Wirtschaftsplan and the Jahresabrechnung; further the Rechnungsprüfer (`auditor`), tax advisor
or lawyer of the community. `since`/`until` give the term of office (`until` may not lie before
`since`)."""

declare_list(
    ADVISOR,
    "advisors.list",
    "Lists the advisors of the tenant, optionally of one object (or, beyond the interface, of one contact). " + DOC,
    filters={
        "objectId": s.ref("object", "Only advisors of this object."),
        "contactId": s.ref("contact", "Only advisor roles of this contact."),
    },
)
declare_show(ADVISOR, "advisors.show", "advisor", DOC)
declare_create(
    ADVISOR,
    "advisors.assign",
    "advisor",
    DOC,
    required=["objectId", "contactId", "role"],
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
    "advisors.update",
    "advisor",
    DOC,
    example={"until": "2026-05-14"},
    summary="Change an advisor's role or term.",
)
declare_delete(
    ADVISOR,
    "advisors.revoke",
    "advisor",
    summary="Revoke an advisor (soft delete, restorable with advisors.restore).",
    docs="Ends the assignment of an advisor to an object (Abberufung). " + DOC,
)
declare_restore(ADVISOR, "advisors.restore", "advisor")
