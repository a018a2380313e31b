"""Processes (Vorgänge): the cases a property manager works on for an object (a repair, a
complaint, a damage report, an owners' meeting), and their timeline entries (process updates)."""

from __future__ import annotations

from typing import Any

from chalicelib import clock
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import declare_create, declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.entities import ENTITY_TYPES, EntityType, declare
from chalicelib.errors import Conflict, NotFound, invalid_at
from chalicelib.field_groups import VISIBILITY
from chalicelib.store import entities as store

# --- processes --------------------------------------------------------------------------

STATUSES = {
    "open": ("Offen", "Open"),
    "inProgress": ("In Bearbeitung", "In progress"),
    "waiting": ("Wartet", "Waiting"),
    "done": ("Erledigt", "Done"),
    "cancelled": ("Storniert", "Cancelled"),
}
CLOSED = ("done", "cancelled")
PRIORITIES = {
    "low": ("Niedrig", "Low"),
    "normal": ("Normal", "Normal"),
    "high": ("Hoch", "High"),
    "urgent": ("Dringend", "Urgent"),
}
CATEGORIES = {
    "repair": ("Reparatur", "Repair"),
    "maintenance": ("Wartung", "Maintenance"),
    "damage": ("Schadensmeldung", "Damage report"),
    "complaint": ("Beschwerde", "Complaint"),
    "inquiry": ("Anfrage", "Inquiry"),
    "meeting": ("Versammlung oder Begehung", "Meeting or site visit"),
    "accounting": ("Abrechnung", "Accounting"),
    "legal": ("Rechtsangelegenheit", "Legal matter"),
    "other": ("Sonstiges", "Other"),
}

FIELDS: dict[str, Any] = {
    "objectId": s.ref(
        "object",
        "The object (Liegenschaft) the process concerns. "
        "Set from the `object` argument of processes.create; fixed after creation.",
    ),
    "contractId": s.ref(
        "contract", "Optional: the contract (lease, ownership) the process concerns; it must belong to the same object."
    ),
    "title": s.string("Short title, e.g. Wasserschaden Whg. 1.02 or Heizungsausfall Haus B.", max_length=300),
    "description": s.text("What the process is about: the report, the facts, what is to be done."),
    "status": s.enum(
        "`open`: offen (new, nobody works on it yet); `inProgress`: in Bearbeitung; "
        "`waiting`: wartet (on a tradesperson, an offer, the owners' decision, a reply); `done`: erledigt; "
        "`cancelled`: storniert / gegenstandslos. Defaults to `open`.",
        STATUSES,
    ),
    "priority": s.enum(
        "Priorität: `low` niedrig, `normal` (default), `high` hoch, "
        "`urgent` dringend (Notfall: Rohrbruch, Heizungsausfall im Winter).",
        PRIORITIES,
    ),
    "category": s.enum(
        "Kind of process: `repair` Reparatur / Instandsetzung, `maintenance` Wartung / Instandhaltung, "
        "`damage` Schadensmeldung (Versicherungsschaden), `complaint` Beschwerde / Mängelanzeige, `inquiry` Anfrage, "
        "`meeting` Eigentümerversammlung / Begehung, `accounting` Abrechnung / Buchhaltung, "
        "`legal` Rechtsangelegenheit (Mahnverfahren, Klage), `other`.",
        CATEGORIES,
    ),
    "isArchived": s.boolean(
        "Archiviert: the process is closed and filed. Always present (false on creation). "
        "Only a process with status `done` or `cancelled` can be archived; "
        "an archived process accepts no change except unarchiving."
    ),
    "dueDate": s.date("Due date (Frist / Wiedervorlage)."),
    "reportedById": s.ref("contact", "Who reported it (Melder): a tenant, owner, caretaker."),
    "assigneeId": s.ref("contact", "Who handles it (Sachbearbeiter, beauftragter Handwerker)."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "objectId": ("Objekt", "Object"),
        "contractId": ("Vertrag", "Contract"),
        "title": ("Titel", "Title"),
        "description": ("Beschreibung", "Description"),
        "status": ("Vorgangsstatus", "Process status"),
        "priority": ("Priorität", "Priority"),
        "category": ("Vorgangsart", "Process category"),
        "isArchived": ("Archiviert", "Archived"),
        "dueDate": ("Frist", "Due date"),
        "reportedById": ("Gemeldet von", "Reported by"),
        "assigneeId": ("Zuständig", "Assignee"),
    },
)


