"""Factories for the operations most resources share (show, list, create, update,
delete, restore). A resource module declares its EntityType and calls these; each call
registers one operation in the registry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.entities import EntityType
from chalicelib.registry import DocumentedError, Operation, register
from chalicelib.scopes import SCOPE_READ, SCOPE_WRITE, area_scope
from chalicelib.store import entities as store

UPDATE_NOTE = (
    "Update mode: `id` (internal id or bare alias) plus at least one field. Fields you leave out stay as they are; "
    "`null` clears an optional field. "
    "Send `version` to refuse the change when someone else changed the entity since you read it."
)


def singular_result(
    etype: EntityType, arg: str, description: str, extra_fields: dict[str, Any] | None = None
) -> dict[str, Any]:
    return s.obj({arg: s.entity_output({**etype.fields, **(extra_fields or {})}, description)}, required=[arg])


# Adds computed fields to a shown entity (a document's presigned download link).
Extra = Callable[[store.StoredEntity], dict[str, Any]]


def declare_show(
    etype: EntityType,
    *,
    name: str,
    arg: str,
    docs: str,
    extra: Extra | None = None,
    extra_fields: dict[str, Any] | None = None,
) -> Operation:
    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        item = store.get_item(ctx, etype, args[arg], path=arg)
        return {arg: {**store.to_wire(ctx, item), **(extra(item) if extra else {})}}

    return register(
        Operation(
            name=name,
            kind="query",
            summary=f"Show one {etype.label} by id or alias.",
            docs=docs,
            args=s.obj({arg: s.ref(etype.name, f"The {etype.name} to show.")}, required=[arg]),
            result=singular_result(etype, arg, f"The {etype.name}.", extra_fields),
            handler=handler,
            scope=area_scope(SCOPE_READ, etype.area),
            idempotent=True,
            example={arg: "<id or alias>"},
        )
    )


def declare_list(
    etype: EntityType,
    *,
    name: str,
    docs: str,
    filters: dict[str, dict[str, Any]] | None = None,
    fields: dict[str, str] | None = None,
    required_filters: tuple[str, ...] = (),
    paging_required: bool = True,
    normalise: dict[str, Callable[[str], str]] | None = None,
    example: dict[str, Any] | None = None,
    summary: str | None = None,
) -> Operation:
    """A paged list. `filters` maps argument name -> schema; each argument filters the
    indexed entity field of the same name, or the one `fields` names for it
    (`{"object": "objectId"}`). `normalise` brings an argument into the stored form first
    (an IBAN written with spaces). Without required paging, limit defaults to 1000."""
    filters = filters or {}
    fields = {arg: (fields or {}).get(arg, arg) for arg in filters}
    missing = [f for f in fields.values() if f not in etype.filters]
    if missing:
        raise ValueError(f"{name}: filters {missing} are not indexed on {etype.name}")
    props = {
        **filters,
        "updatedSince": s.timestamp(
            "Only the entities whose last change is at or after this time, ordered by that change; "
            "deleted ones are not listed (the change feed, changes.list, says which were deleted)."
        ),
        **s.paging(required=paging_required),
    }
    required = [*required_filters, *(["limit", "offset"] if paging_required else [])]

    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        limit, offset = args.get("limit", 1000), args.get("offset", 0)
        norm = normalise or {}
        values = {arg: norm[arg](value) if arg in norm and value is not None else value for arg, value in args.items()}
        items, total, capped = store.list_page(
            ctx,
            etype,
            {field: values.get(arg) for arg, field in fields.items()},
            limit,
            offset,
            updated_since=args.get("updatedSince"),
        )
        return {
            "pagination": s.pagination(total, limit, offset, capped),
            etype.plural: [store.to_wire(ctx, item) for item in items],
        }

    optional = [f for f in filters if f not in required_filters]
    filter_note = f" Filter by {', '.join(f'`{f}`' for f in optional)}." if optional else ""
    scope_note = f"of one {' and '.join(required_filters)}" if required_filters else "of the account"
    paging_note = (
        ""
        if paging_required
        else " `limit` (default 1000) and `offset` (default 0) are optional here: past 1,000 results the answer's "
        "`pagination.nextOffset` says where the next page begins."
    )
    return register(
        Operation(
            name=name,
            kind="query",
            summary=summary or f"List the {etype.plural_label} {scope_note}, in creation order.{filter_note}",
            docs=docs + paging_note + "\n\n" + PAGING_NOTE,
            args=s.obj(props, required=required),
            result=s.list_result(etype.plural, s.entity_output(etype.fields, f"A {etype.name}.")),
            handler=handler,
            scope=area_scope(SCOPE_READ, etype.area),
            idempotent=True,
            example=example
            or {
                **{f: "<id or alias>" for f in required_filters},
                **({"limit": 100, "offset": 0} if paging_required else {}),
            },
        )
    )


PAGING_NOTE = (
    "Paging: `limit` (1 to 1000) and `offset`; `pagination.total` is exact, and `pagination.nextOffset` appears "
    "when more results follow the page. A list reads the index keys of all "
    "matching entities (one DynamoDB query per roughly 8,000 matches) and then only the requested page, so a deep "
    "offset costs the same as offset 0."
)


def update_mode_payload(etype: EntityType, fields: dict[str, Any]) -> dict[str, Any]:
    """The Update-mode payload of `etype`: the fields its records always hold (EntityType.required)
    cannot be cleared (null), or a stored entity would lack what every one has."""
    return s.update_payload(
        s.nonempty(fields, etype.required), etype.name, "The changes (Update mode).", etype.required
    )


@dataclass(frozen=True)
class Creation:
    """A create command as an upsert (resources/upserts.py) reuses it: its payload's argument and
    required fields, and the top-level arguments that fill fields (`parents`)."""

    op: Operation
    arg: str
    required: tuple[str, ...]
    parents: dict[str, str]
    upsert: str  # the name of the type's upsert command


@dataclass(frozen=True)
class Updating:
    """An update command as an upsert runs it for an entity its alias already names."""

    op: Operation
    arg: str


# The create and update commands of each entity type, as declared: the upserts derive from them.
CREATIONS: dict[str, list[Creation]] = {}
UPDATINGS: dict[str, Updating] = {}


def upsert_name(create_name: str) -> str:
    """`contacts.create` -> `contacts.upsert`; `x.create.contact` -> `x.upsert`."""
    base = create_name.split(".create", 1)[0] if ".create" in create_name else create_name.rsplit(".", 1)[0]
    return f"{base}.upsert"


def record_update(etype: EntityType, op: Operation, arg: str) -> Operation:
    """Name `op` as the update command of `etype` (declare_update does; a custom one calls it)."""
    UPDATINGS[etype.name] = Updating(op, arg)
    return op


def declare_create(
    etype: EntityType,
    *,
    name: str,
    arg: str,
    docs: str,
    example: dict[str, Any],
    parents: dict[str, str] | None = None,
    errors: tuple[DocumentedError, ...] = (),
    summary: str | None = None,
    upsert: str | None = None,
) -> Operation:
    """A create command. `parents` maps a top-level argument to the field it fills
    (`{"object": "objectId"}` for processes.create's `object` argument); such fields are
    not part of the payload. `upsert` names the type's upsert command when the create's own
    name does not say it (upsert_name)."""
    parents = parents or {}
    # the type's required fields (EntityType.required), less those its parent arguments fill
    required = [name for name in etype.required if name not in parents.values()]
    fields = {k: v for k, v in etype.fields.items() if k not in parents.values() and k not in etype.readonly}
    parent_args = {
        a: s.ref(etype.fields[f]["x-ref"], etype.fields[f].get("description", "")) for a, f in parents.items()
    }

    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        data = {**args[arg], **{field: args[a] for a, field in parents.items()}}
        return {arg: store.to_wire(ctx, store.create(ctx, etype, data, path=arg))}

    payload = s.obj(
        s.nonempty(fields, required),
        required=required,
        description=f"The new {etype.name} (Create mode: no id).",
    )
    created = register(
        Operation(
            name=name,
            kind="command",
            summary=summary or f"Create {etype.a_label}.",
            docs=docs,
            args=s.obj({arg: payload, **parent_args}, required=[arg, *parents]),
            result=singular_result(etype, arg, f"The created {etype.name}."),
            handler=handler,
            scope=area_scope(SCOPE_WRITE, etype.area),
            errors=errors,
            example={arg: example, **{a: "<id or alias>" for a in parents}},
        )
    )
    creation = Creation(created, arg, tuple(required), dict(parents), upsert or upsert_name(name))
    CREATIONS.setdefault(etype.name, []).append(creation)
    return created


# A guard sees the stored entity and the Update-mode payload (without id and version) and
# raises a typed error to refuse the change before anything is written.
Guard = Callable[[CallContext, store.StoredEntity, dict[str, Any]], None]


def declare_update(
    etype: EntityType,
    *,
    name: str,
    arg: str,
    docs: str,
    example: dict[str, Any],
    immutable: tuple[str, ...] = (),
    guard: Guard | None = None,
    write_only: dict[str, Any] | None = None,
    errors: tuple[DocumentedError, ...] = (),
    summary: str | None = None,
) -> Operation:
    """An update command (Update mode). `immutable` fields cannot change after creation.
    With a `guard`, the stored state may refuse the change; the write is then conditioned
    on the version the guard saw, so a change in between answers 409 `stale_version`.
    `write_only` fields are accepted but never stored on the entity: the guard takes them
    out of the payload (a webhook's Authorization header)."""
    fields = {k: v for k, v in etype.fields.items() if k not in immutable and k not in etype.readonly}
    fields.update(write_only or {})

    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        payload = dict(args[arg])
        entity_id = payload.pop("id")
        version = payload.pop("version", None)
        if guard is not None:
            item = store.get_item(ctx, etype, entity_id, path=f"{arg}.id")
            guard(ctx, item, payload)
            version = version if version is not None else item.version
        updated = store.update(ctx, etype, entity_id, payload, expected_version=version, path=arg)
        return {arg: store.to_wire(ctx, updated)}

    updating = register(
        Operation(
            name=name,
            kind="command",
            summary=summary or f"Change fields of {etype.a_label}.",
            docs=docs + "\n\n" + UPDATE_NOTE,
            args=s.obj({arg: update_mode_payload(etype, fields)}, required=[arg]),
            result=singular_result(etype, arg, f"The {etype.name} after the change."),
            handler=handler,
            scope=area_scope(SCOPE_WRITE, etype.area),
            errors=(*errors, codes.STALE_VERSION),
            example={arg: {"id": "<id or alias>", **example}},
        )
    )
    return record_update(etype, updating, arg)


DELETED = s.obj(
    {
        "type": s.string("Entity type."),
        "id": s.string("Id of the deleted entity."),
        "deletedAt": s.timestamp("When it was deleted."),
    },
    required=["type", "id", "deletedAt"],
)


def declare_delete(etype: EntityType, *, name: str, arg: str, summary: str | None = None, docs: str = "") -> Operation:
    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        item = store.soft_delete(ctx, etype, args[arg], path=arg)
        return {"deleted": {"type": etype.name, "id": item.id, "deletedAt": item.deletedAt}}

    return register(
        Operation(
            name=name,
            kind="command",
            summary=summary or f"Soft-delete {etype.a_label} (restorable).",
            docs=(docs + "\n\n" if docs else "")
            + f"The {etype.name} disappears from every read, list and total, but stays stored: "
            f"`{name.rsplit('.', 1)[0]}.restore` brings it back, and the audit trail keeps the change. "
            "Refused while live entities still reference it, so nothing is orphaned silently: "
            "`referencedBy` lists them.",
            args=s.obj({arg: s.ref(etype.name, f"The {etype.name} to delete.")}, required=[arg]),
            result=s.obj({"deleted": DELETED}, required=["deleted"]),
            handler=handler,
            scope=area_scope(SCOPE_WRITE, etype.area),
            destructive=True,
            errors=(codes.STILL_REFERENCED,),
            example={arg: "<id or alias>"},
        )
    )


def declare_restore(
    etype: EntityType,
    *,
    name: str,
    arg: str,
    errors: tuple[DocumentedError, ...] = (),
) -> Operation:
    """With the entity type's `restore_guard`, the tenant's state may refuse the restore (a
    limit on live entities)."""

    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        if etype.restore_guard is not None:
            etype.restore_guard(ctx)
        return {arg: store.to_wire(ctx, store.restore(ctx, etype, args[arg], path=arg))}

    return register(
        Operation(
            name=name,
            kind="command",
            summary=f"Restore a soft-deleted {etype.label}.",
            docs=f"Brings a deleted {etype.name} back into reads and lists, with the aliases it had.",
            args=s.obj({arg: s.ref(etype.name, f"The deleted {etype.name}.")}, required=[arg]),
            result=singular_result(etype, arg, f"The restored {etype.name}."),
            handler=handler,
            scope=area_scope(SCOPE_WRITE, etype.area),
            destructive=True,
            errors=(
                codes.NOT_DELETED,
                codes.REFERENCE_DELETED,
                codes.MERGED,
                *errors,
            ),
            example={arg: "<id or alias>"},
        )
    )


def declare_lifecycle(
    etype: EntityType,
    *,
    prefix: str,
    arg: str,
    restore_errors: tuple[DocumentedError, ...] = (),
) -> None:
    """`<prefix>.delete` and `<prefix>.restore`."""
    declare_delete(etype, name=f"{prefix}.delete", arg=arg)
    declare_restore(etype, name=f"{prefix}.restore", arg=arg, errors=restore_errors)
