"""The audit trail and rollback: who changed what, when, through which key, with the state
before and after; and the way back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib import account, config, relative_time
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CHANNELS, CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.errors import Invalid, invalid_at
from chalicelib.events import audit
from chalicelib.events.changes import ACCOUNT_TYPES
from chalicelib.events.revert import revert
from chalicelib.registry import operation
from chalicelib.store import audit_records, reach

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import AuditListArgs, AuditRevertArgs, AuditShowArgs

STATE = {
    "type": "object",
    "nullable": True,
    "description": (
        "The entity's fields (`data`, secrets redacted) and `version`, `createdAt`, `updatedAt`, `deletedAt`."
    ),
}
RECORD = s.obj(
    {
        "id": s.string("Audit record id (aud_...), time-ordered."),
        "at": s.timestamp("When the change happened."),
        "tenantId": s.string("Tenant."),
        "entityType": s.string("Entity type."),
        "entityId": s.string("Entity id."),
        "action": s.enum("What happened.", ["created", "updated", "deleted", "restored"]),
        "operation": {**s.string("The operation that made the change, e.g. contacts.update."), "nullable": True},
        "requestId": {**s.string("The request that made it."), "nullable": True},
        "channel": {
            **s.enum(
                "The surface the change came through: `rest`, `mcp`, `console` (a person signed in to the "
                "console; `actor.keyId` is then their member id), `operator` (the operator's CLI) or `oauth` (the "
                "authorization server on its own: a client revoked its grant, or a spent refresh token came back).",
                list(CHANNELS),
            ),
            "nullable": True,
        },
        "actor": s.obj(
            {
                "keyId": {**s.string("API key."), "nullable": True},
                "agentName": {**s.string("Agent of the key."), "nullable": True},
                "integrationId": {**s.string("Integration of the key."), "nullable": True},
                "binding": {"type": "object", "description": "Person (contactId) or company binding of the key."},
            }
        ),
        "before": STATE,
        "after": STATE,
        "changedFields": s.array(
            s.string("Field."), "Fields whose value differs between before and after.", max_items=500
        ),
    },
    required=["id", "at", "entityType", "entityId", "action", "actor"],
)
# Not empty: the search would read an empty value as no filter at all, and `audit.revert` with
# {"filter": {"agentName": ""}} would roll back every change of the tenant.
FILTERS = {
    "entityId": s.string("Only changes of this entity (any type; also deleted ones).", minLength=1),
    "keyId": s.string("Only changes made with this API key.", minLength=1),
    "agentName": s.string("Only changes made by keys of this agent.", minLength=1),
    "operation": s.string("Only changes made by this operation, e.g. contacts.update.", minLength=1),
    "from": s.timestamp("Only changes at or after this time (UTC)."),
    "to": s.timestamp("Only changes at or before this time (UTC)."),
}
s.VALUE_LISTS["auditedTypes"] = lambda: sorted({*ENTITY_TYPES, *ACCOUNT_TYPES})
LIST_ARGS = {
    "entityType": s.known_values(
        s.string(
            "Only changes of entities of this type (contact, unit, ...; apiKey, integration, member, oauthGrant, "
            "tenant for the account's own records).",
            max_length=50,
            minLength=1,
        ),
        "auditedTypes",
    ),
    **FILTERS,
    "after": s.string("The `next` of an earlier answer: only the records after it.", max_length=100, minLength=1),
    "limit": s.integer("Page size, 1 to 1000.", minimum=1, maximum=1000),
    "offset": s.integer("Number of leading results to skip (after the cursor, with `after`). Default 0.", minimum=0),
}
DOC = f"""Every change of every entity is recorded from the table's change stream (a few hundred milliseconds
after the write): who (key, agent, person or company binding, integration), when, through which operation
and request, and the entity's state before and after (secrets redacted). Records are kept in time order;
the time range is served by the index's sort key, the other filters by indexes (entity, key, agent) or,
for `operation`, by reading the records the other filters leave: \
at most {config.AUDIT_OPERATION_SCAN:,} of them, else 400
`filter_too_broad` (add from/to, keyId, agentName or entityId).

The account's own changes are records too, with the same actor, time and before/after:
- the sign-up: entity type `tenant`, entity id the tenant's id, operation `signup`, actor the first key;
- API keys created and disabled (`apiKey`, operations `apikeys.create`, `apikeys.disable`, `signup`, or the
  operator's `pmctl.keys.issue` and `pmctl.integrations.disable`); the secret and its hash never appear
  (`lookupPk` reads `[redacted]`); using a key (`lastUsedAt`) is no change;
- the operator's plan and throttle changes (`tenant`, operations `tenants.plan`, `tenants.throttle`);
- an integration connected to the tenant (`integration`, entity id `int_...`, `created` with its name, contact
  and allowed scopes) and disabled (`updated`).
- the console's team (`member`, entity id `mem_...`): the owner at sign-up, invitations, their acceptance or
  decline, role changes, removals; with the member's id, name, role and status, never an e-mail address (the
  tenant's records leave out the owner's address too).
