"""Index keys that were added after items were written: one scan of the table fills them in.

gsi5 (a type's live entities by their last change: lists' `updatedSince`, issue 33) is written
by every create, update, restore and merge since it exists; an entity last written before then
has none, and an `updatedSince` list would miss it. `pmctl backfill changed-index` calls
`fill_changed_index`, once after the deployment that brought gsi5 (running it again finds
nothing to do).

Each fill is a conditional UpdateItem: the entity is still live (gsi1pk), still without a gsi5
key, and still at the `updatedAt` the scan read, so a write racing the backfill (which sets its own
keys) or a deletion wins and the backfill skips that item. The stream handler sees such a write
as bookkeeping (neither the state nor the aliases changed: events/changes.py): no audit record,
no feed entry, no webhook."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pynamodb.exceptions import UpdateError

from chalicelib.store.entities import changed_sk
from chalicelib.store.model import CHANGED_SLOT, ENTITY_SK, Item

_PK, _SK = getattr(Item, f"gsi{CHANGED_SLOT}pk"), getattr(Item, f"gsi{CHANGED_SLOT}sk")


@dataclass
class FillCount:
    scanned: int = 0  # items the scan returned (live entities without the key)
    filled: int = 0
    skipped: int = 0  # changed or deleted meanwhile: their own write decided


def fill_changed_index(*, dry_run: bool = False, progress: Callable[[FillCount], None] | None = None) -> FillCount:
    """Give every live entity without a gsi5 key its key, from its list key (gsi1pk: the same
    partition, <tenant>#<type>) and its updatedAt. Reads the whole table once (a Scan whose
    filter keeps live entities without the key); `dry_run` only counts them."""
    count = FillCount()
    missing = (Item.sk == ENTITY_SK) & Item.gsi1pk.exists() & _PK.does_not_exist() & Item.updatedAt.exists()
    for item in Item.scan(missing):
        count.scanned += 1
        if dry_run:
            continue
        still = Item.gsi1pk.exists() & _PK.does_not_exist() & (Item.updatedAt == item.updatedAt)
        try:
            item.update(
                actions=[_PK.set(item.gsi1pk), _SK.set(changed_sk(str(item.updatedAt), str(item.id)))], condition=still
            )
            count.filled += 1
        except UpdateError as error:
            if getattr(error, "cause_response_code", None) != "ConditionalCheckFailedException":
                raise
            count.skipped += 1
        if progress is not None and count.scanned % 1000 == 0:
            progress(count)
    return count
