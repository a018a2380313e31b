"""The index follows the change stream: events/stream.py hands each batch's entity changes here,
beside the audit, the feed and the webhooks' fan-out. A created, changed or restored entity is
(re)indexed from its state after the change, a deleted one leaves the index; a change handled twice
writes the same row again. `reindex` rebuilds a tenant's rows from the table (`pmctl search
reindex`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.entity_search import engine
from chalicelib.entity_search.texts import name_of, searchable_types, searched_fields, texts
from chalicelib.store.entities import live_entities


class EntityChange(Protocol):  # what events/changes.Change holds that the index reads
    @property
    def tenant_id(self) -> str: ...
    @property
    def entity_type(self) -> str: ...
    @property
    def entity_id(self) -> str: ...
    @property
    def after(self) -> dict[str, Any] | None: ...
    @property
    def account(self) -> bool: ...


def entry(tenant_id: str, type_name: str, entity_id: str, data: dict[str, Any]) -> engine.Entry:
    object_id = entity_id if type_name == "object" else data.get("objectId")
    return engine.Entry(
        tenant_id=tenant_id,
        type=type_name,
        id=entity_id,
        object_id=str(object_id) if object_id else None,
        name=name_of(type_name, data),
        fields=tuple(texts(type_name, data)),
    )


def follow(changes: Iterable[EntityChange]) -> None:
    """Apply a batch of the stream's changes to the index, in order (the last state of an entity wins)."""
    latest: dict[tuple[str, str], EntityChange] = {}
    for change in changes:
        if not change.account and searched_fields(change.entity_type):
            latest[(change.tenant_id, change.entity_id)] = change
    if not latest:
        return
    index = engine.current()
    gone: dict[str, list[str]] = {}
    present: list[engine.Entry] = []
    for change in latest.values():
        after = change.after
        if after is None or after.get("deletedAt"):
            gone.setdefault(change.tenant_id, []).append(change.entity_id)
        else:
            present.append(entry(change.tenant_id, change.entity_type, change.entity_id, after.get("data") or {}))
    for tenant_id, entity_ids in gone.items():
        index.delete(tenant_id, entity_ids)
    if present:
        index.index(present)


def reindex(ctx: CallContext) -> dict[str, int]:
    """Rebuild the tenant's rows from its live entities (the key of `ctx` reaching all of them):
    its rows cleared, then each searchable type's entities indexed 100 at a time. Answers the
    number indexed per type."""
    index = engine.current()
    index.clear_tenant(ctx.tenant_id)
    done: dict[str, int] = {}
    for type_name in searchable_types():
        count = 0
        for items in live_entities(ctx, ENTITY_TYPES[type_name]):
            index.index([entry(ctx.tenant_id, type_name, str(item.id), item.data_dict()) for item in items])
            count += len(items)
        done[type_name] = count
    return done
