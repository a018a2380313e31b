"""Generic entity storage: read, create, update, soft delete, restore and list pages.

Costs in DynamoDB calls (the benchmark counts them):
  get               1 GetItem (consistent)
  create            1 PutItem, or 1 TransactWriteItems when the payload references others
                    (per referenced entity a ConditionCheck that it is live, per reference an
                    edge item: see refs.py)
  update            1 GetItem + 1 UpdateItem (a transaction when references change),
                    conditioned on the version
  delete            1 Query (is anything still referencing it?) + 1 GetItem + 1 write
  list page         1 Query per ~1 MB of matching index keys (several thousand items)
                    + 1 BatchGetItem per 100 items returned
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from pynamodb.exceptions import PutError, UpdateError
from pynamodb.expressions.condition import Condition

from chalicelib import clock, ids
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES, EntityType, by_prefix
from chalicelib.errors import Conflict, Invalid, NotFound, not_found_at
from chalicelib.store import authors, reach, refs, uniques
from chalicelib.store.entity_reads import BATCH_GET_SIZE as BATCH_GET_SIZE
from chalicelib.store.entity_reads import entity_pk as entity_pk
from chalicelib.store.entity_reads import fetch_entities as fetch_entities
from chalicelib.store.entity_reads import fetch_many as fetch_many
from chalicelib.store.entity_reads import filter_pk as filter_pk
from chalicelib.store.entity_reads import list_pk as list_pk
from chalicelib.store.entity_reads import matching_keys as matching_keys
from chalicelib.store.model import (
    CHANGED_SLOT,
    ENTITY_SK,
    INDEXES,
    SLOT_COUNT,
    Item,
    Transaction,
    TransactionCancelled,
)

REFERRERS_SHOWN = 100  # a refused delete names at most this many referrers


class StoredMap(Protocol):
    def as_dict(self) -> dict[str, Any]: ...


class StoredEntity(Protocol):
    """What the layers above may read of an entity the store answers (a guard, a computed
    field): its stored state, never the table item's writes, which stay in the store."""

    @property
    def id(self) -> str | None: ...

    @property
    def version(self) -> int: ...

    @property
    def createdAt(self) -> str | None: ...

    @property
    def updatedAt(self) -> str | None: ...

    @property
    def deletedAt(self) -> str | None: ...

    @property
    def aliases(self) -> StoredMap | None: ...  # integration -> [alias, ...]

    @property
    def type(self) -> str: ...

    @property
    def changedBy(self) -> StoredMap | None: ...  # CallContext.stamp() of the last change

    @property
    def textBy(self) -> StoredMap | None: ...  # text field -> its author (store/authors.py)

    @property
    def fileKey(self) -> str | None: ...

    @property
    def fileVersion(self) -> str | None: ...

    def data_dict(self) -> dict[str, Any]: ...


def index_keys(
    tenant_id: str, etype: EntityType, entity_id: str, data: dict[str, Any], updated_at: str
) -> dict[str, Any]:
    """The gsi attributes of a live entity: gsi1 lists the type, gsi2.. its filters, gsi5 the type
    by its last change (`updated_at`, the item's updatedAt)."""
    keys: dict[str, str | None] = {
        "gsi1pk": list_pk(tenant_id, etype.name),
        "gsi1sk": entity_id,
        f"gsi{CHANGED_SLOT}pk": list_pk(tenant_id, etype.name),
        f"gsi{CHANGED_SLOT}sk": changed_sk(updated_at, entity_id),
    }
    for slot in range(2, SLOT_COUNT + 1):
        keys[f"gsi{slot}pk"] = keys[f"gsi{slot}sk"] = None
    for slot, field in enumerate(etype.filters, start=2):
        if data.get(field) is not None:
            keys[f"gsi{slot}pk"] = filter_pk(tenant_id, etype, field, data[field])
            keys[f"gsi{slot}sk"] = entity_id
    return keys


def changed_sk(updated_at: str, entity_id: str) -> str:
    """The sort key of gsi5: ISO times of one format sort as they happened."""
    return f"{updated_at}#{entity_id}"


