"""No secret at rest outside a hash (issue 16, finding 3): after every secret-bearing command
(`apikeys.create`, `webhooks.create`, `signup`), sent with and without an Idempotency-Key,
neither the table nor its change stream holds the secret. A replay answers the first answer
without the secret, as the operation's docs say.

Before: the idempotency record kept the whole answer, secret included, for 24 h; a key read
back from the table worked with admin scope, and a replay handed it out again."""

from __future__ import annotations

import functools
import json
from typing import Any

import boto3
import pytest

from chalicelib import config
from tests.client import Api, Tenant

STREAM_PAGES = 3  # moto answers each page by walking the shard: a whole suite's stream would take minutes


@functools.cache
def _stream_arn() -> str:
    return str(boto3.client("dynamodb").describe_table(TableName=config.table_name())["Table"]["LatestStreamArn"])


def _stream() -> tuple[Any, str]:
    return boto3.client("dynamodbstreams"), _stream_arn()


def stream_position() -> dict[str, str]:
    """An iterator per shard at the stream's end: what a command writes next is read from here
    (reading a whole session's stream from its start would take minutes on moto)."""
    streams, arn = _stream()
    shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    return {
        s["ShardId"]: streams.get_shard_iterator(StreamArn=arn, ShardId=s["ShardId"], ShardIteratorType="LATEST")[
            "ShardIterator"
        ]
        for s in shards
    }


def stream_records(since: dict[str, str]) -> list[str]:
    """Every stream record written after `since`, as text (shards opened since then from their start)."""
    streams, arn = _stream()
    found = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = since.get(shard["ShardId"])
        if iterator is None:  # a shard opened since: all of it is new
            iterator = streams.get_shard_iterator(
                StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
            )["ShardIterator"]
        for _ in range(STREAM_PAGES):  # the command's records come first; other tests' writes follow
            page = streams.get_records(ShardIterator=iterator, Limit=1000)
            found += [json.dumps(record, default=str) for record in page["Records"]]
            iterator = page.get("NextShardIterator") if page["Records"] else None
            if not iterator:
                break
    return found


SIGNING_SECRET_SK = "secret"  # a webhook's signing secret must be kept to sign: in its companion item only


def assert_nowhere_at_rest(stack: Any, secret: str, since: dict[str, str]) -> None:
    """The secret in no item and no stream record, but the webhook companion item that
    signs with it (DynamoDB encrypts it at rest; no read returns it)."""
    assert stack.poller.wait_idle(15)
    assert secret not in stack.items_text(except_sk=SIGNING_SECRET_SK), "the secret is in the table"
    records = [record for record in stream_records(since) if f'"SK": {{"S": "{SIGNING_SECRET_SK}"}}' not in record]
    assert not [record for record in records if secret in record], "the secret is in the change stream"


WEBHOOK = {
    "name": "Buchhaltung",
    "url": "https://example.org/hooks/pm",
    "events": ["contact.created"],
    "enabled": False,
}


@pytest.mark.parametrize(
    ("name", "body", "path"),
    [
        ("apikeys.create", {"apiKey": {"agentName": "invoice-bot", "scopes": ["read"]}}, ("apiKey", "key")),
        ("webhooks.create", WEBHOOK, ("webhook", "secret")),
    ],
)
def test_an_idempotent_secret_bearing_command_stores_no_secret_and_replays_without_it(
    stack: Any, tenant: Tenant, name: str, body: dict[str, Any], path: tuple[str, str]
) -> None:
    headers = {"Idempotency-Key": f"create-{name}"}
    since = stream_position()
    first = tenant.command(name, body, headers=headers)
    assert first.status == 200, first.body
    entity, field = path
    secret = first.body[entity][field]
    assert len(secret) > 20
    assert_nowhere_at_rest(stack, secret, since)

    replay = tenant.command(name, body, headers=headers)
    assert replay.status == 200 and replay.headers["idempotent-replayed"] == "true"
    assert replay.body[entity]["id"] == first.body[entity]["id"]  # the same record: nothing created twice
    assert field not in replay.body[entity] and secret not in replay.raw.decode()
    assert {k: v for k, v in replay.body[entity].items()} == {k: v for k, v in first.body[entity].items() if k != field}


def test_the_secret_bearing_operations_say_what_a_replay_answers(tenant: Tenant) -> None:
    spec = tenant.get("openapi.spec")
    for name, path in (("apikeys.create", "apiKey.key"), ("webhooks.create", "webhook.secret")):
        described = spec["paths"][f"/propertymanagement/v2/command/{name}"]["post"]["description"]
        assert f"answers the first answer without `{path}`" in described, name


def test_a_sign_up_and_a_plain_key_creation_store_no_secret(stack: Any, api: Api, tenant: Tenant) -> None:
    since = stream_position()
    signed_up = api.signup()
    assert_nowhere_at_rest(stack, signed_up.key, since)
    since = stream_position()
    created = tenant.ok("apikeys.create", {"apiKey": {"agentName": "report-bot", "scopes": ["read"]}})["apiKey"]["key"]
    assert_nowhere_at_rest(stack, created, since)
    since = stream_position()
    hook = tenant.ok("webhooks.create", {**WEBHOOK, "name": "Mahnwesen"})["webhook"]["secret"]
    assert_nowhere_at_rest(stack, hook, since)
    assert hook in stack.items_text()  # the scan sees the table: the companion item signs with it