def _check_process(data: dict[str, Any], process_id: str | None) -> None:
    if data.get("isArchived") and data.get("status") not in CLOSED:
        raise Conflict(
            f"Only a process with status done or cancelled can be archived (status is {data.get('status')}).",
            code=codes.PROCESS_NOT_CLOSED,
            errors=[{"path": "process.isArchived", "message": "set status to done or cancelled first"}],
        )


def _derive_process(ctx: CallContext, data: dict[str, Any]) -> None:
    """Defaults (status open, priority normal, isArchived false) and the contract's object check (one read)."""
    data.setdefault("status", "open")
    data.setdefault("priority", "normal")
    data.setdefault("isArchived", False)
    contract_type = ENTITY_TYPES.get("contract")
    contract_id = data.get("contractId")
    if contract_type is None or contract_id is None:
        return
    try:
        contract = store.get_item(ctx, contract_type, contract_id, path="process.contractId")
    except NotFound:
        return  # the store reports the missing reference (404 at its path)
    contract_object = contract.data_dict().get("objectId")
    if contract_object is not None and contract_object != data.get("objectId"):
        raise invalid_at("process.contractId", f"contract {contract_id} belongs to another object ({contract_object})")


PROCESS = declare(
    EntityType(
        name="process",
        plural="processes",
        prefix="prc",
        area="processes",
        fields=FIELDS,
        filters=("contractId", "objectId", "isArchived"),
        required=("title",),
        check=_check_process,
        derive=_derive_process,
    )
)

DOC = """A process (Vorgang) is one case the property manager handles for an object: a repair
(Reparatur), maintenance (Wartung), a damage report (Schadensmeldung), a complaint (Beschwerde /
Mängelanzeige), an inquiry, an owners' meeting (Eigentümerversammlung), an accounting or legal matter.
It belongs to one object (`objectId`, fixed) and may concern one contract of that object (`contractId`).
`reportedById` is who reported it, `assigneeId` who handles it (both contacts); `dueDate` is the
Frist / Wiedervorlage. New processes start with `status: open`, `priority: normal`, `isArchived: false`.

Rules: archiving (`isArchived: true`) needs status `done` or `cancelled` (409 `process_not_closed`). An
archived process accepts no change except unarchiving (409 `process_archived`): send `isArchived: false`,
alone or together with further changes (e.g. a new status to reopen it). Its timeline (process updates)
is frozen while it is archived. Documents, call records and process updates reference their process, so
a process with live ones cannot be deleted (409 `still_referenced`)."""

declare_list(
    PROCESS,
    name="processes.list",
    docs="Lists the processes of the tenant, optionally only archived or only active ones, of one object or one "
    "contract. " + DOC,
    filters={
        "isArchived": s.boolean("true: only archived processes; false: only active (not archived) ones."),
        "object": s.ref("object", "Only processes of this object."),
        "contract": s.ref("contract", "Only processes concerning this contract."),
    },
    fields={"object": "objectId", "contract": "contractId"},
)
declare_show(PROCESS, name="processes.show", arg="process", docs=DOC)
declare_create(
    PROCESS,
    name="processes.create",
    arg="process",
    docs=DOC
    + "\n\nThe object comes as the separate `object` argument (id or alias); the payload carries no `objectId`.",
    parents={"object": "objectId"},
    example={
        "title": "Wasserschaden Whg. 1.02",
        "description": "Mieterin meldet Wasserfleck an der Decke im Bad; vermutlich Leitung in Whg. 2.02.",
        "category": "damage",
        "priority": "high",
        "dueDate": "2025-03-14",
        "reportedById": "<contact id or alias>",
    },
    summary="Open a process (Vorgang) for an object.",
)


def _guard_process(ctx: CallContext, item: store.StoredEntity, payload: dict[str, Any]) -> None:
    unarchives = "isArchived" in payload and not payload["isArchived"]  # false, or null (which means false)
    if item.data_dict().get("isArchived") and not unarchives:
        raise Conflict(
            f"Process {item.id} is archived: it accepts no change except unarchiving (isArchived: false).",
            code=codes.PROCESS_ARCHIVED,
            errors=[{"path": "process.isArchived", "message": "archived: send isArchived false to unarchive"}],
        )


declare_update(
    PROCESS,
    name="processes.update",
    arg="process",
    docs=DOC + "\n\n`objectId` cannot change.",
    example={"priority": "high", "assigneeId": "<id or alias>"},
    guard=_guard_process,
    immutable=("objectId",),
    errors=(codes.PROCESS_NOT_CLOSED, codes.PROCESS_ARCHIVED),
    summary="Change a process: status, priority, assignee, archive flag.",
)
declare_lifecycle(PROCESS, prefix="processes", arg="process")


