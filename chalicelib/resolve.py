"""The one reference resolver: wherever a schema marks a string with `x-ref`, the
caller may send an internal id or a bare alias; handlers only ever see ids."""

from __future__ import annotations

from typing import Any

from chalicelib import ids
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES, ref_types, type_of_id
from chalicelib.errors import not_found_at
from chalicelib.registry import Operation
from chalicelib.schemas import map_refs
from chalicelib.store import aliases


def resolve_refs(ctx: CallContext, op: Operation, args: dict[str, Any]) -> dict[str, Any]:
    def resolve(path: str, x_ref: Any, value: str) -> str:
        allowed = ref_types(x_ref)
        wanted = " or ".join(allowed)
        if ids.looks_like_id(value):
            if type_of_id(value, x_ref) is None:
                raise not_found_at(path, f"{value} is not the id of a {wanted}.")
            return value
        if not any(ENTITY_TYPES[name].aliasable for name in allowed if name in ENTITY_TYPES):
            raise not_found_at(path, f"A {wanted} is referenced by id only; {value!r} is not one.")
        hit = aliases.resolve(ctx, value)
        if hit is None or hit[1] not in allowed:
            raise not_found_at(path, f"No {wanted} with alias {value!r} for this integration.")
        return hit[0]

    resolved: dict[str, Any] = map_refs(op.checked_args, args, "", resolve)
    return resolved
