"""The local stack's faster reads (chalicelib/local/moto_patches.py: projections, slim index
candidates, index order, JSON answers) answer what DynamoDB answers: a global index's entries
in key order, only the projected attributes, every page once, filters on attributes the
projection leaves out, binary values intact."""

from __future__ import annotations

import random
from typing import Any

import boto3
import pytest

from chalicelib import config

pytestmark = pytest.mark.usefixtures("memory_table")


def _client() -> Any:
    return boto3.client("dynamodb", region_name=config.region())


def _fill(count: int) -> list[str]:
    client = _client()
    keys = [f"{n:03d}" for n in range(count)]
    for key in random.Random(7).sample(keys, len(keys)):  # stored out of order
        client.put_item(
            TableName=config.table_name(),
            Item={
                "PK": {"S": f"ten_t#con_{key}"},
                "SK": {"S": "entity"},
                "gsi1pk": {"S": "ten_t#contact"},
                "gsi1sk": {"S": key},
                "gsi2pk": {"S": "even" if int(key) % 2 == 0 else "odd"},  # projected into gsi1 (INCLUDE)
                "data": {"M": {"lastName": {"S": f"N{key}"}, "tags": {"L": [{"S": "a"}, {"N": "1"}]}}},
                "blob": {"B": bytes([int(key) % 256, 0, 255])},
            },
        )
    return keys


def _query(**extra: Any) -> list[dict[str, Any]]:
    client = _client()
    items: list[dict[str, Any]] = []
    request: dict[str, Any] = {
        "TableName": config.table_name(),
        "IndexName": "gsi1",
        "KeyConditionExpression": "gsi1pk = :p",
        "ExpressionAttributeValues": {":p": {"S": "ten_t#contact"}},
        **extra,
    }
    while True:
        page = client.query(**request)
        items += page["Items"]
        if "LastEvaluatedKey" not in page:
            return items
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def test_an_index_query_answers_its_entries_in_key_order_with_only_the_projection() -> None:
    keys = _fill(40)
    found = _query(ProjectionExpression="PK, gsi1sk")
    assert [item["gsi1sk"]["S"] for item in found] == keys
    assert all(set(item) == {"PK", "gsi1sk"} for item in found)
    assert [item["gsi1sk"]["S"] for item in _query(ProjectionExpression="PK, gsi1sk", ScanIndexForward=False)] == keys[
        ::-1
    ]


def test_pages_of_an_index_query_hold_every_entry_once() -> None:
    keys = _fill(25)
    assert [item["gsi1sk"]["S"] for item in _query(ProjectionExpression="PK, gsi1sk", Limit=7)] == keys


def test_a_filter_on_an_attribute_outside_the_projection_expression_still_filters() -> None:
    keys = _fill(20)
    odd = {":p": {"S": "ten_t#contact"}, ":k": {"S": "odd"}}
    found = _query(ProjectionExpression="PK, gsi1sk", FilterExpression="gsi2pk = :k", ExpressionAttributeValues=odd)
    assert [item["gsi1sk"]["S"] for item in found] == [key for key in keys if int(key) % 2 == 1]
    # an attribute the index does not project matches nothing, as in DynamoDB
    assert _query(FilterExpression="kind = :k", ExpressionAttributeValues=odd) == []


def test_whole_items_keep_their_maps_lists_and_binary_values() -> None:
    _fill(3)
    client = _client()
    item = client.get_item(TableName=config.table_name(), Key={"PK": {"S": "ten_t#con_002"}, "SK": {"S": "entity"}})[
        "Item"
    ]
    assert item["data"] == {"M": {"lastName": {"S": "N002"}, "tags": {"L": [{"S": "a"}, {"N": "1"}]}}}
    assert item["blob"] == {"B": bytes([2, 0, 255])}
    batch = client.batch_get_item(
        RequestItems={
            config.table_name(): {"Keys": [{"PK": {"S": f"ten_t#con_00{n}"}, "SK": {"S": "entity"}} for n in range(3)]}
        }
    )
    assert sorted(i["gsi1sk"]["S"] for i in batch["Responses"][config.table_name()]) == ["000", "001", "002"]
    assert all(i["blob"]["B"][1:] == bytes([0, 255]) for i in batch["Responses"][config.table_name()])
    whole = _query()  # the index's projection: keys and the other slots' keys (INCLUDE)
    assert len(whole) == 3 and set(whole[0]) == {"PK", "SK", "gsi1pk", "gsi1sk", "gsi2pk"}


