"""Rolling changes back: an entity returns to its state before a change (or before the
first of a set of changes), through the ordinary store writes, so the rollback is itself
stamped, audited and evented. A later change by someone else is not overwritten unless
the caller forces it."""

from __future__ import annotations

from typing import Any

from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.errors import ApiError, Conflict, Invalid
from chalicelib.store import audit_records
from chalicelib.store import entities as store
from chalicelib.store.audit_records import AuditRecord

REVERT_OPERATION = "audit.revert"  # the operation an undo's own writes are stamped with
ACCOUNT_NOT_REVERTED = (
    "Changes of the account (API keys, sign-up, plan, throttle, integrations) are audited but not reverted: "
    "disable a key or create a new one with apikeys.disable / apikeys.create; "
    "plan, throttle and integrations are the operator's (pmctl)."
)


def revert(
    ctx: CallContext, records: list[AuditRecord], *, force: bool, strict: bool, dry_run: bool = False
) -> dict[str, Any]:
    """Revert every entity the records touch to its state before its earliest record.
    Entities are handled newest change first (a contract created after its unit goes
    before the unit). With `strict`, a refusal raises instead of being reported. With
    `dry_run`, the same checks decide the same answer and nothing is written: the preview
    of what a revert would do and what it would skip."""
    groups: dict[tuple[str, str], list[AuditRecord]] = {}
    for record in sorted(records, key=lambda r: r["id"]):
        groups.setdefault((record["entityType"], record["entityId"]), []).append(record)
    reverted, skipped = [], []
    for (type_name, entity_id), changes in sorted(groups.items(), key=lambda g: g[1][-1]["id"], reverse=True):
        target = {"entityType": type_name, "entityId": entity_id, "auditRecords": [c["id"] for c in changes]}
        if type_name not in ENTITY_TYPES:  # the account's records: a revert must never revive a disabled key
            refusal = Invalid(ACCOUNT_NOT_REVERTED, code=codes.NOT_REVERTIBLE)
            if strict:
                raise refusal
            skipped.append({**target, "code": refusal.code, "reason": refusal.detail})
            continue
        try:
            action = _revert_one(ctx, type_name, entity_id, changes, force=force, dry_run=dry_run)
        except ApiError as err:
            if strict:
                raise
            skipped.append({**target, "code": err.code, "reason": err.detail})
            continue
        reverted.append({**target, "action": action})
    return {"reverted": reverted, "skipped": skipped}


def _revert_one(
    ctx: CallContext,
    type_name: str,
    entity_id: str,
    changes: list[AuditRecord],
    *,
    force: bool,
    dry_run: bool,
) -> str:
    etype = ENTITY_TYPES[type_name]
    earliest, latest = changes[0], changes[-1]
    item = store.get_item(ctx, etype, entity_id, include_deleted=True)
    expected = (latest.get("after") or {}).get("version")
    changed_later = expected is not None and item.version != int(expected)
    if changed_later and not force and not _undone_since(ctx, item, changes):
        raise Conflict(
            f"{type_name} {entity_id} changed after {latest['id']} (now version {item.version}); "
            "send force to overwrite that change.",
            code=codes.CHANGED_LATER,
            extra={"currentVersion": item.version},
        )
    goal = earliest.get("before")
    live = not item.deletedAt
    if changed_later and _in_state(item, goal):  # undone since (or set back by hand): nothing left to do
        return "none"
    if goal is None or goal.get("deletedAt"):  # it did not exist, or was deleted, before: take it away again
        if not live:
            return "none"
        if not dry_run:
            store.soft_delete(ctx, etype, entity_id, path="")
        return "deleted"
    if not live and etype.restore_guard is not None:  # a limit on live ones (webhooks) holds here too
        etype.restore_guard(ctx)
    if dry_run:
        return "updated" if live else "restored"
    action = "updated"
    if not live:
        store.restore(ctx, etype, entity_id, path="")
        action = "restored"
    if store.get_item(ctx, etype, entity_id).data_dict() != goal["data"]:
        store.replace_data(ctx, etype, entity_id, goal["data"])
    return action


def _undone_since(ctx: CallContext, item: Any, changes: list[AuditRecord]) -> bool:
    """Whether everything written to the entity after `changes` is undos (audit.revert) that left
    it in a state it had within them (before one of the changes): the undo of one of these
    changes is no one else's later change, and setting back the whole of them overwrites
    nothing outside them. The later records must account for the entity's version (a change
    whose record the stream has not written yet counts as someone else's)."""
    later = audit_records.record_refs(ctx.tenant_id, {"entityId": changes[0]["entityId"]}, changes[-1]["id"], None)[0]
    records = [r for r in audit_records.records([ref.key for ref in later]) if r["id"] > changes[-1]["id"]]
    if not records or any(r.get("operation") != REVERT_OPERATION for r in records):
        return False
    if (records[-1].get("after") or {}).get("version") != item.version:
        return False
    return any(_in_state(item, change.get("before")) for change in changes)


def _in_state(item: Any, state: dict[str, Any] | None) -> bool:
    """Whether the entity is as `state` (a record's before or after) describes it: absent or
    deleted alike, or live with the same data."""
    if state is None or state.get("deletedAt"):
        return bool(item.deletedAt)
    return not item.deletedAt and item.data_dict() == state.get("data")
