"""A hash index for moto's global secondary indexes (the local stack only).

moto answers a Query on a global secondary index by walking every item of the table, so
each such Query costs time in proportion to the whole table: in a long `make serve` session
or a test process that wrote a few hundred thousand items (request logs, uploads, paging
tests), every list, audit or webhook lookup slowed to tenths of a second and the suite's
last quarter took longer than the rest. This index maps each GSI hash key value to the
primary keys of the items that hold it, so a Query walks only those items.

It is kept from the writes that can set an index attribute (moto_patches wraps the backend's
put_item and update_item, which transactions and batch writes go through too) and built from
a full walk the first time a table is queried through an index. It may hold stale keys
(an item deleted, its index attribute changed, or its table deleted and made again under the
same name): those are skipped here or dropped by moto's own key condition, which still runs
on what the index hands it. So it never answers less than the walk would, only faster."""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
# table name -> (index hash attribute, value) -> primary keys (hash, range) of the items holding it
_keys: dict[str, dict[tuple[str, Any], set[tuple[Any, Any]]]] = {}


def hash_attribute(index: Any) -> str | None:
    """A global secondary index's hash key attribute; None when it has several (not indexed here)."""
    hashes = [key["AttributeName"] for key in index.schema if key["KeyType"] == "HASH"]
    return hashes[0] if len(hashes) == 1 else None


def hash_attributes(table: Any) -> set[str]:
    """The hash key attribute of each global secondary index with a single one."""
    return {name for name in map(hash_attribute, table.global_indexes) if name is not None}


def _add(entries: dict[tuple[str, Any], set[tuple[Any, Any]]], attributes: set[str], item: Any) -> None:
    for name in attributes:
        value = item.attrs.get(name)
        if value is not None:
            entries.setdefault((name, value), set()).add((item.hash_key, item.range_key))


def written(table: Any, item: Any) -> None:
    """After a put or update: the item's current index values point at it."""
    if item is None:
        return
    with _lock:
        entries = _keys.get(table.name)
        if entries is not None:  # not built yet: the first indexed Query walks the table anyway
            _add(entries, hash_attributes(table), item)


def candidates(table: Any, attribute: str, value: Any) -> list[Any]:
    """The items that may hold `value` in `attribute`, an index's hash_attribute."""
    with _lock:
        entries = _keys.get(table.name)
        if entries is None:
            entries = _keys[table.name] = {}
            attributes = hash_attributes(table)
            for partition in list(table.items.values()):
                for item in list(partition.values()) if table.range_key_attr else [partition]:
                    _add(entries, attributes, item)
        keys = list(entries.get((attribute, value), ()))
    found = []
    for hash_key, range_key in keys:
        partition = table.items.get(hash_key)
        item = (partition.get(range_key) if table.range_key_attr else partition) if partition is not None else None
        if item is not None:
            found.append(item)
    return found
