"""Generic entity storage: read, create, update, soft delete, restore and list pages.

Costs in DynamoDB calls (the benchmark counts them):
  get               1 GetItem (consistent)
  create            1 PutItem, or 1 TransactWriteItems when the payload references others
                    (each reference becomes a ConditionCheck in the same transaction)
  update / delete   1 GetItem + 1 UpdateItem (or transaction), conditioned on the version
  list page         1 Query per ~1 MB of matching index keys (several thousand items)
                    + 1 BatchGetItem per 100 items returned
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pynamodb.exceptions import PutError, UpdateError
from pynamodb.expressions.condition import Condition

from chalicelib import clock, ids
from chalicelib.context import CallContext
from chalicelib.entities import EntityType
from chalicelib.errors import Conflict, NotFound, not_found_at
from chalicelib.schemas import refs_in
from chalicelib.store.model import ENTITY_SK, INDEXES, SLOT_COUNT, Item, Transaction, TransactionCancelled

BATCH_GET_SIZE = 100


def entity_pk(tenant_id: str, entity_id: str) -> str:
    return f"{tenant_id}#{entity_id}"


def _index_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def filter_pk(tenant_id: str, etype: EntityType, field: str, value: Any) -> str:
    return f"{tenant_id}#{etype.name}#{field}={_index_value(value)}"


def list_pk(tenant_id: str, type_name: str) -> str:
    return f"{tenant_id}#{type_name}"


def index_keys(tenant_id: str, etype: EntityType, entity_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """The gsi attributes of a live entity: gsi1 lists the type, gsi2.. its filters."""
    keys: dict[str, str | None] = {"gsi1pk": list_pk(tenant_id, etype.name), "gsi1sk": entity_id}
    for slot in range(2, SLOT_COUNT + 1):
        keys[f"gsi{slot}pk"] = keys[f"gsi{slot}sk"] = None
    for slot, field in enumerate(etype.filters, start=2):
        if data.get(field) is not None:
            keys[f"gsi{slot}pk"] = filter_pk(tenant_id, etype, field, data[field])
            keys[f"gsi{slot}sk"] = entity_id
    return keys


def _index_actions(keys: dict[str, Any]) -> list[Any]:
    actions = []
    for name, value in keys.items():
        attr = getattr(Item, name)
        actions.append(attr.set(value) if value is not None else attr.remove())
    return actions


def _no_index_actions() -> list[Any]:
    return [getattr(Item, f"gsi{slot}{part}").remove() for slot in range(1, SLOT_COUNT + 1) for part in ("pk", "sk")]


# --- reads ----------------------------------------------------------------------------


def get_item(ctx: CallContext, etype: EntityType, entity_id: str, *, include_deleted: bool = False, path: str = "") -> Item:
    if ids.prefix_of(entity_id) != etype.prefix:
        raise _missing(etype, entity_id, path)
    try:
        item = Item.get(entity_pk(ctx.tenant_id, entity_id), ENTITY_SK, consistent_read=True)
    except Item.DoesNotExist:
        raise _missing(etype, entity_id, path) from None
    if item.type != etype.name or item.tenantId != ctx.tenant_id or (item.deletedAt and not include_deleted):
        raise _missing(etype, entity_id, path)
    return item


def _missing(etype: EntityType, entity_id: str, path: str) -> NotFound:
    message = f"No {etype.name} with id {entity_id} in this tenant."
    return not_found_at(path, message) if path else NotFound(message)


def to_wire(ctx: CallContext, item: Item) -> dict[str, Any]:
    aliases = (item.aliases.as_dict() if item.aliases is not None else {}).get(ctx.integration_key, [])
    return {
        "id": item.id,
        **item.data_dict(),
        "version": int(item.version),
        "createdAt": item.createdAt,
        "updatedAt": item.updatedAt,
        "aliases": sorted(aliases),
    }


def list_page(ctx: CallContext, etype: EntityType, filters: dict[str, Any], limit: int, offset: int) -> tuple[list[Item], int]:
    """One page of live entities in creation order, and the exact total.

    Reads the keys of every match (index items are small: one Query answers about
    8,000 of them), so the total is exact and a deep offset costs what offset 0 costs;
    then fetches only the page's items."""
    wanted = {f: v for f, v in filters.items() if v is not None}
    slots = {field: slot for slot, field in enumerate(etype.filters, start=2)}
    if wanted:
        first = next(f for f in etype.filters if f in wanted)
        slot, hash_key = slots[first], filter_pk(ctx.tenant_id, etype, first, wanted[first])
    else:
        slot, hash_key = 1, list_pk(ctx.tenant_id, etype.name)
    checks = {f"gsi{slots[f]}pk": filter_pk(ctx.tenant_id, etype, f, v) for f, v in wanted.items()}
    # Read only what the page needs: the table key and the other filters' index keys.
    hits = INDEXES[slot].query(hash_key, attributes_to_get=["PK", *checks])
    matches = [hit.pk for hit in hits if all(getattr(hit, attr) == expected for attr, expected in checks.items())]
    page = matches[offset : offset + limit]
    return fetch_many(page), len(matches)


def fetch_many(pks: list[str], sk: str = ENTITY_SK) -> list[Item]:
    """BatchGetItem in chunks of 100, answered in the order asked; gone items are skipped."""
    found: dict[str, Item] = {}
    for start in range(0, len(pks), BATCH_GET_SIZE):
        chunk = pks[start : start + BATCH_GET_SIZE]
        for item in Item.batch_get([(pk, sk) for pk in chunk], consistent_read=True):
            found[item.pk] = item
    return [found[pk] for pk in pks if pk in found and not found[pk].deletedAt]


