"""Factories for the operations most resources share (show, list, create, update,
delete, restore). A resource module declares its EntityType and calls these; each call
registers one operation in the registry."""

from __future__ import annotations

from typing import Any

from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.entities import EntityType
from chalicelib.registry import Operation, register
from chalicelib.store import entities as store

UPDATE_NOTE = (
    "Update mode: `id` (internal id or bare alias) plus at least one field. Fields you leave out stay as they are; "
    "`null` clears an optional field. Send `version` to refuse the change when someone else changed the entity since you read it."
)


def singular_result(etype: EntityType, arg: str, description: str) -> dict[str, Any]:
    return s.obj({arg: s.entity_output(etype.fields, description)}, required=[arg])


def declare_show(etype: EntityType, name: str, arg: str, docs: str) -> Operation:
    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        return {arg: store.to_wire(ctx, store.get_item(ctx, etype, args[arg], path=arg))}

    return register(
        Operation(
            name=name,
            kind="query",
            summary=f"Show one {etype.name} by id or alias.",
            docs=docs,
            args=s.obj({arg: s.ref(etype.name, f"The {etype.name} to show.")}, required=[arg]),
            result=singular_result(etype, arg, f"The {etype.name}."),
            handler=handler,
            scope="read",
            idempotent=True,
            example={arg: "<id or alias>"},
        )
    )


def declare_list(
    etype: EntityType,
    name: str,
    docs: str,
    *,
    filters: dict[str, dict[str, Any]] | None = None,
    paging_required: bool = True,
) -> Operation:
    """A paged list. `filters` maps argument name -> schema; each argument filters the
    entity field of the same name, which the EntityType must index."""
    filters = filters or {}
    missing = [f for f in filters if f not in etype.filters]
    if missing:
        raise ValueError(f"{name}: filters {missing} are not indexed on {etype.name}")
    props = {**filters, **s.paging(required=paging_required)}

    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        limit, offset = args.get("limit", 1000), args.get("offset", 0)
        items, total = store.list_page(ctx, etype, {f: args.get(f) for f in filters}, limit, offset)
        return {
            "pagination": {"total": total, "limit": limit, "offset": offset},
            etype.plural: [store.to_wire(ctx, item) for item in items],
        }

    filter_note = f" Filter by {', '.join(f'`{f}`' for f in filters)}." if filters else ""
    return register(
        Operation(
            name=name,
            kind="query",
            summary=f"List {etype.plural} of the tenant, in creation order.{filter_note}",
            docs=docs + "\n\n" + PAGING_NOTE,
            args=s.obj(props, required=["limit", "offset"] if paging_required else []),
            result=s.list_result(etype.plural, s.entity_output(etype.fields, f"A {etype.name}.")),
            handler=handler,
            scope="read",
            idempotent=True,
            example={"limit": 100, "offset": 0},
        )
    )


PAGING_NOTE = (
    "Paging: `limit` (1 to 1000) and `offset`; `pagination.total` is exact. A list reads the index keys of all "
    "matching entities (one DynamoDB query per roughly 8,000 matches) and then only the requested page, so a deep "
    "offset costs the same as offset 0."
)


def declare_create(etype: EntityType, name: str, arg: str, docs: str, *, required: list[str], example: dict[str, Any]) -> Operation:
    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        return {arg: store.to_wire(ctx, store.create(ctx, etype, args[arg], path=arg))}

    payload = s.obj(etype.fields, required=required, description=f"The new {etype.name} (Create mode: no id).")
    return register(
        Operation(
            name=name,
            kind="command",
            summary=f"Create a {etype.name}.",
            docs=docs,
            args=s.obj({arg: payload}, required=[arg]),
            result=singular_result(etype, arg, f"The created {etype.name}."),
            handler=handler,
            scope=f"write:{etype.area}",
            example={arg: example},
        )
    )


def declare_update(etype: EntityType, name: str, arg: str, docs: str, *, example: dict[str, Any]) -> Operation:
    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        payload = dict(args[arg])
        entity_id = payload.pop("id")
        version = payload.pop("version", None)
        item = store.update(ctx, etype, entity_id, payload, expected_version=version, path=arg)
        return {arg: store.to_wire(ctx, item)}

    return register(
        Operation(
            name=name,
            kind="command",
            summary=f"Change fields of a {etype.name}.",
            docs=docs + "\n\n" + UPDATE_NOTE,
            args=s.obj({arg: s.update_payload(etype.fields, etype.name, "The changes (Update mode).")}, required=[arg]),
            result=singular_result(etype, arg, f"The {etype.name} after the change."),
            handler=handler,
            scope=f"write:{etype.area}",
            errors=("409 `stale_version`: the entity changed since the `version` you sent; read it again.",),
            example={arg: {"id": "<id or alias>", **example}},
        )
    )
