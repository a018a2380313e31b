"""Foundation benchmark: DynamoDB calls per request and latency through the local stack
for contacts.show, contacts (page of 100) and contacts.create, next to a raw boto3
GetItem on the same moto (in process, as the app reaches it), measured side by side in one run.

    make bench            (or: .venv/bin/python -m bench.foundation [repeat])
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import boto3

from bench.harness import SMOKE, Service, median, p, record, succeeding, table, timed
from chalicelib import config
from chalicelib.context import CallContext
from chalicelib.resources.contacts import CONTACT
from chalicelib.store import entities

TENANT_CONTACTS = 1000  # also in smoke runs: a page at offset 900 is measured


def main(repeat: int = 200) -> str:
    service = Service()
    try:
        return run(service, repeat)
    finally:
        service.stop()


def run(service: Service, repeat: int) -> str:
    tenant_id, key = service.signup()
    ctx = CallContext(
        tenant_id=tenant_id, key_id="key_bench", agent_name="bench", scopes=frozenset(), operation="contacts.create"
    )
    ids = [
        entities.create(ctx, CONTACT, {"personType": "natural", "lastName": f"N{i}"}, path="contact").id
        for i in range(TENANT_CONTACTS)
    ]
    base = "/propertymanagement/v2"
    service.call("GET", f"{base}/query/info", key=key)  # warm: key cache, last-use write, validators

    raw = boto3.client("dynamodb", region_name=config.region())
    raw_key = {"PK": {"S": f"{tenant_id}#{ids[0]}"}, "SK": {"S": "entity"}}

    cases = {
        "contacts.show": lambda: service.call("GET", f"{base}/query/contacts.show?contact={ids[0]}", key=key),
        "contacts (100, offset 0)": lambda: service.call("GET", f"{base}/query/contacts?limit=100&offset=0", key=key),
        "contacts (100, offset 900)": lambda: service.call(
            "GET", f"{base}/query/contacts?limit=100&offset=900", key=key
        ),
        "contacts.create": lambda: service.call(
            "POST",
            f"{base}/command/contacts.create",
            {"contact": {"personType": "natural", "lastName": "Neu"}},
            key=key,
        ),
    }
    # every authenticated request also writes one entry of its key's request log (PutItem)
    targets = {
        "contacts.show": "1 + log",
        "contacts (100, offset 0)": "≤ 3 + log",
        "contacts (100, offset 900)": "≤ 3 + log",
        "contacts.create": "1 + log",
    }
    for case in cases.values():  # warm every path once
        status, body = case()
        assert status == 200, body
    table_name = config.table_name()

    def raw_list(offset: int) -> None:
        """The same calls a list makes, straight through boto3: all matching keys, then one page."""
        query = {
            "TableName": table_name,
            "IndexName": "gsi1",
            "KeyConditionExpression": "gsi1pk = :p",
            "ProjectionExpression": "PK",
        }
        keys = raw.query(**query, ExpressionAttributeValues={":p": {"S": f"{tenant_id}#contact"}})["Items"]
        page = [{"PK": k["PK"], "SK": {"S": "entity"}} for k in keys[offset : offset + 100]]
        raw.batch_get_item(RequestItems={table_name: {"Keys": page, "ConsistentRead": True}})

    def put() -> None:
        raw.put_item(
            TableName=table_name, Item={"PK": {"S": f"{tenant_id}#raw{time.time_ns()}"}, "SK": {"S": "entity"}}
        )

    def show() -> None:
        raw.get_item(TableName=table_name, Key=raw_key, ConsistentRead=True)

    def count_rate() -> None:  # the per-key rate counter every authenticated request adds to (store/rates.py)
        raw.update_item(
            TableName=table_name,
            Key={"PK": {"S": f"rate#raw-{tenant_id}"}, "SK": {"S": f"1#{int(time.time())}"}},
            UpdateExpression="ADD hits :one SET #t = :t",
            ConditionExpression="attribute_not_exists(hits) OR hits < :quota",
            ExpressionAttributeNames={"#t": "type"},
            ExpressionAttributeValues={":one": {"N": "1"}, ":t": {"S": "rate"}, ":quota": {"N": "1000000"}},
        )

    def logged(*calls: Callable[[], None]) -> Callable[[], None]:
        """The rate counter, the calls, then the request-log write the service makes after each request."""

        def run() -> None:
            for call in (count_rate, *calls, put):
                call()

        return run

    raw_cases = {
        "contacts.show": logged(show),
        "contacts (100, offset 0)": logged(lambda: raw_list(0)),
        "contacts (100, offset 900)": logged(lambda: raw_list(900)),
        "contacts.create": logged(put),
    }
    floor = median(timed(show, repeat))
    rows = []
    for name, case in cases.items():
        with service.counting() as seen:
            samples = timed(succeeding(case), repeat)
        same_calls = median(timed(raw_cases[name], repeat))
        calls = sum(seen.values()) / repeat
        kinds = ", ".join(f"{op} {n / repeat:g}" for op, n in sorted(seen.items()))
        record(
            name,
            "p50 vs the same DynamoDB calls raw",
            f"{targets[name]} calls",
            f"{median(samples):.1f} ms, {median(samples) / same_calls:.2f}× raw, {calls:g} calls",
        )
        rows.append(
            [
                name,
                f"{calls:g} ({kinds})",
                targets[name],
                f"{median(samples):.2f}",
                f"{p(samples, 0.95):.2f}",
                f"{median(samples) / floor:.1f}×",
                f"{same_calls:.2f}",
                f"{median(samples) / same_calls:.2f}×",
            ]
        )
    header = [
        "operation",
        "DynamoDB calls / request",
        "target",
        "p50 ms",
        "p95 ms",
        "vs raw GetItem",
        "raw same calls p50 ms",
        "vs raw same calls",
    ]
    intro = (
        f"Foundation benchmark: {repeat} requests each over HTTP (new connection per request) "
        "to the app on the local stack, "
        f"tenant of {TENANT_CONTACTS} contacts; raw boto3 GetItem p50 on the same moto "
        f"(reached in process, as the app reaches it): {floor:.2f} ms."
    )
    return intro + "\n\n" + table(header, rows)


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3 if SMOKE else 200))