- an agent connected by OAuth (`oauthGrant`, entity id `grt_...`): `created` when a person approves it in the
  console (client, agent name, scopes, resource; the person as actor, operation `oauth.approve`), `updated`
  when it is revoked (`revokedAt`; by a person in the console, operation `oauth.revoke`, or by the
  authorization server itself, channel `oauth`, when the client revoked it or replayed a spent refresh
  token). The grant's access keys are `apiKey` records of their own (operation `oauth.token`, the approving
  person as actor).
The operator's records say channel `operator` and agent `operator (pmctl)`, with no key. A key's expiry is no
write and no record: its `expiresAt` is in its creation record. These records are no webhook events, and
`audit.revert` does not undo them (400 `not_revertible`; a filter skips them).

Paging: by `offset`, or by cursor: pass an answer's `next` as `after` and the list goes on after that
answer's last record, however many records arrive meanwhile (an offset would shift when records arrive
before it). The records come from the table's change stream, a moment after their changes, and are
ordered by the time of the change: a record whose change happened just before a cursor's may still
arrive behind it. To follow the changes of entities as they happen, exactly once each, use
`changes.list` (its ids are those of the webhook events); audit.list is the history to read and undo.
The record of a change that was a webhook event shares the event's id after its prefix (`aud_X` for
`evt_X`).

Who sees the account's records: keys holding `admin`. An integration's key sees only its own integration's,
and only with `admin`: the `integration` records of its connection (entity id its integration id) and the
`apiKey` records of the keys carrying its integration id (the keys `apikeys.list` shows it), never `tenant`,
`member` or another integration's. To every other key they do not exist: lists and totals leave them out,
`audit.show` answers 404, `audit.revert` answers 404 for one and leaves them out of a filter's answer.
The records of entities follow the key's read scopes: with `read:<area>` only the records of that area's
entities. A key limited to objects sees the records of the entities within its objects (judged by the state
a record holds), none of the account's. Its list reads the records the other filters leave \
{reach.JUDGED_TOGETHER} at a time to judge
them, and ends at `limit` or once the batches after the first and the reads judging them make {reach.PAGE_READS}
(its `next` then goes on after the last record it looked at). `total` counts the records found up to where
it ended, and `pagination.capped` is true when records follow: follow `next` (offset 0) for the rest. Such
a page counts against the key's rate limits as one call more per {reach.PAGE_READS} of those reads.

A key created with `untrustedText: "omit"` reads over MCP, of the states' free text, only what its own side
wrote in that change; other text is a placeholder naming who wrote it, or saying an earlier change did
(`apikeys.create`). REST answers the states as stored."""


# A revert by a key limited to objects would set back entities by their records: not open to such keys yet.
REVERT_OF_OBJECT_KEYS = "audit.revert is not open to keys limited to objects yet."


@operation(
    name="audit.list",
    kind="query",
    summary="List audit records, oldest first, filtered by entity, key, agent, operation and time.",
    docs=DOC,
    args=s.obj(LIST_ARGS, required=["limit"]),
    result=s.obj(
        {
            **s.list_result("auditRecords", RECORD)["properties"],
            "next": s.string("The cursor to pass as `after` for the records after this page."),
        },
        required=["pagination", "auditRecords", "next"],
    ),
    scope="read",
    idempotent=True,
    errors=(codes.INVALID_CURSOR,),
    example={"agentName": "invoice-bot", "entityType": "contact", "from": relative_time.ago(7), "limit": 100},
)
def list_records(ctx: CallContext, args: AuditListArgs) -> dict[str, Any]:
    wanted = args.get("entityType")
    if wanted and wanted not in ENTITY_TYPES and wanted not in ACCOUNT_TYPES:
        known = ", ".join(sorted({*ENTITY_TYPES, *ACCOUNT_TYPES}))
        raise invalid_at("entityType", f"no entity type {wanted!r}; one of {known}")
    after = audit.decode_cursor(args["after"]) if args.get("after") else None
    limit, offset = args["limit"], args.get("offset", 0)
    found = audit.page(ctx, args, limit, offset, after)
    account.charge(ctx, reach.weight(ctx))  # a key limited to objects: the reads that judged the page
    shown = [audit.as_read_by(ctx, r) for r in found.shown]
    return {
        "pagination": s.pagination(found.total, limit, offset, found.capped),
        "auditRecords": shown,
        "next": audit.next_cursor(found.shown, after, args, found.looked_until),
    }


@operation(
    name="audit.show",
    kind="query",
    summary="One audit record with the states before and after the change.",
    docs=DOC,
    args=s.obj({"auditRecord": s.string("Audit record id (aud_...).")}, required=["auditRecord"]),
    result=s.obj({"auditRecord": RECORD}, required=["auditRecord"]),
    scope="read",
    idempotent=True,
    example={"auditRecord": "aud_01K..."},
)
def show(ctx: CallContext, args: AuditShowArgs) -> dict[str, Any]:
    return {"auditRecord": audit.as_read_by(ctx, audit.get(ctx, args["auditRecord"]))}


REVERTED = s.obj(
    {
        "entityType": s.string("Entity type."),
        "entityId": s.string("Entity id."),
        "auditRecords": s.array(s.string("Audit record id."), "The changes undone.", max_items=10000),
        "action": s.enum("What the revert did.", ["updated", "deleted", "restored", "none"]),
        "code": s.string("Why it was skipped."),
        "reason": s.string("Why it was skipped, for people."),
    },
    required=["entityType", "entityId", "auditRecords"],
)


@operation(
    name="audit.revert",
    kind="command",
    summary="Roll back one change, or everything matching a filter (e.g. all an agent key did in a time range).",
    docs=f"""Restores entities to their state before a change. With `auditRecord`: the entity of that record goes