def test_change_stream_records_carry_their_images_and_creation_time() -> None:
    import datetime as dt

    client = _client()
    key = {"PK": {"S": "ten_t#con_s"}, "SK": {"S": "entity"}}
    client.put_item(TableName=config.table_name(), Item={**key, "data": {"M": {"n": {"N": "1.5"}, "l": {"L": []}}}})
    client.put_item(TableName=config.table_name(), Item={**key, "blob": {"B": b"\x00\xff"}})  # binary: the slow way
    client.delete_item(TableName=config.table_name(), Key=key)
    streams = boto3.client("dynamodbstreams", region_name=config.region())
    arn = client.describe_table(TableName=config.table_name())["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    first = streams.get_records(ShardIterator=iterator["ShardIterator"], Limit=1)  # no binary value: the fast way
    records = first["Records"] + streams.get_records(ShardIterator=first["NextShardIterator"])["Records"]
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY", "REMOVE"]
    created, changed, removed = (r["dynamodb"] for r in records)
    assert created["NewImage"]["data"] == {"M": {"n": {"N": "1.5"}, "l": {"L": []}}} and "OldImage" not in created
    assert changed["NewImage"]["blob"] == {"B": b"\x00\xff"} and changed["OldImage"]["data"]["M"]["n"] == {"N": "1.5"}
    assert removed["Keys"] == key and removed["OldImage"]["blob"] == {"B": b"\x00\xff"}
    now = dt.datetime.now(dt.UTC)
    assert all(abs((now - r["ApproximateCreationDateTime"]).total_seconds()) < 60 for r in (created, changed, removed))


def _scan(**extra: Any) -> tuple[list[dict[str, Any]], int, int]:
    """Every page of a Scan of the table: the items, the pages, the items read."""
    client = _client()
    items: list[dict[str, Any]] = []
    pages = scanned = 0
    request: dict[str, Any] = {"TableName": config.table_name(), **extra}
    while True:
        page = client.scan(**request)
        items += page["Items"]
        pages, scanned = pages + 1, scanned + page["ScannedCount"]
        if "LastEvaluatedKey" not in page:
            return items, pages, scanned
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def test_pages_of_a_scan_read_every_item_once_and_copy_only_what_the_filter_keeps() -> None:
    keys = _fill(120)
    items, pages, scanned = _scan(Limit=25)
    assert [i["PK"]["S"] for i in items] == [f"ten_t#con_{k}" for k in keys]  # key order, each once
    assert (pages, scanned) == (5, 120)
    odd, _, scanned = _scan(
        Limit=7,
        FilterExpression="gsi2pk = :o",
        ExpressionAttributeValues={":o": {"S": "odd"}},
        ProjectionExpression="PK, gsi2pk",
    )
    assert scanned == 120  # the limit counts items read, as DynamoDB's does
    assert odd == [{"PK": {"S": f"ten_t#con_{k}"}, "gsi2pk": {"S": "odd"}} for k in keys if int(k) % 2]
    _client().delete_item(TableName=config.table_name(), Key={"PK": {"S": "ten_t#con_050"}, "SK": {"S": "entity"}})
    resumed = _client().scan(
        TableName=config.table_name(),
        ExclusiveStartKey={"PK": {"S": "ten_t#con_050"}, "SK": {"S": "entity"}},  # gone meanwhile
    )
    assert [i["PK"]["S"] for i in resumed["Items"]] == [f"ten_t#con_{k}" for k in keys[51:]]


def test_an_item_over_the_size_limit_is_refused_whole_and_one_just_under_it_is_stored() -> None:
    """moto_patches checks an item's size once, when it is made, instead of per attribute: the
    limit is where it was, for a put and for a transaction's put alike."""
    from botocore.exceptions import ClientError

    client = _client()
    key = {"PK": {"S": "ten_t#con_big"}, "SK": {"S": "entity"}}
    # 23 bytes of key names and values, then attributes of 5 + 39,995 bytes each: ten of them
    # make 400,023 bytes (under moto's 405,000), an eleventh 440,023 (over it only as a whole).
    fits = {**key, **{f"a{n:04d}": {"S": "x" * 39_995} for n in range(10)}}
    client.put_item(TableName=config.table_name(), Item=fits)
    too_big = {**fits, "a0010": {"S": "x" * 39_995}}
    with pytest.raises(ClientError) as refused:
        client.put_item(TableName=config.table_name(), Item=too_big)
    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert "maximum allowed size" in refused.value.response["Error"]["Message"]
    with pytest.raises(ClientError):
        client.transact_write_items(TransactItems=[{"Put": {"TableName": config.table_name(), "Item": too_big}}])
    stored = client.get_item(TableName=config.table_name(), Key=key)["Item"]
    assert set(stored) == set(fits)  # the refused writes changed nothing


def test_a_value_is_sized_as_moto_sizes_it() -> None:
    """moto_patches sizes values without moto's copies: the same numbers, for every type."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    from chalicelib.local import moto_patches

    moto_patches.apply()
    values: list[dict[str, Any]] = [
        {"S": "grüß"},
        {"N": "-12.50"},
        {"B": b"\x00\xff\x10"},
        {"B": "AP8Q"},
        {"BOOL": False},
        {"NULL": True},
        {"SS": ["a", "äb"]},
        {"NS": ["1", "2.5"]},
        {"BS": [b"\x01", b"\x02\x03"]},
        {"L": [{"S": "x"}, {"N": "7"}, {"M": {"k": {"L": [{"BOOL": True}]}}}]},
        {"M": {"änder": {"M": {"tief": {"S": "wert"}, "n": {"N": "3"}}}, "l": {"L": []}, "leer": {"M": {}}}},
    ]
    for value in values:
        made = DynamoType(value)
        assert made.size() == moto_patches._moto_size(made), value
    assert DynamoType.size is moto_patches._value_size  # installed as moto's own
