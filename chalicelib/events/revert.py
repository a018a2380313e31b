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
from chalicelib.store import entities as store
from chalicelib.store.audit_records import AuditRecord

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
            action = _revert_one(ctx, type_name, entity_id, changes[0], changes[-1], force=force, dry_run=dry_run)
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
    earliest: AuditRecord,
    latest: AuditRecord,
    *,
    force: bool,
    dry_run: bool,
) -> str:
    etype = ENTITY_TYPES[type_name]
    item = store.get_item(ctx, etype, entity_id, include_deleted=True)
    expected = (latest.get("after") or {}).get("version")
    if expected is not None and item.version != int(expected) and not force:
        raise Conflict(
            f"{type_name} {entity_id} changed after {latest['id']} (now version {item.version}); "
            "send force to overwrite that change.",
            code=codes.CHANGED_LATER,
            extra={"currentVersion": item.version},
        )
    goal = earliest.get("before")
    live = not item.deletedAt
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
