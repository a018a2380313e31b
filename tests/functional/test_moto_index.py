"""The local stack's index for moto's global secondary indexes (chalicelib/local/moto_index.py)
answers exactly what moto's walk of the whole table answers, through puts, updates that move
an item between index keys, transactions and deletes, while walking only the matching items."""

from __future__ import annotations

import uuid
from typing import Any

from pynamodb.transactions import TransactWrite

from chalicelib.local import moto_index
from chalicelib.store.model import INDEXES, Item


def _ids(index: Any, key: str) -> list[str]:
    return [item.sk for item in index.query(key)]


def test_index_queries_follow_puts_updates_transactions_and_deletes(stack: Any) -> None:
    run = uuid.uuid4().hex[:8]
    first, second = f"idx-{run}#a", f"idx-{run}#b"
    pk = f"idx-{run}"
    for n in range(5):
        Item(pk, f"item{n}", type="probe", gsi1pk=first, gsi1sk=f"{n:03d}").save()
    assert _ids(INDEXES[1], first) == [f"item{n}" for n in range(5)]

    Item.get(pk, "item1").update(actions=[Item.gsi1pk.set(second)])  # moved to the other key in place
    Item.get(pk, "item2").delete()
    with TransactWrite(connection=Item._get_connection().connection) as tx:
        tx.save(Item(pk, "item5", type="probe", gsi1pk=second, gsi1sk="005"))
        tx.update(Item(pk, "item3"), actions=[Item.gsi1pk.set(second)])
    assert _ids(INDEXES[1], first) == ["item0", "item4"]
    assert _ids(INDEXES[1], second) == ["item1", "item3", "item5"]
    assert _ids(INDEXES[1], f"idx-{run}#none") == []


def test_an_index_query_reads_only_the_items_of_its_key(stack: Any) -> None:
    from moto.dynamodb.models.dynamo_type import DynamoType

    run = uuid.uuid4().hex[:8]
    Item(f"idx-{run}", "only", type="probe", gsi2pk=f"idx-{run}#key", gsi2sk="1").save()
    table = stack.moto_table()
    found = moto_index.candidates(table, "gsi2pk", DynamoType({"S": f"idx-{run}#key"}))
    assert [item.range_key.value for item in found] == ["only"]
    assert sum(1 for _ in table.all_items()) > 1  # the walk it spares is the whole table
