"""What an export writes: one line per entity, in an order that can be re-imported.

A line is `{"type", "upsert", "alias", "aliases", "data"}`: `upsert` the command that takes it back
(`<list>.upsert`), `data` exactly what that command takes for the item (its fields, no read-only
ones), every reference written as the referenced entity's alias in the exporting key's integration
(its id when it has none), `alias` the entity's first alias (its id when it has none; the upserts
map an id from elsewhere like an alias), `aliases` all of them. Documents and UVI documents have
no upsert (`upsert` is null): their lines carry the metadata and `file`, the file's name in the
export's file archive (exports/archive.py).

Types come referenced before referencing (the upserts' item schemas say what refers to what);
a type that refers to itself (a contact's `companyId`) comes in two passes, the entities without
such a reference first."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from chalicelib import registry
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES, EntityType, ref_types
from chalicelib.schemas import map_refs
from chalicelib.scopes import SCOPE_READ, area_scope, meets
from chalicelib.store import entities as store
from chalicelib.store import reach
from chalicelib.store.entities import StoredEntity

# Entity types with a file: exported with their metadata and the file in the archive, re-imported by
# upload (pmctl import; `contentType` and `size` are what the bulk upload declares). The checksum is
# the file's, computed again when it is uploaded.
FILE_TYPES = ("document", "uviDocument")
FILE_FACTS = ("checksum",)
# The aliases of referenced entities remembered at once (id -> alias): a tenant's size does not
# grow the worker's memory past this.
REMEMBERED_ALIASES = 20_000


@dataclass(frozen=True)
class Kind:
    """One exported entity type: the schema of its lines' data, its upsert (None for a file
    type) and the fields that refer to its own type (read in a second pass)."""

    etype: EntityType
    schema: dict[str, Any]
    upsert: str | None
    self_refs: tuple[str, ...]

    def readable_by(self, scopes: frozenset[str]) -> bool:
        """A key of these scopes may read the type (its area's read scope)."""
        return meets(scopes, area_scope(SCOPE_READ, self.etype.area))


def _references(schema: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(top-level field, referenced types) of a schema's references, arrays and nesting included."""
    found: list[tuple[str, list[str]]] = []

    def walk(node: Any, field: str) -> None:
        if not isinstance(node, dict):
            return
        if "x-ref" in node:
            found.append((field, ref_types(node["x-ref"])))
        for name, child in (node.get("properties") or {}).items():
            walk(child, field or name)
        walk(node.get("items"), field)

    walk(schema, "")
    return found


def _file_schema(etype: EntityType) -> dict[str, Any]:
    fields = {name: field for name, field in etype.fields.items() if name not in FILE_FACTS}
    return {"type": "object", "properties": fields}


@cache
def kinds() -> tuple[Kind, ...]:
    """Every exportable entity type, referenced before referencing (once the registry holds the
    upserts: resources/__init__.py declares them last)."""
    found: dict[str, Kind] = {}
    for op in registry.REGISTRY.values():
        if op.upserts is None:
            continue
        items = op.args["properties"][op.items_checked_alone or "items"]["items"]
        schema = {**items, "properties": {k: v for k, v in items["properties"].items() if k != "alias"}}
        selfs = tuple(field for field, types in _references(schema) if op.upserts in types)
        found[op.upserts] = Kind(ENTITY_TYPES[op.upserts], schema, op.name, selfs)
    for name in FILE_TYPES:
        found[name] = Kind(ENTITY_TYPES[name], _file_schema(ENTITY_TYPES[name]), None, ())
    return tuple(_ordered(found))


def _ordered(found: dict[str, Kind]) -> list[Kind]:
    needs = {
        name: {t for _, types in _references(kind.schema) for t in types if t in found and t != name}
        for name, kind in found.items()
    }
    ordered: list[Kind] = []
    done: set[str] = set()
    while len(done) < len(found):
        ready = [name for name in found if name not in done and needs[name] <= done]
        if not ready:
            raise ValueError(f"entity types refer to each other in a cycle: {sorted(set(found) - done)}")
        for name in ready:  # in declaration order, for a stable file
            ordered.append(found[name])
            done.add(name)
    return ordered


class Aliases:
    """The alias a reference is written as: the referenced entity's first alias in the key's
    integration, its id when it has none (or lies outside an object-limited key's reach).
    Read in batches, a bounded number remembered."""

    def __init__(self, ctx: CallContext) -> None:
        self.ctx = ctx
        self.known: OrderedDict[str, str] = OrderedDict()

    def remember(self, entity_id: str, alias: str) -> None:
        self.known[entity_id] = alias
        self.known.move_to_end(entity_id)
        while len(self.known) > REMEMBERED_ALIASES:
            self.known.popitem(last=False)

    def read_ahead(self, entity_ids: set[str]) -> None:
        missing = [i for i in entity_ids if i not in self.known]
        if not missing:
            return
        found = {
            item.id: item for item in store.fetch_entities([store.entity_pk(self.ctx.tenant_id, i) for i in missing])
        }
        reached = reach.within(self.ctx, found) if reach.limited(self.ctx) else set(found)
        for entity_id in missing:
            item = found.get(entity_id)
            own = first_alias(self.ctx, item) if item is not None and entity_id in reached else None
            self.remember(entity_id, own or entity_id)

    def of(self, entity_id: str) -> str:
        return self.known.get(entity_id, entity_id)


def all_aliases(ctx: CallContext, item: StoredEntity) -> list[str]:
    stored = item.aliases.as_dict() if item.aliases is not None else {}
    return sorted(stored.get(ctx.integration_key, []))


def first_alias(ctx: CallContext, item: StoredEntity) -> str | None:
    names = all_aliases(ctx, item)
    return names[0] if names else None


def entities(ctx: CallContext, kind: Kind) -> Iterator[list[Any]]:
    """The type's entities the key may read, a chunk at a time; a self-referring type's entities
    without such a reference first."""
    if not kind.self_refs:
        yield from store.live_entities(ctx, kind.etype)
        return
    for first in (True, False):
        for chunk in store.live_entities(ctx, kind.etype):
            picked = [item for item in chunk if _refers_to_own(kind, item.data_dict()) != first]
            if picked:
                yield picked


def _refers_to_own(kind: Kind, data: dict[str, Any]) -> bool:
    return any(data.get(field) for field in kind.self_refs)


def lines(ctx: CallContext, kind: Kind, chunk: list[Any], aliases: Aliases) -> Iterator[tuple[Any, dict[str, Any]]]:
    """Each entity of the chunk with its line. The referenced entities' aliases are read for the
    whole chunk at once."""
    wired = [store.to_wire(ctx, item) for item in chunk]
    referenced: set[str] = set()

    def collect(_path: str, _ref: Any, value: str) -> str:
        referenced.add(value)
        return value

    for data in wired:
        map_refs(kind.schema, _data(kind, data), "", collect)
    aliases.read_ahead(referenced)
    for item, data in zip(chunk, wired, strict=True):
        names = all_aliases(ctx, item)
        alias = names[0] if names else str(item.id)
        aliases.remember(str(item.id), alias)
        line: dict[str, Any] = {
            "type": kind.etype.name,
            "upsert": kind.upsert,
            "alias": alias,
            "aliases": names,
            "data": map_refs(kind.schema, _data(kind, data), "", lambda _p, _r, value: aliases.of(value)),
        }
        yield item, line


def _data(kind: Kind, wired: dict[str, Any]) -> dict[str, Any]:
    """The fields the upsert takes, those with a value."""
    return {name: wired[name] for name in kind.schema["properties"] if wired.get(name) is not None}
