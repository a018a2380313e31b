"""The change feed: every change of the entities a key may read, in commit order, with a cursor
(events/feed.py, store/feed.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib import account, relative_time
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CHANNELS, CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.errors import invalid_at
from chalicelib.events import feed
from chalicelib.registry import operation
from chalicelib.store import reach

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import ChangesListArgs

EVENT_DATA = {
    "type": "object",
    "nullable": True,
    "description": "The entity after the change, as the webhook event carries it (its fields, id, version, "
    "createdAt, updatedAt); null after a deletion.",
}
CHANGE = s.obj(
    {
        "id": s.string("The change's id: the id of the webhook event of the same change (evt_...)."),
        "type": s.string("The event type, e.g. contact.updated."),
        "entityType": s.string("Entity type."),
        "entityId": s.string("Entity id."),
        "occurredAt": s.timestamp("When the change was written."),
        "actor": s.obj(
            {
                "keyId": {**s.string("The API key (or console member) that made it."), "nullable": True},
                "agentName": {**s.string("Its agent."), "nullable": True},
                "integrationId": {**s.string("Its integration; null for the tenant's own keys."), "nullable": True},
                "channel": {**s.enum("The surface it came through.", list(CHANNELS)), "nullable": True},
            },
            required=["keyId", "agentName", "integrationId", "channel"],
        ),
        "changedFields": s.array(s.string("Field name."), "The fields whose value changed.", max_items=500),
        "data": EVENT_DATA,
        "previous": {
            "type": "object",
            "nullable": True,
            "description": "The changed fields' values before the change; null for a creation.",
        },
    },
    required=["id", "type", "entityType", "entityId", "occurredAt", "actor", "changedFields", "data", "previous"],
)
DOC = f"""The change feed: every create, update, delete and restore of the entities this key may read,
in the order the changes were committed, for a mirror that catches up after being away.

Start with `since` (a time within the last {feed.RETENTION_DAYS} days; older is 400
`since_out_of_retention`) or with neither (from now on), then pass each answer's `next` as `after`:
following `next` returns every change committed after it exactly once, changes of one entity in the
order they were made. An answer with no changes still carries `next`: ask again later with it. A change
is on the feed a moment after its write (the table's change stream: well under a second, a few
seconds at worst), and never behind a cursor already handed out. A change's `id` is the id of the
webhook event of the same change, so webhooks and the feed deduplicate against each other.

A page looks at {feed.SCAN:,} changes past the cursor at most: a key that may read few of them (one
area, a few objects, `entityTypes`) may get fewer than `limit`, or none, with a `next` that has
moved on. A key limited to objects judges the changes {reach.JUDGED_TOGETHER} at a time, and its page
ends once judging them took {reach.PAGE_READS} reads (their parents, the contacts linked to its
objects), with a `next` after the last change it judged: follow `next` for the rest. Such a page counts
against the key's rate limits as one call more per {reach.PAGE_READS} of those reads. The account's own
records (keys, members, the tenant) are never on the feed (`audit.list` with `admin` shows them)."""


@operation(
    name="changes.list",
    kind="query",
    summary="The changes since a cursor or a time, in commit order: what a mirror needs to catch up.",
    docs=DOC,
    args=s.obj(
        {
            "after": s.string("The `next` of an earlier answer.", max_length=100, minLength=1),
            "since": s.timestamp(f"For the first call: changes from this time on (within {feed.RETENTION_DAYS} days)."),
            "entityTypes": s.array(
                s.known_values(
                    s.string("Entity type, as in the event types (contact, unit, contract, ...).", max_length=50),
                    "entityTypes",
                ),
                "Only changes of these entity types.",
                max_items=50,
            ),
            "limit": s.integer("Changes per page, 1 to 1000.", minimum=1, maximum=1000),
        },
        required=["limit"],
    ),
    result=s.obj(
        {
            "changes": s.array(CHANGE, "The changes, oldest first.", max_items=1000),
            "next": s.string("The cursor to pass as `after` next time."),
        },
        required=["changes", "next"],
    ),
    scope="read",
    idempotent=True,
    errors=(codes.INVALID_CURSOR, codes.SINCE_OUT_OF_RETENTION),
    example={"since": relative_time.ago(1), "entityTypes": ["contact", "unit"], "limit": 100},
)
def list_changes(ctx: CallContext, args: ChangesListArgs) -> dict[str, Any]:
    if args.get("after") and args.get("since"):
        raise invalid_at("since", "give either `after` (a cursor) or `since` (a first call), not both")
    types = frozenset(args["entityTypes"]) if args.get("entityTypes") else None
    for index, name in enumerate(args.get("entityTypes") or []):
        if name not in ENTITY_TYPES:  # the catalogue is complete only once every resource has loaded
            raise invalid_at(
                f"entityTypes[{index}]", f"no entity type {name!r}; one of {', '.join(sorted(ENTITY_TYPES))}"
            )
    start = feed.start_of(ctx, args)
    changes, position = feed.page(ctx, start, types, args["limit"])
    account.charge(ctx, reach.weight(ctx))  # a key limited to objects: the reads that judged the page
    return feed.cursor_answer(changes, position)
