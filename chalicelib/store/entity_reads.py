"""Where entity items live and how they are read in bulk: the keys of an entity and of its
index entries, index queries that read only keys, and batched GetItems. Shared by entities.py
(which writes entities) and reach.py (which asks where an entity lies), so neither imports
the other's half."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib import config
from chalicelib.entities import EntityType
from chalicelib.store.model import ENTITY_SK, Item

BATCH_GET_SIZE = 100

# Narrows an index query's hits (each with the attributes it asked for) to those a caller may
# see, and says whether deciding that stopped at a cap (store/reach.py).
HitFilter = Callable[[list[Any]], tuple[list[Any], bool]]


def entity_pk(tenant_id: str, entity_id: str) -> str:
    return f"{tenant_id}#{entity_id}"


def entity_id_of(pk: str) -> str:
    """The entity id of an entity's partition key (the inverse of entity_pk)."""
    return pk.partition("#")[2]


def _index_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def filter_pk(tenant_id: str, etype: EntityType, field: str, value: Any) -> str:
    return f"{tenant_id}#{etype.name}#{field}={_index_value(value)}"


def filter_value(pk: str) -> str:
    """The value of a filter index key (the inverse of filter_pk, as the string it indexes)."""
    return pk.partition("=")[2]


def list_pk(tenant_id: str, type_name: str) -> str:
    return f"{tenant_id}#{type_name}"


def matching_keys(
    index: Any,
    hash_key: str,
    condition: Any,
    checks: dict[str, str],
    *,
    also: tuple[str, ...] = (),
    keep: HitFilter | None = None,
) -> tuple[list[str], bool]:
    """Table keys (PK) of the index entries under `hash_key` (and `condition`) whose other
    index keys equal `checks`, in index order; reads at most config.COUNT_LIMIT entries and
    says whether it stopped there (capped). `keep` narrows the hits further, reading the index
    attributes `also` names (an object-limited key's reach)."""
    matching, capped = matching_entries(index, hash_key, condition, checks, also)
    if keep is not None:
        matching, kept_capped = keep(matching)
        capped = capped or kept_capped
    return [hit.pk for hit in matching], capped


def matching_entries(
    index: Any, hash_key: str, condition: Any, checks: dict[str, str], also: tuple[str, ...] = ()
) -> tuple[list[Item], bool]:
    """matching_keys' index entries themselves, each with its PK, the checked index keys and the
    index keys `also` names (what the index projects): for a caller that decides by them too."""
    attributes = list(dict.fromkeys(["PK", *checks, *also]))
    hits = index.query(hash_key, condition, attributes_to_get=attributes, limit=config.COUNT_LIMIT + 1)
    read = list(hits)
    capped = len(read) > config.COUNT_LIMIT
    return [
        hit
        for hit in read[: config.COUNT_LIMIT]
        if all(getattr(hit, attr) == expected for attr, expected in checks.items())
    ], capped


def fetch_many(keys: list[tuple[str, str]], *, include_deleted: bool = False) -> list[Item]:
    """The items of these (partition key, sort key) pairs: BatchGetItem in chunks of 100, answered
    in the order asked; missing items are skipped, and soft-deleted ones unless `include_deleted`
    (the console names a deleted entity by its last name)."""
    found: dict[tuple[str, str], Item] = {}
    for start in range(0, len(keys), BATCH_GET_SIZE):
        for item in Item.batch_get(keys[start : start + BATCH_GET_SIZE], consistent_read=True):
            found[(item.pk, item.sk)] = item
    return [found[key] for key in keys if key in found and (include_deleted or not found[key].deletedAt)]


def fetch_entities(pks: list[str], *, include_deleted: bool = False) -> list[Item]:
    """fetch_many of entities (their sort key is ENTITY_SK)."""
    return fetch_many([(pk, ENTITY_SK) for pk in pks], include_deleted=include_deleted)
