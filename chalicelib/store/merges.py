"""Merging one entity into another (contacts.merge): the final transaction, which moves
the source's aliases to the target and retires the source.

The references to the source move before it, one entity at a time
(entities.repoint_inbound); this transaction is the step that must happen whole."""

from __future__ import annotations

from pynamodb.expressions.condition import Condition

from chalicelib import clock
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.entities import EntityType
from chalicelib.errors import Conflict
from chalicelib.store import refs
from chalicelib.store.aliases import ALIAS_SK, integration_alias_pk
from chalicelib.store.entities import changed_sk, no_index_actions
from chalicelib.store.model import CHANGED_SLOT, Item, Transaction, TransactionCancelled


def merge_into(ctx: CallContext, etype: EntityType, source: Item, target: Item) -> dict[str, set[str]]:
    """One transaction: the source's aliases (of every integration) move to the target, the
    source is soft-deleted (marked mergedInto) and drops its own outgoing references. Both
    must still be at the versions read and live, else 409 `stale_version`. Answers the
    aliases moved, per integration."""
    source_id, target_id = source.id or "", target.id or ""
    moved = _aliases_of(source)
    now = clock.now_iso()
    try:
        with Transaction() as tx:
            _absorb(ctx, tx, target, moved, now)
            _retire(ctx, tx, source, target_id, now)
            for ref in refs.outbound(etype, source.data_dict(), self_id=source_id, arg=""):
                tx.delete(Item(*refs.edge_key(ctx, source_id, ref)))
            for integration, names in moved.items():
                for name in names:
                    _repoint_alias(tx, integration_alias_pk(ctx.tenant_id, integration, name), target_id)
    except TransactionCancelled as err:
        raise Conflict(
            f"A {etype.name} changed during the merge; retry (references moved so far stay moved).",
            code=codes.STALE_VERSION,
        ) from err
    return moved


def _aliases_of(item: Item) -> dict[str, set[str]]:
    stored = item.aliases.as_dict() if item.aliases is not None else {}
    return {integration: set(names) for integration, names in stored.items() if names}


def _unchanged_and_live(item: Item) -> Condition:
    return (Item.version == item.version) & Item.deletedAt.does_not_exist()


def _absorb(ctx: CallContext, tx: Transaction, target: Item, aliases: dict[str, set[str]], now: str) -> None:
    """The target gains the aliases; its version moves, so a change of it meanwhile refuses the merge."""
    actions = [Item.version.add(1), Item.updatedAt.set(now), Item.changedBy.set(ctx.stamp())]
    actions += [getattr(Item, f"gsi{CHANGED_SLOT}sk").set(changed_sk(now, target.id or ""))]  # lists' updatedSince
    actions += [Item.aliases[integration].add(names) for integration, names in aliases.items()]
    tx.update(target, actions=actions, condition=_unchanged_and_live(target))


def _retire(ctx: CallContext, tx: Transaction, source: Item, target_id: str, now: str) -> None:
    """Soft-deleted, out of every index, without aliases; mergedInto refuses a later restore."""
    actions = [
        Item.deletedAt.set(now),
        Item.version.add(1),
        Item.updatedAt.set(now),
        Item.changedBy.set(ctx.stamp()),
        Item.data["mergedInto"].set(target_id),
        Item.aliases.set({}),
        *no_index_actions(),
    ]
    tx.update(source, actions=actions, condition=_unchanged_and_live(source))


def _repoint_alias(tx: Transaction, alias_pk: str, target_id: str) -> None:
    """The alias item names the target (only if it still exists: no alias item is created)."""
    alias_item = Item(alias_pk, ALIAS_SK)
    tx.update(alias_item, actions=[Item.id.set(target_id), Item.data["id"].set(target_id)], condition=Item.pk.exists())