# --- writes ---------------------------------------------------------------------------


def _ref_checks(ctx: CallContext, etype: EntityType, data: dict[str, Any], path: str) -> list[tuple[str, str]]:
    """(path, pk) of every entity the payload references; each must exist, live, in this tenant."""
    checks: dict[str, tuple[str, str]] = {}
    for ref_path, type_name, ref_id in refs_in(etype.field_schema, data, path):
        from chalicelib.entities import ENTITY_TYPES

        target = ENTITY_TYPES[type_name]
        if ids.prefix_of(ref_id) != target.prefix:
            raise not_found_at(ref_path, f"No {type_name} with id {ref_id} in this tenant.")
        checks.setdefault(ref_id, (ref_path, entity_pk(ctx.tenant_id, ref_id)))
    return list(checks.values())


def _live() -> Condition:
    return Item.pk.exists() & Item.deletedAt.does_not_exist()


def create(ctx: CallContext, etype: EntityType, data: dict[str, Any], *, path: str) -> Item:
    if etype.check:
        etype.check(data, None)
    entity_id = ids.new_id(etype.prefix)
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
        aliases={},
        **index_keys(ctx.tenant_id, etype, entity_id, data),
    )
    refs = _ref_checks(ctx, etype, data, path)
    if not refs:
        try:
            item.save(condition=Item.pk.does_not_exist())
        except PutError as err:  # an id collision of 80 random bits: report, never overwrite
            raise Conflict("Could not store the new entity; retry.", code="write_conflict") from err
        return item
    _transact(lambda tx: tx.save(item, condition=Item.pk.does_not_exist(), label="self"), refs)
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
        raise _stale(etype, entity_id, int(item.version))
    data = item.data_dict()
    for name, value in changes.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value
    if etype.check:
        etype.check(data, entity_id)
    changed_refs = {k: v for k, v in changes.items() if v is not None}
    refs = _ref_checks(ctx, etype, changed_refs, path)
    actions = [
        Item.data.set(data),
        Item.version.set(int(item.version) + 1),
        Item.updatedAt.set(clock.now_iso()),
        Item.changedBy.set(ctx.stamp()),
        *_index_actions(index_keys(ctx.tenant_id, etype, entity_id, data)),
    ]
    condition = (Item.version == item.version) & Item.deletedAt.does_not_exist()
    _apply(item, actions, condition, refs, etype)
    # item.update() refreshes the item from the answer; a transaction answers nothing.
    return get_item(ctx, etype, entity_id) if refs else item


def soft_delete(ctx: CallContext, etype: EntityType, entity_id: str, *, path: str) -> Item:
    item = get_item(ctx, etype, entity_id, path=path)
    actions = [
        Item.deletedAt.set(clock.now_iso()),
        Item.version.set(int(item.version) + 1),
        Item.updatedAt.set(clock.now_iso()),
        Item.changedBy.set(ctx.stamp()),
        *_no_index_actions(),
    ]
    _apply(item, actions, (Item.version == item.version) & Item.deletedAt.does_not_exist(), [], etype)
    return item


def restore(ctx: CallContext, etype: EntityType, entity_id: str, *, path: str) -> Item:
    item = get_item(ctx, etype, entity_id, include_deleted=True, path=path)
    if not item.deletedAt:
        raise Conflict(f"{etype.name} {entity_id} is not deleted.", code="not_deleted")
    actions = [
        Item.deletedAt.remove(),
        Item.version.set(int(item.version) + 1),
        Item.updatedAt.set(clock.now_iso()),
        Item.changedBy.set(ctx.stamp()),
        *_index_actions(index_keys(ctx.tenant_id, etype, entity_id, item.data_dict())),
    ]
    _apply(item, actions, (Item.version == item.version) & Item.deletedAt.exists(), [], etype)
    return item


def _stale(etype: EntityType, entity_id: str, current: int | float) -> Conflict:
    return Conflict(
        f"{etype.name} {entity_id} changed meanwhile (now version {current}); read it again and retry.",
        code="stale_version",
        extra={"currentVersion": int(current)},
    )


def _apply(item: Item, actions: list[Any], condition: Condition, refs: list[tuple[str, str]], etype: EntityType) -> None:
    if not refs:
        try:
            item.update(actions=actions, condition=condition)
        except UpdateError as err:
            if _condition_failed(err):
                raise _stale(etype, item.id or "", int(item.version) + 1) from err
            raise
        return
    _transact(lambda tx: tx.update(item, actions=actions, condition=condition, label="self"), refs, etype=etype, item=item)


def _condition_failed(err: Exception) -> bool:
    return getattr(err, "cause_response_code", None) == "ConditionalCheckFailedException"


def _transact(first: Any, refs: Iterable[tuple[str, str]], *, etype: EntityType | None = None, item: Item | None = None) -> None:
    """The write (labelled "self") and one existence check per reference, all or nothing."""
    refs = list(refs)
    try:
        with Transaction() as tx:
            first(tx)
            for ref_path, pk in refs:
                tx.condition_check(pk, ENTITY_SK, condition=_live(), label=ref_path)
    except TransactionCancelled as err:
        for ref_path, pk in refs:
            if ref_path in err.failed:
                raise not_found_at(ref_path, f"No live entity {pk.split('#', 1)[1]} in this tenant.") from err
        if "self" in err.failed and etype and item:
            raise _stale(etype, item.id or "", int(item.version) + 1) from err
        raise Conflict("The write collided with another; retry.", code="write_conflict") from err
