"""Values unique within a tenant (EntityType.unique): each taken value is a claim item,
PK <tenant>#unique#<type>.<field>#<comparison key>, written only if free in the same
transaction as the entity, and deleted in the transaction that changes the value. A
soft-deleted entity keeps its claims, so it can be restored."""

from __future__ import annotations

from typing import Any

from chalicelib import clock
from chalicelib.context import CallContext
from chalicelib.entities import EntityType
from chalicelib.errors import Conflict
from chalicelib.store.model import Item

CLAIM_SK = "unique"


def _key(etype: EntityType, field: str, value: str) -> str:
    key, _ = etype.unique[field]
    return key(value)


def claims(etype: EntityType, before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, value) in `after` whose comparison key is not already held in `before`."""
    found = []
    for field in etype.unique:
        new, old = after.get(field), before.get(field)
        if new is not None and (old is None or _key(etype, field, new) != _key(etype, field, old)):
            found.append((field, new))
    return found


def claim_pk(ctx: CallContext, etype: EntityType, field: str, value: str) -> str:
    return f"{ctx.tenant_id}#unique#{etype.name}.{field}#{_key(etype, field, value)}"


def claim_item(ctx: CallContext, etype: EntityType, field: str, value: str, entity_id: str) -> Item:
    return Item(
        claim_pk(ctx, etype, field, value),
        CLAIM_SK,
        type="uniqueClaim",
        tenantId=ctx.tenant_id,
        id=entity_id,
        data={"entityType": etype.name, "field": field, "value": value, "entityId": entity_id},
        createdAt=clock.now_iso(),
        changedBy=ctx.stamp(),
    )


def taken(etype: EntityType, field: str, value: str, arg: str) -> Conflict:
    path = f"{arg}.{field}" if arg else field
    return Conflict(
        f"{field} {value!r} is already used by another {etype.name} of this tenant.",
        code=etype.unique[field][1],
        errors=[{"path": path, "message": f"already used by another {etype.name}"}],
    )
