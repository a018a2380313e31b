"""The audit trail: one record per entity change, written by the stream handler.

Record item: PK <tenant>#<audit id>, SK "audit". Indexes: gsi1 all records of the tenant,
gsi2 per entity, gsi3 per key, gsi4 per agent; all sorted by the audit id, a ULID whose time
is the change's, so a time range is a key condition, never a filter over everything.
A record delivered twice by the stream is written again with the same content."""

from __future__ import annotations

import datetime as dt
from typing import Any

from chalicelib import config, ids
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.errors import Invalid, NotFound
from chalicelib.events.changes import Change
from chalicelib.store.entities import fetch_many, matching_keys
from chalicelib.store.model import INDEXES, Item

AUDIT_SK = "audit"
FILTER_SLOTS = {"entityId": 2, "keyId": 3, "agentName": 4}


def _slot_pk(tenant_id: str, name: str | None = None, value: str | None = None) -> str:
    return f"{tenant_id}#audit" if name is None else f"{tenant_id}#audit#{name}={value}"


def record(change: Change) -> None:
    """Write the audit record of one change."""
    record_many([change])


def record_many(changes: list[Change]) -> None:
    """Write the audit records of a stream batch with BatchWriteItem (25 a call). The
    content of a record is a function of its stream record, so writing it again when the
    stream redelivers changes nothing: no condition needed."""
    with Item.batch_write() as batch:
        for change in changes:
            batch.save(_item(change))


def _item(change: Change) -> Item:
    actor = change.changed_by
    data = {
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
    slots: dict[str, Any] = {"gsi1pk": _slot_pk(change.tenant_id), "gsi1sk": change.audit_id}
    for name, slot in FILTER_SLOTS.items():
        value = change.entity_id if name == "entityId" else actor.get(name)
        if value:
            slots[f"gsi{slot}pk"], slots[f"gsi{slot}sk"] = _slot_pk(change.tenant_id, name, value), change.audit_id
    return Item(
        f"{change.tenant_id}#{change.audit_id}",
        AUDIT_SK,
        type="audit",
        tenantId=change.tenant_id,
        id=change.audit_id,
        data=data,
        createdAt=change.at,
        **slots,
    )


def changed_fields(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[str]:
    old, new = (before or {}).get("data", {}), (after or {}).get("data", {})
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


def get(ctx: CallContext, audit_id: str) -> dict[str, Any]:
    try:
        item = Item.get(f"{ctx.tenant_id}#{audit_id}", AUDIT_SK, consistent_read=True)
    except Item.DoesNotExist:
        raise NotFound(f"No audit record {audit_id} in this tenant.") from None
    return item.data_dict()


def _bound(moment: str | None, *, upper: bool) -> str | None:
    if not moment:
        return None
    millis = int(dt.datetime.fromisoformat(moment.replace("Z", "+00:00")).timestamp() * 1000)
    return "aud_" + ids.ulid_from(millis, (1 << 80) - 1 if upper else 0)


def search(ctx: CallContext, filters: dict[str, Any]) -> tuple[list[str], bool]:
    """Keys (PK) of the matching records, oldest first, and whether the read stopped at
    config.COUNT_LIMIT. The most selective given filter picks the index, the time range is
    its key condition, the other filters are checked on the index keys; `operation` needs
    the records (operation_filtered)."""
    chosen = next((name for name in FILTER_SLOTS if filters.get(name)), None)
    slot = FILTER_SLOTS[chosen] if chosen else 1
    index = INDEXES[slot]
    hash_key = _slot_pk(ctx.tenant_id, chosen, filters[chosen]) if chosen else _slot_pk(ctx.tenant_id)
    lo, hi = _bound(filters.get("from"), upper=False), _bound(filters.get("to"), upper=True)
    sort_attr = getattr(Item, f"gsi{slot}sk")
    condition = None
    if lo and hi:
        condition = sort_attr.between(lo, hi)
    elif lo:
        condition = sort_attr >= lo
    elif hi:
        condition = sort_attr <= hi
    checks = {
        f"gsi{FILTER_SLOTS[n]}pk": _slot_pk(ctx.tenant_id, n, filters[n])
        for n in FILTER_SLOTS
        if filters.get(n) and n != chosen
    }
    return matching_keys(index, hash_key, condition, checks)


def records(keys: list[str]) -> list[dict[str, Any]]:
    return [item.data_dict() for item in fetch_many([(pk, AUDIT_SK) for pk in keys])]


def operation_filtered(keys: list[str], operation: str) -> list[dict[str, Any]]:
    """The records among `keys` made by `operation`. No index holds the operation, so the
    records themselves are read: at most config.AUDIT_OPERATION_SCAN of them, else 400."""
    if len(keys) > config.AUDIT_OPERATION_SCAN:
        raise Invalid(
            "The operation filter reads the records the other filters leave: "
            f"{len(keys)} here, at most {config.AUDIT_OPERATION_SCAN}."
            " Narrow them with from/to, keyId, agentName or entityId.",
            code=codes.FILTER_TOO_BROAD,
            errors=[
                {
                    "path": "operation",
                    "message": (
                        f"the other filters leave {len(keys)} records; at most {config.AUDIT_OPERATION_SCAN} are read"
                    ),
                }
            ],
        )
    return [r for r in records(keys) if r.get("operation") == operation]


def page(ctx: CallContext, filters: dict[str, Any], limit: int, offset: int) -> tuple[list[dict[str, Any]], int, bool]:
    keys, capped = search(ctx, filters)
    if filters.get("operation"):
        matching = operation_filtered(keys, filters["operation"])
        return matching[offset : offset + limit], len(matching), False
    return records(keys[offset : offset + limit]), len(keys), capped
