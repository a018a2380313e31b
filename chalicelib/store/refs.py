"""Reference edges: every reference an entity's fields make to another entity is also an
item in the referenced entity's partition (PK <tenant>#<target id>, SK ref#<source id>#<path>).

So "who references this?" is one Query, whatever the field (single ids, ids inside lists),
which serves the delete guard (nothing is deleted while live entities point at it) and
merges (every reference to the source moves to the target). Edges are written in the same
transaction as the entity, next to a ConditionCheck that the target is live."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.context import CallContext
from chalicelib.entities import EntityType, ref_types, type_of_id
from chalicelib.errors import invalid_at, not_found_at
from chalicelib.schemas import refs_in
from chalicelib.store.model import Item

EDGE_PREFIX = "ref#"


@dataclass(frozen=True)
class Ref:
    path: str  # inside the entity's data: "companyId", "parties[1].contactId"
    target_type: str
    target_id: str


def outbound(etype: EntityType, data: dict[str, Any], *, self_id: str | None, arg: str) -> list[Ref]:
    """The references in `data`, each checked to be an id of the right type (else 404 at
    its argument path) and not the entity itself (400)."""
    found = []
    for path, x_ref, target in refs_in(etype.field_schema, data, ""):
        where = f"{arg}.{path}" if arg else path
        target_type = type_of_id(target, x_ref)
        if target_type is None:
            raise not_found_at(where, f"No {' or '.join(ref_types(x_ref))} with id {target} in this tenant.")
        if target == self_id:
            raise invalid_at(where, f"a {etype.name} cannot reference itself")
        found.append(Ref(path, target_type.name, target))
    return found


def edge_key(ctx: CallContext, source_id: str, ref: Ref) -> tuple[str, str]:
    return f"{ctx.tenant_id}#{ref.target_id}", f"{EDGE_PREFIX}{source_id}#{ref.path}"


def edge_item(ctx: CallContext, etype: EntityType, source_id: str, ref: Ref) -> Item:
    pk, sk = edge_key(ctx, source_id, ref)
    return Item(
        pk,
        sk,
        type="ref",
        tenantId=ctx.tenant_id,
        id=source_id,
        data={"sourceType": etype.name, "sourceId": source_id, "path": ref.path},
    )


def inbound(ctx: CallContext, target_id: str, limit: int | None = None) -> list[dict[str, str]]:
    """Live entities referencing the target: [{type, id, path}], one Query (per ~1 MB),
    or the first `limit` of them."""
    hits = Item.query(
        f"{ctx.tenant_id}#{target_id}", Item.sk.startswith(EDGE_PREFIX), consistent_read=True, limit=limit
    )
    return [
        {"type": d["sourceType"], "id": d["sourceId"], "path": d["path"]} for d in (hit.data_dict() for hit in hits)
    ]


def set_at(data: dict[str, Any], path: str, value: Any) -> None:
    """Set (or, with None, remove) the value at a path such as `parties[1].contactId`."""
    parts: list[str | int] = []
    for segment in path.split("."):
        name, _, rest = segment.partition("[")
        if name:
            parts.append(name)
        for index in filter(None, rest.replace("]", "").split("[")) if rest else []:
            parts.append(int(index))
    target: Any = data
    for part in parts[:-1]:
        target = target[part]
    last = parts[-1]
    if value is None and isinstance(target, dict):
        target.pop(last, None)
    else:
        target[last] = value