back to its state before it; refused (409 `changed_later`) when the entity changed after that record,
unless `force` is true. With `filter` (the filters of audit.list, at least one): every entity the matching
records touch goes back to its state before the first of them, newest changes first; entities changed
later by others are skipped and reported (unless `force`). An entity that did not exist before is
soft-deleted; a deleted one is restored. The rollback writes through the ordinary commands, so it is itself
audited (operation `audit.revert`) and sent to webhooks. Answers what was reverted and what was skipped.
With `dryRun: true` nothing is written: the same checks answer what a revert would set back and what it
would skip, and why (a preview to confirm; `dryRun` is true in the answer).
A record the key may not see (the account's records without `admin`, as in audit.list) answers 404, and a
filter's revert leaves such records out.
One request undoes at most {config.REVERT_RECORD_LIMIT} changes: a broader filter is 400 `filter_too_broad`; \
revert in parts,
narrowing the time range.""",
    args=s.obj(
        {
            "auditRecord": s.string("The change to undo (aud_...)."),
            "filter": s.obj(FILTERS, description="Undo every change these filters match.", minProperties=1),
            "force": s.boolean("Overwrite later changes of other actors too. Default false."),
            "dryRun": s.boolean("Only answer what would be reverted and skipped; write nothing. Default false."),
        },
        # exactly one of the two (the handler says so in words when a caller sends neither or both)
        oneOf=[{"required": ["auditRecord"]}, {"required": ["filter"]}],
    ),
    result=s.obj(
        {
            "reverted": s.array(REVERTED, "Entities set back.", max_items=config.REVERT_RECORD_LIMIT),
            "skipped": s.array(
                REVERTED, "Entities left as they are, with the reason.", max_items=config.REVERT_RECORD_LIMIT
            ),
            "dryRun": s.boolean("True when nothing was written: the answer is a preview."),
        },
        required=["reverted", "skipped"],
    ),
    scope="write",
    destructive=True,
    errors=(
        codes.CHANGED_LATER,
        (
            codes.FILTER_TOO_BROAD,
            f"the filter matches more than {config.REVERT_RECORD_LIMIT} changes; narrow it and revert in parts.",
        ),
        codes.NOT_REVERTIBLE,
        (
            codes.WEBHOOK_LIMIT_REACHED,
            "undoing a webhook's deletion would exceed the tenant's webhooks (skipped in a filter's revert).",
        ),
    ),
    example={"filter": {"keyId": "key_01K...", "from": "2026-01-15T09:00:00Z", "to": "2026-01-15T10:00:00Z"}},
    refused_to_object_keys=REVERT_OF_OBJECT_KEYS,
)
def revert_changes(ctx: CallContext, args: AuditRevertArgs) -> dict[str, Any]:
    if bool(args.get("auditRecord")) == bool(args.get("filter")):
        raise Invalid(
            "Send either auditRecord or filter.",
            errors=[{"path": "(arguments)", "message": "exactly one of auditRecord and filter"}],
        )
    force, dry_run = bool(args.get("force")), bool(args.get("dryRun"))
    if args.get("auditRecord"):
        answer = revert(ctx, [audit.get(ctx, args["auditRecord"])], force=force, strict=True, dry_run=dry_run)
        return {**answer, "dryRun": True} if dry_run else answer
    keys, capped = audit.search(ctx, args["filter"])
    operation = args["filter"].get("operation")
    if capped or (not operation and len(keys) > config.REVERT_RECORD_LIMIT):
        raise _too_many_to_revert(len(keys), capped)
    records = audit.operation_filtered(keys, operation) if operation else audit_records.records(keys)
    if len(records) > config.REVERT_RECORD_LIMIT:
        raise _too_many_to_revert(len(records), False)
    answer = revert(ctx, records, force=force, strict=False, dry_run=dry_run)
    return {**answer, "dryRun": True} if dry_run else answer


def _too_many_to_revert(count: int, capped: bool) -> Invalid:
    found = f"more than {count}" if capped else str(count)
    return Invalid(
        f"The filter matches {found} changes; one audit.revert undoes at most {config.REVERT_RECORD_LIMIT}."
        " Revert in parts: narrow the time range (from/to) or the actor, then repeat for the rest.",
        code=codes.FILTER_TOO_BROAD,
        errors=[
            {"path": "filter", "message": f"matches {found} changes; at most {config.REVERT_RECORD_LIMIT} per request"}
        ],
    )
