"""The audit trail: one record per entity change, written by the stream handler (stored by
store/audit_records.py), and the reads of audit.list, audit.show and audit.revert. A record
delivered twice by the stream is written again with the same content.

Every read goes through `Sight`: a key sees the records of the entities of the areas it may read
(`read`, or `read:<area>` for one area); the account's own records (apiKey, integration, member,
tenant) are the account's, so a key sees them only with `admin`, and an integration's key only
those of its own integration; the rest answer as if they did not exist."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chalicelib import config, cursors, ids
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES, by_prefix
from chalicelib.errors import Invalid, NotFound
from chalicelib.events.changes import ACCOUNT_TYPES, Change
from chalicelib.schemas import replace_free_text
from chalicelib.scopes import SCOPE_ADMIN, holds, readable_areas
from chalicelib.store import audit_records, authors, keys, reach
from chalicelib.store.audit_records import AuditRecord, records

# The account's records an integration's admin key may see: those of its own integration (its
# connection to the tenant, and the keys carrying its id). Never the tenant, never a member.
INTEGRATION_OWN_TYPES = frozenset({"apiKey", "integration"})


def may_see_type(ctx: CallContext, entity_type: str | None) -> bool:
    """Whether the key may see any audit record of this entity type: an entity type when the key
    may read its area; the account's own only with `admin`, and an integration's key only its
    own kinds of them."""
    if entity_type not in ACCOUNT_TYPES:
        etype = ENTITY_TYPES.get(entity_type or "")
        return etype is not None and etype.area in readable_areas(ctx.scopes)
    if not holds(ctx.scopes, SCOPE_ADMIN):
        return False
    return not ctx.integration_id or entity_type in INTEGRATION_OWN_TYPES


class Sight:
    """Which audit records one call may see (may_see_type, then, for an integration's key, only
    its own integration's: its connection, whose entity id is the integration's id, and the keys
    carrying its integration id, as apikeys.list shows it). The integration's keys are read once,
    when a record of a key first asks."""

    def __init__(self, ctx: CallContext) -> None:
        self.ctx = ctx
        self._integration_keys: frozenset[str] | None = None

    def sees(self, entity_type: str | None, entity_id: str) -> bool:
        if not may_see_type(self.ctx, entity_type):
            return False
        integration_id = self.ctx.integration_id
        if entity_type not in ACCOUNT_TYPES or not integration_id:
            return True
        if entity_type == "integration":
            return entity_id == integration_id
        if self._integration_keys is None:
            self._integration_keys = keys.integration_key_ids(self.ctx.tenant_id, integration_id)
        return entity_id in self._integration_keys


def record_many(changes: list[Change]) -> None:
    """Write the audit records of changes without an event (the account's, aliases only); those
    with one are written with their feed entry (events/feed.py append)."""
    audit_records.write_records([audit_record(change) for change in changes])


def audit_record(change: Change) -> AuditRecord:
    actor = change.changed_by
    return {
        "id": change.audit_id,
        "at": change.at,
        "tenantId": change.tenant_id,
        "entityType": change.entity_type,
        "entityId": change.entity_id,
        "action": change.action,
        "operation": actor.get("operation"),
        "requestId": actor.get("requestId"),
        "channel": actor.get("channel"),
        "actor": {
            "keyId": actor.get("keyId"),
            "agentName": actor.get("agentName"),
            "integrationId": actor.get("integrationId"),
            "binding": {"type": "person", "contactId": actor["personId"]}
            if actor.get("personId")
            else {"type": "company"},
        },
        "before": change.before,
        "after": change.after,
        "changedFields": changed_fields(change.before, change.after),
    }


def changed_fields(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[str]:
    old, new = (before or {}).get("data", {}), (after or {}).get("data", {})
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


def get(ctx: CallContext, audit_id: str) -> AuditRecord:
    """The record, or 404 when it is not there or not the key's to see (the same answer)."""
    found = audit_records.get_record(ctx.tenant_id, audit_id)
    if found is None or not Sight(ctx).sees(found["entityType"], found["entityId"]) or not in_reach(ctx, found):
        raise NotFound(f"No audit record {audit_id} in this tenant.")
    return found


def _bound(moment: str | None, *, upper: bool) -> str | None:
    if not moment:
        return None
    millis = int(dt.datetime.fromisoformat(moment.replace("Z", "+00:00")).timestamp() * 1000)
    return "aud_" + ids.ulid_from(millis, (1 << 80) - 1 if upper else 0)


def search(ctx: CallContext, filters: Mapping[str, Any], after: str | None = None) -> tuple[list[str], bool]:
    """Keys of the matching records the key may see (Sight), oldest first, and whether the read
    stopped at config.COUNT_LIMIT. The time range (from/to) and the cursor (`after`, an audit id:
    only the records after it) bound the audit ids; `operation` needs the records
    (operation_filtered). Which records are the account's, and of which entity type, the index
    entries tell (their entity ids), so the totals leave out the others without reading them."""
    indexed = {name: filters[name] for name in audit_records.FILTER_SLOTS if filters.get(name)}
    lowest, highest = _bound(filters.get("from"), upper=False), _bound(filters.get("to"), upper=True)
    if after is not None and (lowest is None or after > lowest):
        lowest = after
    refs, capped = audit_records.record_refs(ctx.tenant_id, indexed, lowest, highest)
    sight, wanted = Sight(ctx), filters.get("entityType")
    after_key = audit_records.record_pk(ctx.tenant_id, after) if after is not None else None
    keys = []
    for ref in refs:
        entity_type = type_of_id(ref.entity_id)
        if ref.key != after_key and (not wanted or entity_type == wanted) and sight.sees(entity_type, ref.entity_id):
            keys.append(ref.key)
    return keys, capped


def type_of_id(entity_id: str) -> str | None:
    """The audit's entity type an entity id names (its prefix says it), None for none known."""
    account_type = audit_records.account_type_of(entity_id)
    if account_type is not None:
        return account_type
    etype = by_prefix(ids.prefix_of(entity_id))
    return etype.name if etype is not None else None


def operation_filtered(keys: list[str], operation: str) -> list[AuditRecord]:
    """The records among `keys` made by `operation`. No index holds the operation, so the
    records themselves are read: at most config.AUDIT_OPERATION_SCAN of them, else 400."""
    return [r for r in _read_scanned(keys, "operation") if r.get("operation") == operation]


def in_reach(ctx: CallContext, record: AuditRecord) -> bool:
    """An object-limited key sees the records of the entities within its objects (store/reach.py),
    judged by the state the record holds (after the change, or before it for a deletion), and
    none of the account's; every other key passes."""
    return not reach.limited(ctx) or bool(_within(ctx, [record]))


def _within(ctx: CallContext, found: list[AuditRecord]) -> set[str]:
    """The ids of the records among `found` that lie within the key's objects, judged together
    (reach.judge): none of the account's."""
    entities = [r for r in found if r["entityType"] not in ACCOUNT_TYPES]
    reached = reach.judge(ctx, [(r["entityId"], r["entityType"], _state(r)) for r in entities])
    return {r["id"] for r in entities if r["entityId"] in reached}


def _state(record: AuditRecord) -> dict[str, Any]:
    state = record.get("after") or record.get("before") or {}
    return state.get("data") or {}


def _read_scanned(keys: list[str], path: str) -> list[AuditRecord]:
    """The records of `keys`, for a filter no index serves (`path` names it in the refusal):
    at most config.AUDIT_OPERATION_SCAN of them, else 400 `filter_too_broad`."""
    if len(keys) > config.AUDIT_OPERATION_SCAN:
        raise Invalid(
            f"The {path} filter reads the records the other filters leave: "
            f"{len(keys)} here, at most {config.AUDIT_OPERATION_SCAN}."
            " Narrow them with from/to, keyId, agentName or entityId.",
            code=codes.FILTER_TOO_BROAD,
            errors=[
                {
                    "path": path,
                    "message": (
                        f"the other filters leave {len(keys)} records; at most {config.AUDIT_OPERATION_SCAN} are read"
                    ),
                }
            ],
        )
    return records(keys)


@dataclass(frozen=True)
class Page:
    """A page of audit records: `shown`, the number matching (`total`), whether counting stopped
    before the end (`capped`), and, for a page that ended early, the last record it looked at
    (its `next` goes on after it)."""

    shown: list[AuditRecord]
    total: int
    capped: bool
    looked_until: str | None = None


def page(ctx: CallContext, filters: Mapping[str, Any], limit: int, offset: int, after: str | None = None) -> Page:
    """The records `offset` to `offset + limit` of those matching the filters (after the audit id
    `after`, when given), the number matching, and whether counting stopped early."""
    keys, capped = search(ctx, filters, after)
    operation = filters.get("operation")
    if reach.limited(ctx):
        return _limited_page(ctx, keys, capped, operation, limit, offset)
    if operation:
        matching = operation_filtered(keys, operation)
        return Page(matching[offset : offset + limit], len(matching), False)
    return Page(records(keys[offset : offset + limit]), len(keys), capped)


def _limited_page(
    ctx: CallContext, keys: list[str], capped: bool, operation: str | None, limit: int, offset: int
) -> Page:
    """A page of a key limited to objects: which records lie within its objects their states say,
    so it reads them, reach.JUDGED_TOGETHER at a time (one BatchGetItem), and judges each batch
    in one go (reach.judge). It ends at its `limit`th record (the total then counts up to it,
    capped when records follow) or, once the batches read after the first and the reach's reads
    make reach.PAGE_READS, after that batch (capped, `looked_until` its last record). The reads
    weigh the call (reach.weight)."""
    shown: list[AuditRecord] = []
    matched = 0
    for start in range(0, len(keys), reach.JUDGED_TOGETHER):
        if start:  # the first batch is what an unlimited key's page reads too
            reach.count_reads(ctx, 1)
        batch = records(keys[start : start + reach.JUDGED_TOGETHER])
        candidates = [r for r in batch if not operation or r.get("operation") == operation]
        reached = _within(ctx, candidates)
        for position, record in enumerate(candidates):
            if record["id"] not in reached:
                continue
            matched += 1
            if matched > offset:
                shown.append(record)
                if len(shown) == limit:
                    more = start + len(batch) < len(keys) or position < len(candidates) - 1
                    return Page(shown, matched, capped or more)
        rest = start + reach.JUDGED_TOGETHER < len(keys)
        if rest and batch and reach.reads(ctx) >= reach.PAGE_READS:
            return Page(shown, matched, True, batch[-1]["id"])
    return Page(shown, matched, capped)


# -- cursors (audit.list's `after` and `next`) -------------------------------------------------

_CURSOR_PREFIX = "aud1."


def encode_cursor(audit_id: str) -> str:
    return cursors.encode(_CURSOR_PREFIX, audit_id)


def decode_cursor(cursor: str) -> str:
    """The audit id a cursor stands for; 400 `invalid_cursor` for anything audit.list did not hand out."""
    return cursors.decode(_CURSOR_PREFIX, cursor, _audit_id, of="audit.list")


def _audit_id(text: str) -> str:
    if ids.prefix_of(text) != "aud":
        raise ValueError(text)
    return text


def next_cursor(
    shown: list[AuditRecord], after: str | None, filters: Mapping[str, Any], looked_until: str | None = None
) -> str:
    """The cursor after a page: the last record it looked at, for a page that ended early (a key
    limited to objects), else its last record; for an empty page the cursor it started after,
    or the start of the time range (the beginning, without `from`)."""
    if looked_until is not None:
        return encode_cursor(looked_until)
    if shown:
        return encode_cursor(shown[-1]["id"])
    if after is not None:
        return encode_cursor(after)
    return encode_cursor(_bound(filters.get("from"), upper=False) or "aud_" + ids.ulid_from(0, 0))


# A state's text that the change did not write: its author is another change's.
_EARLIER = "[text omitted: written by an earlier change; audit.list with the entityId names who]"


class TextMask:
    """The free text of one change's states as a key that withholds other parties' text
    (store/authors.py) reads them: only what its own side wrote in this very change (the values
    after it of its `changedFields`); what another party wrote in it names them, what earlier
    changes wrote says so (the states hold no authors of their own). Used by audit records and
    the change feed alike."""

    def __init__(self, ctx: CallContext, etype: Any, actor: dict[str, Any], changed_fields: list[str]) -> None:
        self.etype, self.actor = etype, actor
        self.changed = set(changed_fields)
        self.kept = self.changed if authors.own_side(ctx, actor) else set()

    def values(self, values: dict[str, Any] | None, *, after_change: bool) -> dict[str, Any] | None:
        """Field values before (`after_change` False) or after the change, their text masked."""
        if values is None:
            return None
        written_here = self.changed if after_change else set()
        shown = dict(values)
        for name in self.etype.text_fields:
            if name in shown and name not in self.kept and shown[name] is not None:
                text = authors.placeholder(self.actor) if name in written_here else _EARLIER
                shown[name] = replace_free_text(self.etype.fields[name], shown[name], text)
        return shown


def text_mask(ctx: CallContext, entity_type: str, actor: dict[str, Any], changed_fields: list[str]) -> TextMask | None:
    """The mask of a change's text for this call, None when it reads the text as stored."""
    etype = ENTITY_TYPES.get(entity_type)
    if not authors.withholds(ctx) or etype is None or not etype.text_fields:
        return None
    return TextMask(ctx, etype, actor, changed_fields)


def as_read_by(ctx: CallContext, record: AuditRecord) -> AuditRecord:
    """An audit record as the call reads it (TextMask: a key that withholds other parties' text)."""
    actor = {**record["actor"], "channel": record.get("channel")}
    mask = text_mask(ctx, record["entityType"], actor, record.get("changedFields") or [])
    if mask is None:
        return record

    def state(stored: dict[str, Any] | None, after_change: bool) -> dict[str, Any] | None:
        if stored is None:
            return None
        return {**stored, "data": mask.values(stored.get("data") or {}, after_change=after_change)}

    shown = record.copy()
    shown["before"], shown["after"] = state(record["before"], False), state(record["after"], True)
    return shown
