"""The change feed's storage (changes.list, issue 33): every entity change of a tenant, numbered
in the order it was committed to the feed, so that a reader's cursor is a number and nothing
committed later can ever appear behind it.

  head    PK <tenant>#feed            SK "head"              seq: the last number handed out
  entry   PK <tenant>#feed#<block>    SK <seq, 12 digits>    data: the change (events/feed.py
          shapes it), expiresAt (TTL); block = seq // BLOCK, so a partition holds BLOCK entries

The stream handler appends (`append`): one TransactWriteItems moves the head by n, puts the n
entries and their audit records (store/audit_records.py), each audit record only if it does not
exist yet. A stream record delivered again finds its audit record there and is left out, so the
feed holds each change once; an append of another shard for the same tenant meanwhile fails the
head's condition, and the append reads the head again and retries. The head moves only together
with its entries, so when a reader has read the head (consistently), every entry up to it is in
the table: a page that stops at the head skips nothing that commits later."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

from chalicelib import clock
from chalicelib.errors import Unavailable
from chalicelib.store.model import Item, Transaction, TransactionCancelled

HEAD_SK = "head"
ENTRY_TYPE = "feedEntry"
BLOCK = 10_000  # entries per partition: one tenant's feed spreads over partitions as it grows
KEEP_DAYS = 35  # entries live this long (DynamoDB's TTL removes them later still); the feed promises 30
# TransactWriteItems takes 100 items and 4 MB: the head and two items per change, and room to spare
# for the entries' size (an entity is at most 400 KB, a typical change a few KB).
CHANGES_PER_APPEND = 49
BYTES_PER_APPEND = 3_000_000
APPEND_ATTEMPTS = 20  # head contention between shards of one tenant, then the stream retries the batch


def _head_pk(tenant_id: str) -> str:
    return f"{tenant_id}#feed"


def _entry_key(tenant_id: str, seq: int) -> tuple[str, str]:
    return f"{tenant_id}#feed#{seq // BLOCK}", f"{seq:012d}"


def head(tenant_id: str) -> int:
    """The last number handed out (0 for a feed that never had a change)."""
    try:
        item = Item.get(_head_pk(tenant_id), HEAD_SK, consistent_read=True)
    except Item.DoesNotExist:
        return 0
    return int(item.seq or 0)


def append(tenant_id: str, changes: Sequence[tuple[Item, dict[str, Any]]]) -> int:
    """Append (audit record item, feed entry) pairs of one tenant, in the given order; the entries
    get the next numbers and a `seq` and `committedAt` of their own. Pairs whose audit record
    exists (the stream delivered them before) are left out. Answers how many were appended."""
    pending = list(changes)
    appended = attempts = 0
    while pending:
        chunk = _chunk(pending)
        last = head(tenant_id)
        try:
            _commit(tenant_id, last, chunk)
        except TransactionCancelled as refused:
            seen = {label[1] for label in refused.failed if isinstance(label, tuple) and label[0] == "audit"}
            if seen:  # appended before: out of the feed for good, whatever else failed
                pending = [pair for index, pair in enumerate(pending) if index not in seen]
                continue
            attempts = _again(attempts)  # another append moved the head
            continue
        except Unavailable:  # a concurrent transaction on the head: try again shortly
            attempts = _again(attempts)
            continue
        appended += len(chunk)
        pending = pending[len(chunk) :]
    return appended


def _again(attempts: int) -> int:
    if attempts + 1 >= APPEND_ATTEMPTS:
        raise Unavailable("The change feed's head stayed contended; the stream retries the batch.")
    time.sleep(min(0.5, 0.01 * 2**attempts))
    return attempts + 1


def _chunk(pending: list[tuple[Item, dict[str, Any]]]) -> list[tuple[Item, dict[str, Any]]]:
    chunk: list[tuple[Item, dict[str, Any]]] = []
    size = 0
    for audit_item, entry in pending[:CHANGES_PER_APPEND]:
        size += 2 * len(json.dumps(entry, default=str))  # the audit record holds about as much
        if chunk and size > BYTES_PER_APPEND:
            break
        chunk.append((audit_item, entry))
    return chunk


def _commit(tenant_id: str, last: int, chunk: list[tuple[Item, dict[str, Any]]]) -> None:
    now = clock.now()
    committed_at = clock.iso(now)
    expires = now + dt.timedelta(days=KEEP_DAYS)
    with Transaction() as tx:
        head_item = Item(_head_pk(tenant_id), HEAD_SK, type="feedHead", tenantId=tenant_id)
        unchanged = Item.seq.does_not_exist() if last == 0 else Item.seq == last
        tx.update(head_item, [Item.seq.set(last + len(chunk)), Item.type.set("feedHead")], unchanged, "head")
        for index, (audit_item, entry) in enumerate(chunk):
            seq = last + 1 + index
            pk, sk = _entry_key(tenant_id, seq)
            data = {**entry, "seq": seq, "committedAt": committed_at}
            tx.save(Item(pk, sk, type=ENTRY_TYPE, tenantId=tenant_id, data=data, expiresAt=expires), label="entry")
            tx.save(audit_item, Item.pk.does_not_exist(), ("audit", index))


def entries(tenant_id: str, first: int, last: int) -> Iterator[dict[str, Any]]:
    """The entries numbered first..last (inclusive), in order: a Query per block the range
    touches, consistent, read a page (1 MB) at a time as the caller goes on, so a reader that
    stops early (a full page of changes) reads no further. Entries past the retention are gone
    (TTL): they are simply not there."""
    for block in range(first // BLOCK, last // BLOCK + 1):
        low, high = max(first, block * BLOCK), min(last, (block + 1) * BLOCK - 1)
        pk = _entry_key(tenant_id, low)[0]
        condition = Item.sk.between(f"{low:012d}", f"{high:012d}")
        for item in Item.query(pk, condition, consistent_read=True):
            yield item.data_dict()


def entry(tenant_id: str, seq: int) -> dict[str, Any] | None:
    pk, sk = _entry_key(tenant_id, seq)
    try:
        return Item.get(pk, sk, consistent_read=True).data_dict()
    except Item.DoesNotExist:
        return None