# --- process updates --------------------------------------------------------------------

UPDATE_TYPES = {
    "note": ("Notiz", "Note"),
    "statusChange": ("Statusänderung", "Status change"),
    "email": ("E-Mail", "E-mail"),
    "letter": ("Brief", "Letter"),
    "call": ("Telefonat", "Phone call"),
    "visit": ("Ortstermin", "Site visit"),
}

UPDATE_FIELDS: dict[str, Any] = {
    "processId": s.ref(
        "process",
        "The process this entry belongs to. Set from the `process` argument of processes.updates.create; fixed.",
    ),
    "text": s.string(
        "The entry: a note, the content of a letter or e-mail, the minutes of a call or site visit.", max_length=20000
    ),
    "type": s.enum(
        "`note`: Notiz / Aktenvermerk; `statusChange`: Statusänderung; `email`: E-Mail; `letter`: Brief / Schreiben; "
        "`call`: Telefonat; `visit`: Begehung / Ortstermin.",
        UPDATE_TYPES,
    ),
    "authorId": s.ref("contact", "Who wrote or caused the entry (staff member, tenant, tradesperson)."),
    "visibility": s.enum(
        "`internal`: only for the management; `portal`: also shown to residents/owners in the portal.",
        VISIBILITY,
    ),
    "occurredAt": s.timestamp(
        "When it happened (the call, the visit, the letter's date); defaults to the time of creation."
    ),
}
UPDATE_FIELDS = s.labelled(
    UPDATE_FIELDS,
    {
        "processId": ("Vorgang", "Process"),
        "text": ("Text", "Text"),
        "type": ("Art des Eintrags", "Entry type"),
        "authorId": ("Verfasst von", "Author"),
        "visibility": ("Sichtbarkeit", "Visibility"),
        "occurredAt": ("Zeitpunkt", "Occurred at"),
    },
)


def _derive_update(ctx: CallContext, data: dict[str, Any]) -> None:
    """occurredAt defaults to now; refuses entries on an archived process (one read)."""
    data.setdefault("occurredAt", clock.now_iso())
    process_id = data.get("processId")
    if process_id is None:
        return
    try:
        process = store.get_item(ctx, PROCESS, process_id)
    except NotFound:
        return  # the store reports the missing reference (404 at its path)
    if process.data_dict().get("isArchived"):
        raise Conflict(
            f"Process {process_id} is archived; its timeline accepts no entries or changes.",
            code=codes.PROCESS_ARCHIVED,
        )


PROCESS_UPDATE = declare(
    EntityType(
        name="processUpdate",
        plural="updates",
        prefix="pru",
        area="processes",
        fields=UPDATE_FIELDS,
        filters=("processId",),
        required=("text",),
        rules_path="update",
        derive=_derive_update,
        label_text="process update",  # plural: "process updates", not the bare "updates"
    )
)

UPDATE_DOC = """A process update is one entry of a process's timeline (Verlauf): a note (Aktenvermerk), a status
change, an e-mail, a letter, a phone call or a site visit (Begehung), with the `text`, who wrote it
(`authorId`), when it happened (`occurredAt`, default: now) and whether residents see it in the portal
(`visibility: portal`) or only the management (`internal`). Like other entities, a process update is
referenced by its id or an alias. An archived process takes no new entries and no changes to its entries
(409 `process_archived`)."""

declare_list(
    PROCESS_UPDATE,
    name="processes.updates.list",
    docs="Lists the timeline of one process, oldest first. " + UPDATE_DOC,
    filters={"process": s.ref("process", "The process whose entries to list.")},
    fields={"process": "processId"},
    required_filters=("process",),
)
declare_show(PROCESS_UPDATE, name="processes.updates.show", arg="update", docs=UPDATE_DOC)
declare_create(
    PROCESS_UPDATE,
    name="processes.updates.create",
    arg="update",
    docs=UPDATE_DOC + "\n\nThe process comes as the separate `process` argument (id or alias).",
    parents={"process": "processId"},
    example={
        "text": "Handwerker Fa. Klempner Schulz für Do., 10 Uhr beauftragt.",
        "type": "note",
        "visibility": "portal",
    },
    summary="Add an entry to a process's timeline.",
)
declare_update(
    PROCESS_UPDATE,
    name="processes.updates.update",
    arg="update",
    docs=UPDATE_DOC + "\n\n`processId` cannot change.",
    example={"text": "Termin auf Fr., 8 Uhr verschoben."},
    immutable=("processId",),
)
declare_lifecycle(PROCESS_UPDATE, prefix="processes.updates", arg="update")
