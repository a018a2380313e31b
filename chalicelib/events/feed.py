"""The change feed (changes.list, issue 33): what the stream handler appends for each entity change
(store/feed.py keeps the numbers and the entries), and a page of it as one key may read it.

An entry is the change as a mirror needs it: its id (the id of the webhook event of the same
change), its event type, the entity, when it happened, who made it (`actor`), which fields
changed, the entity after it (`data`, as the webhook event carries it; null after a deletion) and
the changed fields' earlier values (`previous`; null for a creation). A page reads the head once
and at most SCAN entries past the cursor, whatever the feed's length; it shows the entries the key
may read (Sight: the areas of its scopes, never the account's records; an object-limited key's
objects, store/reach.py) of the asked entity types, and its `next` cursor is the last entry it
looked at, so a key that sees little of the feed still moves on. An object-limited key's page
judges its entries a batch at a time (reach.judge) and ends early once the reach has made
reach.PAGE_READS reads: a bounded number of reads per page, whatever lies outside its objects."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from chalicelib import clock, cursors
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.errors import Invalid
from chalicelib.events.audit import Sight, audit_record, text_mask
from chalicelib.events.changes import Change
from chalicelib.events.deliveries import event_body
from chalicelib.store import audit_records, feed, reach

RETENTION_DAYS = 30  # what the feed promises (store/feed.py keeps entries a few days longer)
SCAN = 2_000  # entries a page looks at, at most: a bounded number of reads whatever the feed's length
_CURSOR_PREFIX = "chg1."


def append(changes: list[Change]) -> None:
    """Append changes with an event to their tenants' feeds, each with its audit record, in the
    given (stream) order."""
    by_tenant: dict[str, list[tuple[Any, dict[str, Any]]]] = {}
    for change in changes:
        record = audit_records.item_of(audit_record(change))
        by_tenant.setdefault(change.tenant_id, []).append((record, entry_of(change)))
    for tenant_id, pairs in by_tenant.items():
        feed.append(tenant_id, pairs)


def entry_of(change: Change) -> dict[str, Any]:
    """The feed's entry of a change with an event (no account record, not only its aliases): what
    its webhook event says, and the earlier values of the changed fields for every change but a creation."""
    body = event_body(change)
    before = (change.before or {}).get("data") or {}
    fields = body["changedFields"]
    entry: dict[str, Any] = {
        "id": body["id"],
        "type": body["type"],
        "entityType": change.entity_type,
        "entityId": change.entity_id,
        "occurredAt": change.at,
        "actor": body["actor"],
        "changedFields": fields,
        "data": None if change.action == "deleted" else body["data"],
        "previous": None if change.before is None else {name: before.get(name) for name in fields},
    }
    if change.action == "deleted":  # the event's data, for a recovery and an object-limited key's reach
        entry["deletedData"] = body["data"]
    return entry


def encode_cursor(seq: int) -> str:
    return cursors.encode(_CURSOR_PREFIX, str(seq))


def decode_cursor(cursor: str) -> int:
    """The number a cursor stands for; 400 `invalid_cursor` for anything this feed did not hand out."""
    return cursors.decode(_CURSOR_PREFIX, cursor, _number, of="this feed")


def _number(text: str) -> int:
    seq = int(text)
    if seq < 0:
        raise ValueError(text)
    return seq


def start_of(ctx: CallContext, args: Mapping[str, Any]) -> int:
    """The number the page starts after: the cursor's, the last one before `since`, or the head
    (a first call without either starts now)."""
    if args.get("after"):
        return decode_cursor(args["after"])
    since = args.get("since")
    if since is None:
        return feed.head(ctx.tenant_id)
    check_since(since)
    return last_before(ctx.tenant_id, since)


def check_since(since: str) -> None:
    """400 `since_out_of_retention` for a time before what the feed keeps."""
    oldest = clock.now() - dt.timedelta(days=RETENTION_DAYS)
    if clock.parse(since) < oldest:
        raise Invalid(
            f"since: the feed keeps {RETENTION_DAYS} days of changes; start at {clock.iso(oldest)} or later.",
            code=codes.SINCE_OUT_OF_RETENTION,
            errors=[{"path": "since", "message": f"older than the feed's {RETENTION_DAYS} days"}],
        )


def last_before(tenant_id: str, since: str) -> int:
    """The highest number whose entry was committed before `since` (a binary search by
    consistent reads: about 2 log2(head) GetItems). Entries gone by their age count as before."""
    low, high = 0, feed.head(tenant_id)  # invariant: low was committed before since, high+1.. not
    moment = clock.parse(since)
    while low < high:
        middle = (low + high + 1) // 2
        found = feed.entry(tenant_id, middle)
        if found is None or clock.parse(found["committedAt"]) < moment:
            low = middle
        else:
            high = middle - 1
    return low


def page(ctx: CallContext, after: int, entity_types: frozenset[str] | None, limit: int) -> tuple[list[Any], int]:
    """The changes after `after` the key may read, at most `limit`, and the cursor's number to go
    on from."""
    last = min(feed.head(ctx.tenant_id), after + SCAN)
    if last <= after:
        return [], after
    sight = Sight(ctx)
    if reach.limited(ctx):
        return _limited_page(ctx, sight, after, last, entity_types, limit)
    shown: list[dict[str, Any]] = []
    for found in feed.entries(ctx.tenant_id, after + 1, last):
        if _readable(sight, found, entity_types):
            shown.append(_as_read_by(ctx, found))
            if len(shown) == limit:
                return shown, found["seq"]
    return shown, last


def _readable(sight: Sight, found: dict[str, Any], entity_types: frozenset[str] | None) -> bool:
    entity_type = found["entityType"]
    if entity_types is not None and entity_type not in entity_types:
        return False
    return sight.sees(entity_type, found["entityId"])


def _limited_page(
    ctx: CallContext, sight: Sight, after: int, last: int, entity_types: frozenset[str] | None, limit: int
) -> tuple[list[Any], int]:
    """A page of a key limited to objects: the entries judged a batch (reach.JUDGED_TOGETHER) at
    a time, each batch in one go (reach.judge); once the reach has made reach.PAGE_READS reads,
    the page ends after the batch, its cursor at the batch's last entry."""
    shown: list[dict[str, Any]] = []
    batch: list[dict[str, Any]] = []
    entries = feed.entries(ctx.tenant_id, after + 1, last)
    while True:
        found = next(entries, None)
        if found is not None:
            batch.append(found)
            if len(batch) < reach.JUDGED_TOGETHER:
                continue
        if not batch:
            return shown, last
        readable = [entry for entry in batch if _readable(sight, entry, entity_types)]
        within = reach.judge(ctx, [(e["entityId"], e["entityType"], _state(e)) for e in readable])
        for entry in readable:
            if entry["entityId"] in within:
                shown.append(_as_read_by(ctx, entry))
                if len(shown) == limit:
                    return shown, entry["seq"]
        if found is None:
            return shown, last
        if reach.reads(ctx) >= reach.PAGE_READS:
            return shown, batch[-1]["seq"]
        batch = []


def _state(found: dict[str, Any]) -> dict[str, Any]:
    """The entity as the entry holds it: after the change, or before a deletion."""
    data = found.get("data") if found.get("data") is not None else found.get("deletedData")
    return data or {}


def _as_read_by(ctx: CallContext, found: dict[str, Any]) -> dict[str, Any]:
    """The entry as the key reads it: without the bookkeeping, and, for a key that withholds other
    parties' text, the free text only where its own side wrote it in this very change
    (audit.TextMask, as audit records are read)."""
    shown = {k: v for k, v in found.items() if k not in ("seq", "committedAt", "deletedData")}
    mask = text_mask(ctx, found["entityType"], found["actor"], found["changedFields"])
    if mask is not None:
        shown["data"] = mask.values(found["data"], after_change=True)
        shown["previous"] = mask.values(found["previous"], after_change=False)
    return shown


def cursor_answer(changes: list[Any], position: int) -> dict[str, Any]:
    return {"changes": changes, "next": encode_cursor(position)}
