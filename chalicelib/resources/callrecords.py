"""Call records (Telefonnotizen): phone calls with tenants, owners and tradespeople."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.declare import declare_create, declare_lifecycle, declare_show, declare_update
from chalicelib.entities import EntityType, declare

FIELDS: dict[str, Any] = {
    "contactId": s.ref("contact", "The caller or the person called, when known."),
    "objectId": s.ref("object", "The object the call was about."),
    "processId": s.ref("process", "The process (Vorgang) the call belongs to."),
    "direction": s.enum(
        "`inbound`: eingehender Anruf; `outbound`: ausgehender Anruf (the management called).",
        {"inbound": ("Eingehender Anruf", "Incoming call"), "outbound": ("Ausgehender Anruf", "Outgoing call")},
    ),
    "phoneNumber": {
        "type": "string",
        "maxLength": 31,
        "pattern": r"^\+?[0-9 ()/.-]{3,30}$",
        "description": "The number of the other side, preferably E.164 (+49 30 1234567).",
    },
    "startedAt": s.timestamp("When the call started (UTC)."),
    "durationSeconds": s.integer("Length of the call in seconds.", minimum=0, maximum=86400),
    "subject": s.string("Subject (Betreff), e.g. Heizung ausgefallen.", max_length=300),
    "notes": s.string("The call note (Gesprächsnotiz): what was said and agreed.", max_length=20000),
    "outcome": s.enum(
        "`reached`: erreicht; `voicemail`: Mailbox / Anrufbeantworter; `noAnswer`: nicht erreicht; "
        "`callbackRequested`: Rückruf erbeten.",
        {
            "reached": ("Erreicht", "Reached"),
            "voicemail": ("Mailbox", "Voicemail"),
            "noAnswer": ("Nicht erreicht", "No answer"),
            "callbackRequested": ("Rückruf erbeten", "Callback requested"),
        },
    ),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "contactId": ("Kontakt", "Contact"),
        "objectId": ("Objekt", "Object"),
        "processId": ("Vorgang", "Process"),
        "direction": ("Anrufrichtung", "Call direction"),
        "phoneNumber": ("Telefonnummer", "Phone number"),
        "startedAt": ("Anrufbeginn", "Call started at"),
        "durationSeconds": ("Dauer (Sekunden)", "Duration (seconds)"),
        "subject": ("Betreff", "Subject"),
        "notes": ("Notizen", "Notes"),
        "outcome": ("Ergebnis des Anrufs", "Call outcome"),
    },
)


CALL_RECORD = declare(
    EntityType(
        name="callRecord",
        plural="callRecords",
        prefix="cal",
        area="callrecords",
        fields=FIELDS,
        required=("startedAt",),
    )
)

DOC = """A call record (Telefonnotiz) documents one phone call: who called whom (`direction`,
`contactId`, `phoneNumber`), when (`startedAt`) and how long (`durationSeconds`), what it was about
(`subject`, `notes`) and how it ended (`outcome`: erreicht, Mailbox, nicht erreicht, Rückruf erbeten).
It may be linked to an object and to a process (Vorgang), so the call shows up in the case file."""

declare_show(CALL_RECORD, name="callrecords.show", arg="callRecord", docs=DOC)
declare_create(
    CALL_RECORD,
    name="callrecords.create",
    arg="callRecord",
    docs=DOC,
    example={
        "contactId": "<contact id or alias>",
        "objectId": "<object id or alias>",
        "direction": "inbound",
        "phoneNumber": "+49 30 1234567",
        "startedAt": "2025-02-03T09:15:00Z",
        "durationSeconds": 240,
        "subject": "Heizung ausgefallen",
        "notes": "Mieterin Whg. 1.02: seit gestern Abend keine Wärme. Heizungsbauer informiert.",
        "outcome": "reached",
    },
    summary="Record a phone call (Telefonnotiz).",
)
declare_update(
    CALL_RECORD, name="callrecords.update", arg="callRecord", docs=DOC, example={"outcome": "callbackRequested"}
)
declare_lifecycle(CALL_RECORD, prefix="callrecords", arg="callRecord")
