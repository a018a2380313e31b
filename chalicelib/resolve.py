"""The one reference resolver: wherever a schema marks a string with `x-ref`, the
caller may send an internal id or a bare alias; handlers only ever see ids."""

from __future__ import annotations

from typing import Any

from chalicelib import ids
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.errors import not_found_at
from chalicelib.registry import Operation
from chalicelib.schemas import map_refs
from chalicelib.store import aliases


def resolve_refs(ctx: CallContext, op: Operation, args: dict[str, Any]) -> dict[str, Any]:
    def resolve(path: str, type_name: str, value: str) -> str:
        etype = ENTITY_TYPES.get(type_name)
        if etype is None:
            raise not_found_at(path, f"Unknown entity type {type_name}.")
        if ids.looks_like_id(value):
            if ids.prefix_of(value) != etype.prefix:
                raise not_found_at(path, f"{value} is not the id of a {type_name}.")
            return value
        if not etype.aliasable:
            raise not_found_at(path, f"A {type_name} is referenced by id only; {value!r} is not one.")
        hit = aliases.resolve(ctx, value)
        if hit is None or hit[1] != type_name:
            raise not_found_at(path, f"No {type_name} with alias {value!r} for this integration.")
        return hit[0]

    resolved: dict[str, Any] = map_refs(op.args, args, "", resolve)
    return resolved
