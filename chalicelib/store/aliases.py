"""Aliases: bare external names for entities, scoped per (tenant, integration).

An alias item (PK <tenant>#alias#<integration>#<alias>) maps the name to the entity and
guarantees uniqueness; the entity keeps its own aliases per integration in a string set,
so a read by id returns them without a second call. Both change in one transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chalicelib import clock, config, ids
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.errors import Conflict, NotFound
from chalicelib.store import reach
from chalicelib.store.entities import entity_pk, fetch_entities, fetch_many, matching_keys
from chalicelib.store.model import ENTITY_SK, INDEXES, Item, Transaction, TransactionCancelled

ALIAS_SK = "alias"


def integration_alias_pk(tenant_id: str, integration: str, alias: str) -> str:
    """The alias item's key for any integration (a merge moves every integration's aliases)."""
    return f"{tenant_id}#alias#{integration}#{alias}"


def alias_pk(ctx: CallContext, alias: str) -> str:
    return integration_alias_pk(ctx.tenant_id, ctx.integration_key, alias)


def alias_list_pk(ctx: CallContext) -> str:
    return f"{ctx.tenant_id}#alias@{ctx.integration_key}"


def resolve(ctx: CallContext, alias: str) -> tuple[str, str] | None:
    """(id, entity type) an alias names, or None. One GetItem."""
    try:
        item = Item.get(alias_pk(ctx, alias), ALIAS_SK, consistent_read=True)
    except Item.DoesNotExist:
        return None
    data = item.data_dict()
    if reach.limited(ctx) and not reach.within(ctx, [data["id"]]):
        return None  # names an entity out of an object-limited key's reach: as unknown as a missing one
    return data["id"], data["type"]


def lookup_many(ctx: CallContext, names: list[str], *, reached_only: bool = True) -> dict[str, tuple[str, str]]:
    """resolve() for many aliases at once (BatchGetItem, 100 a call): alias -> (id, entity type)
    for those that name something (within an object-limited key's reach, unless not `reached_only`:
    the caller then judges the reach itself)."""
    items = fetch_many([(alias_pk(ctx, name), ALIAS_SK) for name in dict.fromkeys(names)])
    found = {entry["alias"]: (entry["id"], entry["type"]) for entry in map(_entry, items)}
    if reached_only and reach.limited(ctx):
        reached = reach.within(ctx, [entity_id for entity_id, _ in found.values()])
        found = {name: hit for name, hit in found.items() if hit[0] in reached}
    return found


def alias_item(ctx: CallContext, alias: str, entity_id: str, entity_type: str, now: str) -> Item:
    """The item that maps `alias` (of the caller's integration) to an entity."""
    return Item(
        alias_pk(ctx, alias),
        ALIAS_SK,
        type="alias",
        tenantId=ctx.tenant_id,
        id=entity_id,
        data={"alias": alias, "id": entity_id, "type": entity_type},
        createdAt=now,
        updatedAt=now,
        changedBy=ctx.stamp(),
        gsi1pk=alias_list_pk(ctx),
        gsi1sk=alias,
    )


def upsert(ctx: CallContext, entries: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Map every alias to its entity, all or nothing. An alias already mapped to another
    entity is a conflict; mapping it again to the same entity changes nothing. An object-limited
    key names only entities within its reach (else 404, as for a missing one)."""
    if reach.limited(ctx):
        reached = reach.within(ctx, [e["id"] for e in entries])
        for index, entry in enumerate(entries):
            if entry["id"] not in reached:
                raise _no_entity(entry, index)
    by_entity: dict[str, list[str]] = {}
    now = clock.now_iso()
    try:
        with Transaction() as tx:
            for index, entry in enumerate(entries):
                mapping = alias_item(ctx, entry["alias"], entry["id"], entry["type"], now)
                tx.save(mapping, condition=Item.pk.does_not_exist() | (Item.id == entry["id"]), label=("alias", index))
                by_entity.setdefault(entry["id"], []).append(entry["alias"])
            first_entry = {e["id"]: i for i, e in reversed(list(enumerate(entries)))}
            for entity_id, names in by_entity.items():
                entry = entries[first_entry[entity_id]]
                target = Item(entity_pk(ctx.tenant_id, entity_id), ENTITY_SK)
                condition = Item.pk.exists() & Item.deletedAt.does_not_exist() & (Item.type == entry["type"])
                tx.update(
                    target,
                    actions=[Item.aliases[ctx.integration_key].add(set(names))],
                    condition=condition,
                    label=("entity", first_entry[entity_id]),
                )
    except TransactionCancelled as err:
        for what, index in sorted(err.failed, key=lambda label: label[1]):
            entry = entries[index]
            path = f"entries[{index}]"
            if what == "alias":
                raise Conflict(
                    f"{path}: alias {entry['alias']!r} already names another entity.",
                    code=codes.ALIAS_TAKEN,
                    errors=[{"path": f"{path}.alias", "message": "alias already names another entity"}],
                ) from err
            raise _no_entity(entry, index) from err
        raise
    return [{"alias": e["alias"], "id": e["id"], "type": e["type"]} for e in entries]


def _no_entity(entry: Mapping[str, Any], index: int) -> NotFound:
    path = f"entries[{index}]"
    return NotFound(
        f"{path}: no live {entry['type']} with id {entry['id']} in this tenant.",
        errors=[{"path": f"{path}.id", "message": f"no live {entry['type']} with this id"}],
    )


def list_page(ctx: CallContext, limit: int, offset: int) -> tuple[list[dict[str, str]], int, bool]:
    """The integration's aliases in alphabetical order. Entries whose entity type is not
    (or no longer) known are left out of the page; `total` counts stored entries (up to
    config.COUNT_LIMIT, then capped)."""
    keys, capped = matching_keys(INDEXES[1], alias_list_pk(ctx), None, {})
    if reach.limited(ctx):
        return _page_within_reach(ctx, keys, capped, limit, offset)
    items = fetch_many([(pk, ALIAS_SK) for pk in keys[offset : offset + limit]])
    entries = [_entry(item) for item in items]
    return [e for e in entries if e["type"] in ENTITY_TYPES], len(keys), capped


def _page_within_reach(
    ctx: CallContext, keys: list[str], capped: bool, limit: int, offset: int
) -> tuple[list[dict[str, str]], int, bool]:
    """For a key limited to objects, the entries naming entities within its reach: which they are
    only the entities say, so the first config.ALIAS_REACH_SCAN entries are read (beyond: capped)."""
    scanned = keys[: config.ALIAS_REACH_SCAN]
    entries = [_entry(item) for item in fetch_many([(pk, ALIAS_SK) for pk in scanned])]
    reached = reach.within(ctx, [e["id"] for e in entries])
    within = [e for e in entries if e["type"] in ENTITY_TYPES and e["id"] in reached]
    return within[offset : offset + limit], len(within), capped or len(keys) > len(scanned)


def _entry(item: Item) -> dict[str, str]:
    data = item.data_dict()
    return {"alias": data["alias"], "id": data["id"], "type": data["type"]}


def resolve_many(ctx: CallContext, aliases: list[str], entity_ids: list[str]) -> list[dict[str, str]]:
    """{alias, id, type} for every given alias and every alias of every given id; inputs
    that map to nothing (or to a deleted entity, or an unknown type) are left out."""
    results: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    alias_items = fetch_many([(alias_pk(ctx, a), ALIAS_SK) for a in dict.fromkeys(aliases)])
    by_alias = [_entry(item) for item in alias_items]
    wanted_ids = [i for i in dict.fromkeys(entity_ids) if ids.looks_like_id(i)]
    live = {
        item.id: item
        for item in fetch_entities(
            [entity_pk(ctx.tenant_id, i) for i in dict.fromkeys(wanted_ids + [e["id"] for e in by_alias])]
        )
    }
    if reach.limited(ctx):  # an object-limited key learns nothing of entities out of its reach
        reached = reach.within(ctx, live)
        live = {entity_id: item for entity_id, item in live.items() if entity_id in reached}
    for entry in by_alias:
        if entry["id"] in live and entry["type"] in ENTITY_TYPES and (entry["alias"], entry["id"]) not in seen:
            seen.add((entry["alias"], entry["id"]))
            results.append(entry)
    for entity_id in wanted_ids:
        item = live.get(entity_id)
        if item is None or item.type not in ENTITY_TYPES:
            continue
        names = (item.aliases.as_dict() if item.aliases is not None else {}).get(ctx.integration_key, set())
        for name in sorted(names):
            if (name, entity_id) not in seen:
                seen.add((name, entity_id))
                results.append({"alias": name, "id": entity_id, "type": item.type})
    return results