def _index_actions(keys: dict[str, Any]) -> list[Any]:
    actions = []
    for name, value in keys.items():
        attr = getattr(Item, name)
        actions.append(attr.set(value) if value is not None else attr.remove())
    return actions


def no_index_actions() -> list[Any]:
    """Actions that take an item out of every index (soft delete, merge)."""
    return [
        getattr(Item, f"gsi{slot}{part}").remove()
        for slot in (*range(1, SLOT_COUNT + 1), CHANGED_SLOT)
        for part in ("pk", "sk")
    ]


# --- reads ----------------------------------------------------------------------------


def table_status() -> str:
    """The table's status as DynamoDB describes it ("ACTIVE" when it serves reads and writes)."""
    return str(Item.describe_table()["TableStatus"])


def get_item(
    ctx: CallContext, etype: EntityType, entity_id: str, *, include_deleted: bool = False, path: str = ""
) -> Item:
    if ids.prefix_of(entity_id) != etype.prefix:
        raise _missing(etype, entity_id, path)
    try:
        item = Item.get(entity_pk(ctx.tenant_id, entity_id), ENTITY_SK, consistent_read=True)
    except Item.DoesNotExist:
        raise _missing(etype, entity_id, path) from None
    if item.type != etype.name or item.tenantId != ctx.tenant_id or (item.deletedAt and not include_deleted):
        raise _missing(etype, entity_id, path)
    if reach.limited(ctx) and not reach.item_within(ctx, etype.name, entity_id, item.data_dict()):
        raise _missing(etype, entity_id, path)  # out of an object-limited key's reach: as if it did not exist
    return item


def _missing(etype: EntityType, entity_id: str, path: str) -> NotFound:
    message = f"No {etype.name} with id {entity_id} in this tenant."
    return not_found_at(path, message) if path else NotFound(message)


def _plain(stored: StoredMap | None) -> dict[str, Any]:
    return stored.as_dict() if stored is not None else {}


def to_wire(ctx: CallContext, item: StoredEntity) -> dict[str, Any]:
    """An entity as every face answers it, with who last changed it; over MCP, for a key that
    asked for it, other parties' free text as placeholders (store/authors.py)."""
    aliases = _plain(item.aliases).get(ctx.integration_key, [])
    data, changed_by = item.data_dict(), _plain(item.changedBy)
    etype = ENTITY_TYPES.get(item.type)
    if etype is not None and authors.withholds(ctx):
        data = authors.withhold(ctx, etype, data, authors.text_authors(etype, _plain(item.textBy), changed_by))
    return {
        "id": item.id,
        **data,
        "version": item.version,
        "createdAt": item.createdAt,
        "updatedAt": item.updatedAt,
        "aliases": sorted(aliases),
        "lastChangedBy": authors.last_changed_by(changed_by),
    }


def list_page(
    ctx: CallContext,
    etype: EntityType,
    filters: dict[str, Any],
    limit: int,
    offset: int,
    updated_since: str | None = None,
) -> tuple[list[Item], int, bool]:
    """One page of live entities in creation order (by last change with `updated_since`: those
    changed at or after it, gsi5's key range, the filters checked on its entries), the total, and
    whether counting stopped at config.COUNT_LIMIT (capped).

    Reads the keys of the matches (index items are small: one Query answers about 8,000 of
    them), so the total is exact within the cap and a deep offset costs what offset 0 costs;
    then fetches only the page's items."""
    wanted = {f: v for f, v in filters.items() if v is not None}
    slots = {field: slot for slot, field in enumerate(etype.filters, start=2)}
    if wanted:
        first = next(f for f in etype.filters if f in wanted)
        slot, hash_key = slots[first], filter_pk(ctx.tenant_id, etype, first, wanted[first])
    else:
        slot, hash_key = 1, list_pk(ctx.tenant_id, etype.name)
    checks = {f"gsi{slots[f]}pk": filter_pk(ctx.tenant_id, etype, f, v) for f, v in wanted.items()}
    condition = None
    if updated_since is not None:
        slot, hash_key = CHANGED_SLOT, list_pk(ctx.tenant_id, etype.name)
        condition = Item.gsi5sk >= clock.iso(clock.parse(updated_since))
    # An object-limited key sees only the hits within its reach, dropped before paging (exact totals).
    limit_to = reach.list_reach(ctx, etype, wanted) if reach.limited(ctx) else None
    if limit_to is not None and limit_to.nothing:
        return [], 0, False
    # Read only what the page needs: the table key and the other filters' index keys.
    matches, capped = matching_keys(
        INDEXES[slot],
        hash_key,
        condition,
        checks,
        also=limit_to.also if limit_to else (),
        keep=limit_to.keep if limit_to else None,
    )
    return fetch_entities(matches[offset : offset + limit]), len(matches), capped


