"""The local stack's item building (chalicelib/local/moto_patches.py: an item's size summed once,
not on every attribute) keeps moto's limit: an item within 400 KB is stored whole, a larger one is
refused as DynamoDB refuses it, in a put and in a transaction."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from chalicelib import config
from chalicelib.local import moto_patches

pytestmark = pytest.mark.usefixtures("memory_table")


def _item(key: str, filler: int) -> dict[str, Any]:
    return {
        "PK": {"S": key},
        "SK": {"S": "entity"},
        "data": {"M": {"text": {"S": "x" * filler}, "n": {"N": "12"}, "tags": {"SS": ["a", "b"]}}},
        "blob": {"B": b"\x00\xff"},
    }


def test_an_item_within_the_limit_is_stored_whole() -> None:
    client = boto3.client("dynamodb", region_name=config.region())
    stored = _item("within", moto_patches.ITEM_SIZE_LIMIT - 1000)
    client.put_item(TableName=config.table_name(), Item=stored)
    read = client.get_item(TableName=config.table_name(), Key={"PK": {"S": "within"}, "SK": {"S": "entity"}})
    assert read["Item"] == stored


def test_an_item_over_the_limit_is_refused_in_a_put_and_in_a_transaction() -> None:
    client = boto3.client("dynamodb", region_name=config.region())
    with pytest.raises(ClientError, match="Item size has exceeded the maximum allowed size"):
        client.put_item(TableName=config.table_name(), Item=_item("over", moto_patches.ITEM_SIZE_LIMIT))
    with pytest.raises(ClientError):
        client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": config.table_name(), "Item": _item("over", moto_patches.ITEM_SIZE_LIMIT)}}
            ]
        )
    assert "Item" not in client.get_item(
        TableName=config.table_name(), Key={"PK": {"S": "over"}, "SK": {"S": "entity"}}
    )