def live_entities(ctx: CallContext, etype: EntityType, chunk: int = BATCH_GET_SIZE) -> Iterator[list[Item]]:
    """Every live entity of a type within the key's reach, in creation order, `chunk` at a time,
    whatever their number: the index is read page by page and only one chunk's items are held
    (an export's reading, where list_page's count would stop at config.COUNT_LIMIT)."""
    limit_to = reach.list_reach(ctx, etype, {}) if reach.limited(ctx) else None
    if limit_to is not None and limit_to.nothing:
        return
    attributes = ["PK", *(limit_to.also if limit_to else ())]
    hits = INDEXES[1].query(list_pk(ctx.tenant_id, etype.name), attributes_to_get=attributes, page_size=1000)
    batch: list[Any] = []
    for hit in hits:
        batch.append(hit)
        if len(batch) == chunk:
            yield _fetched(batch, limit_to)
            batch = []
    if batch:
        yield _fetched(batch, limit_to)


def _fetched(hits: list[Any], limit_to: Any) -> list[Item]:
    if limit_to is not None:
        hits, _ = limit_to.keep(hits)
    return fetch_entities([hit.pk for hit in hits])


# --- writes ---------------------------------------------------------------------------


def _live() -> Condition:
    return Item.pk.exists() & Item.deletedAt.does_not_exist()


def _stamp(ctx: CallContext, item: Item, now: str) -> list[Any]:
    return [
        Item.version.set(item.version + 1),
        Item.updatedAt.set(now),
        Item.changedBy.set(ctx.stamp()),
    ]


def create(
    ctx: CallContext,
    etype: EntityType,
    data: dict[str, Any],
    *,
    path: str,
    companions: tuple[Item, ...] = (),
    entity_id: str | None = None,
    file_key: str | None = None,
    file_version: str | None = None,
    also: Callable[[Transaction], None] | None = None,
    aliases: dict[str, set[str]] | None = None,
) -> Item:
    """Store a new entity. `companions` are items written in the same transaction, each
    only if it does not exist yet (a webhook's secret, keyed by the `entity_id` given; an
    alias's mapping, with `aliases` the entity's own record of it: integration -> names);
    `also` adds further writes to it (an upload reservation marked done). `file_key` and
    `file_version` name the entity's file in S3."""
    limited = reach.limited(ctx)
    if limited:  # before the derived fields are read: an objectId outside refuses at once
        reach.guard_home(ctx, etype, None, data, arg=path, partial=True)
    if etype.derive:
        etype.derive(ctx, data)
    if etype.check:
        etype.check(data, None)
    entity_id = entity_id or ids.new_id(etype.prefix)
    now = clock.now_iso()
    item = Item(
        entity_pk(ctx.tenant_id, entity_id),
        ENTITY_SK,
        type=etype.name,
        tenantId=ctx.tenant_id,
        id=entity_id,
        data=data,
        version=1,
        createdAt=now,
        updatedAt=now,
        changedBy=ctx.stamp(),
        textBy=authors.after_change(etype, {}, data, {}, ctx.stamp()) or None,
        aliases=aliases or {},
        fileKey=file_key,
        fileVersion=file_version,
        **index_keys(ctx.tenant_id, etype, entity_id, data, now),
    )
    added = refs.outbound(etype, data, self_id=entity_id, arg=path)
    if limited:
        reach.guard_home(ctx, etype, None, data, arg=path)
        reach.guard_references(ctx, added, arg=path)
        if reach.home(etype.name).kind == "linked":  # a contact it creates stays within the key's reach
            companions = (*companions, reach.created_marker(ctx, entity_id))
    take = uniques.claims(etype, {}, data)
    if not added and not companions and not take and also is None:
        try:
            item.save(condition=Item.pk.does_not_exist())
        except PutError as err:
            if err.cause_response_code != "ConditionalCheckFailedException":
                raise  # throttled or unavailable: store/faults.py answers it
            # an id collision of 80 random bits (or an entity id given twice): report, never overwrite
            raise Conflict("Could not store the new entity; retry.", code=codes.WRITE_CONFLICT) from err
        return item

    def write(tx: Transaction) -> None:
        tx.save(item, condition=Item.pk.does_not_exist(), label="self")
        for companion in companions:
            tx.save(companion, condition=Item.pk.does_not_exist())
        if also is not None:
            also(tx)

    _write_with_edges(ctx, etype, item, write, added, [], arg=path, take=take)
    return item


def update(
    ctx: CallContext,
    etype: EntityType,
    entity_id: str,
    changes: dict[str, Any],
    *,
    expected_version: int | None,
    path: str,
) -> Item:
    """Apply changes (None clears a field) under an optimistic version condition."""
    item = get_item(ctx, etype, entity_id, path=f"{path}.id")
    if expected_version is not None and expected_version != item.version:
        raise _stale(etype, entity_id, item.version)
    before = item.data_dict()
    if reach.limited(ctx):  # before the derived fields are read: a move outside refuses at once
        reach.guard_home(ctx, etype, entity_id, changes, arg=path, partial=True)
    data = with_changes(before, changes)
    if etype.derive:
        etype.derive(ctx, data)
    if etype.check:
        etype.check(data, entity_id)
    return _replace_data(ctx, etype, item, before, data, arg=path)


def with_changes(before: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """An entity's fields once Update-mode `changes` apply: a value replaces, None clears."""
    data = dict(before)
    for name, value in changes.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value
    return data


def replace_data(ctx: CallContext, etype: EntityType, entity_id: str, data: dict[str, Any]) -> Item:
    """Set a live entity's fields to `data` as they are (a revert to an earlier state:
    that state passed the rules when it was written, and derived fields are part of it)."""
    item = get_item(ctx, etype, entity_id)
    return _replace_data(ctx, etype, item, item.data_dict(), data, arg="")


def _replace_data(
    ctx: CallContext, etype: EntityType, item: Item, before: dict[str, Any], data: dict[str, Any], *, arg: str
) -> Item:
    """Store new data for a live entity, moving its reference edges and index keys along."""
    entity_id = item.id or ""
    old = set(refs.outbound(etype, before, self_id=entity_id, arg=arg))
    new = set(refs.outbound(etype, data, self_id=entity_id, arg=arg))
    known = authors.text_authors(etype, _plain(item.textBy), _plain(item.changedBy))
    written = authors.after_change(etype, before, data, known, ctx.stamp())
    if reach.limited(ctx):  # an object-limited key moves nothing out of its objects, nor points beyond
        reach.guard_home(ctx, etype, entity_id, data, arg=arg)
        reach.guard_references(ctx, list(new - old), arg=arg)
    now = clock.now_iso()
    actions = [
        Item.data.set(data),
        *_stamp(ctx, item, now),
        Item.textBy.set(written) if written else Item.textBy.remove(),
        *_index_actions(index_keys(ctx.tenant_id, etype, entity_id, data, now)),
    ]
    condition = (Item.version == item.version) & Item.deletedAt.does_not_exist()
    take, release = uniques.claims(etype, before, data), uniques.claims(etype, data, before)
    if old == new and not take and not release:
        _update_one(item, actions, condition, etype)
        return item  # item.update() refreshed it from DynamoDB's answer
    added = sorted(new - old, key=lambda r: r.path)
    removed = sorted(old - new, key=lambda r: r.path)
    write_self = lambda tx: tx.update(item, actions=actions, condition=condition, label="self")  # noqa: E731
    _write_with_edges(ctx, etype, item, write_self, added, removed, arg=arg, take=take, release=release)
    return get_item(ctx, etype, entity_id)  # a transaction answers nothing


def soft_delete(ctx: CallContext, etype: EntityType, entity_id: str, *, path: str) -> Item:
    """Mark deleted (the item stays, restorable). Refused while live entities reference it."""
    item = get_item(ctx, etype, entity_id, path=path)
    referrers = refs.inbound(ctx, entity_id, limit=REFERRERS_SHOWN)
    if referrers:
        shown = referrers
        if reach.limited(ctx):  # an object-limited key is not told of referrers out of its reach
            reached = reach.within(ctx, [r["id"] for r in referrers])
            shown = [r for r in referrers if r["id"] in reached]
        listed = ", ".join(f"{r['type']} {r['id']} ({r['path']})" for r in shown[:5])
        more = ", ..." if len(shown) > 5 else ""
        hidden = " and entities outside this key's objects" if len(shown) < len(referrers) else ""
        raise Conflict(
            f"{etype.name} {entity_id} is still referenced by live entities: "
            f"{listed or 'none this key can see'}{more}{hidden}. Change or delete those first.",
            code=codes.STILL_REFERENCED,
            extra={"referencedBy": shown},
        )
    now = clock.now_iso()
    actions = [Item.deletedAt.set(now), *_stamp(ctx, item, now), *no_index_actions()]
    condition = (Item.version == item.version) & Item.deletedAt.does_not_exist()
    outbound = refs.outbound(etype, item.data_dict(), self_id=entity_id, arg=path)
    if not outbound:
        _update_one(item, actions, condition, etype)
        return item
    _write_with_edges(
        ctx,
        etype,
        item,
        lambda tx: tx.update(item, actions=actions, condition=condition, label="self"),
        [],
        outbound,
        arg=path,
    )
    return get_item(ctx, etype, entity_id, include_deleted=True)  # a transaction answers nothing: read the stamped item


def restore(ctx: CallContext, etype: EntityType, entity_id: str, *, path: str) -> Item:
    """Undo a soft delete. Refused (409) while an entity it references is itself deleted."""
    item = get_item(ctx, etype, entity_id, include_deleted=True, path=path)
    if not item.deletedAt:
        raise Conflict(f"{etype.name} {entity_id} is not deleted.", code=codes.NOT_DELETED)
    if item.data_dict().get("mergedInto"):
        raise Conflict(
            f"{etype.name} {entity_id} was merged into {item.data_dict()['mergedInto']}; it cannot be restored.",
            code=codes.MERGED,
        )
    data = item.data_dict()
    now = clock.now_iso()
    actions = [
        Item.deletedAt.remove(),
        *_stamp(ctx, item, now),
        *_index_actions(index_keys(ctx.tenant_id, etype, entity_id, data, now)),
    ]
    condition = (Item.version == item.version) & Item.deletedAt.exists()
    outbound = refs.outbound(etype, data, self_id=entity_id, arg=path)
    if not outbound:
        _update_one(item, actions, condition, etype)
        return item
    try:
        _write_with_edges(
            ctx,
            etype,
            item,
            lambda tx: tx.update(item, actions=actions, condition=condition, label="self"),
            outbound,
            [],
            arg=path,
        )
    except NotFound as err:
        raise Conflict(
            f"It references a deleted entity; restore that first. {err.detail}",
            code=codes.REFERENCE_DELETED,
            errors=err.errors,
        ) from err
    return get_item(ctx, etype, entity_id)


def _stale(etype: EntityType, entity_id: str, current: int | float) -> Conflict:
    return Conflict(
        f"{etype.name} {entity_id} changed meanwhile (now version {current}); read it again and retry.",
        code=codes.STALE_VERSION,
        extra={"currentVersion": int(current)},
    )


def _update_one(item: Item, actions: list[Any], condition: Condition, etype: EntityType) -> None:
    try:
        item.update(actions=actions, condition=condition)
    except UpdateError as err:
        if getattr(err, "cause_response_code", None) == "ConditionalCheckFailedException":
            raise _stale(etype, item.id or "", item.version + 1) from err
        raise


def _write_with_edges(
    ctx: CallContext,
    etype: EntityType,
    item: Item,
    write_self: Any,
    added: list[refs.Ref],
    removed: list[refs.Ref],
    *,
    arg: str,
    take: list[tuple[str, str]] | None = None,
    release: list[tuple[str, str]] | None = None,
) -> None:
    """One transaction: the entity's own write (labelled "self"), a check that every newly
    referenced entity is live, the new edges, the removal of the old ones, and the claims
    on unique values taken (each only if free) and released."""
    source_id = item.id or ""
    try:
        with Transaction() as tx:
            write_self(tx)
            checked: set[str] = set()
            for ref in added:
                if ref.target_id not in checked:
                    checked.add(ref.target_id)
                    tx.condition_check(entity_pk(ctx.tenant_id, ref.target_id), ENTITY_SK, condition=_live(), label=ref)
                tx.save(refs.edge_item(ctx, etype, source_id, ref))
            for ref in removed:
                tx.delete(Item(*refs.edge_key(ctx, source_id, ref)))
            for field, value in take or []:
                claim = uniques.claim_item(ctx, etype, field, value, source_id)
                tx.save(claim, condition=Item.pk.does_not_exist() | (Item.id == source_id), label=("unique", field))
            for field, value in release or []:
                tx.delete(Item(uniques.claim_pk(ctx, etype, field, value), uniques.CLAIM_SK))
    except TransactionCancelled as err:
        for field, value in take or []:
            if ("unique", field) in err.failed:
                raise uniques.taken(etype, field, value, arg) from err
        for ref in added:
            if ref in err.failed:
                where = f"{arg}.{ref.path}" if arg else ref.path
                raise not_found_at(where, f"No live {ref.target_type} with id {ref.target_id} in this tenant.") from err
        if "self" in err.failed:
            raise _stale(etype, source_id, item.version + 1) from err
        raise Conflict("The write collided with another; retry.", code=codes.WRITE_CONFLICT) from err


def repoint_inbound(ctx: CallContext, source_id: str, target_id: str) -> int:
    """Make every live entity that references `source_id` reference `target_id` instead
    (the target itself, if it referenced the source, drops that reference). Every changed
    entity is checked against its rules before the first write, so a merge that would
    break one (a contact listed twice as party of one contract) is refused whole (409).
    Then one transaction per referencing entity; returns how many references moved."""
    by_entity: dict[str, list[str]] = {}
    for edge in refs.inbound(ctx, source_id):
        by_entity.setdefault(edge["id"], []).append(edge["path"])
    if reach.limited(ctx) and set(by_entity) - reach.within(ctx, by_entity):
        raise reach.refused("entities outside its objects reference the source too, and it cannot change those.")
    planned = []
    for referrer_id, paths in by_entity.items():
        etype = ENTITY_TYPES[refs_type_of(referrer_id)]
        item = get_item(ctx, etype, referrer_id)
        before = item.data_dict()
        data = copy.deepcopy(before)
        for path in paths:
            refs.set_at(data, path, None if referrer_id == target_id else target_id)
        if etype.check:
            try:
                etype.check(data, referrer_id)
            except Invalid as err:
                raise Conflict(
                    f"Repointing {etype.name} {referrer_id} would break its rules: {err.detail}",
                    code=codes.MERGE_CONFLICT,
                    errors=err.errors,
                ) from err
        planned.append((etype, item, before, data))
    for etype, item, before, data in planned:
        _replace_data(ctx, etype, item, before, data, arg="")
    return sum(len(paths) for paths in by_entity.values())


def refs_type_of(entity_id: str) -> str:
    etype = by_prefix(ids.prefix_of(entity_id))
    if etype is None:
        raise NotFound(f"Unknown entity {entity_id}.")
    return etype.name
