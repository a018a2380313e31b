"""Foundation benchmark: DynamoDB calls per request and latency through the local stack
for contacts.show, contacts (page of 100) and contacts.create, 1,000 calls of one key each,
next to the same data calls made raw through boto3 on the same moto (in process, as the app
reaches it), measured side by side in one run. The calls a request makes on its way (the data,
the rate counters' leases, a key's last use) and its share of the request log's batched writes
(issue 32) are counted apart.

    make bench            (or: .venv/bin/python -m bench.foundation [repeat])
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from collections.abc import Callable

import boto3

from bench.harness import SMOKE, Service, median, p, record, succeeding, table, timed
from chalicelib import config
from chalicelib.context import CallContext
from chalicelib.resources.contacts import CONTACT
from chalicelib.store import entities, requests

TENANT_CONTACTS = 1000  # also in smoke runs: a page at offset 900 is measured
PACE = 90  # requests a second at most: the key's default limit is 100 (chalicelib/throttle.py)


def main(repeat: int = 1000) -> str:
    os.environ["PM_REQUEST_LOG"] = "logs"  # as the template sets it for the HTTP functions
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
    with contextlib.redirect_stdout(io.StringIO()):  # warm: key cache, last-use write, validators
        service.call("GET", f"{base}/query/info", key=key)

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
    targets = {
        "contacts.show": "≤ 1.2",
        "contacts (100, offset 0)": "≤ 3.2",
        "contacts (100, offset 900)": "≤ 3.2",
        "contacts.create": "≤ 1.2",
    }
    with contextlib.redirect_stdout(io.StringIO()):  # warm every path once (its log lines dropped)
        for case in cases.values():
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

    # the data calls alone: no rate counter, no request log
    raw_cases: dict[str, tuple[Callable[[], None], str]] = {
        "contacts.show": (show, "GetItem 1"),
        "contacts (100, offset 0)": (lambda: raw_list(0), "Query 1, BatchGetItem 1"),
        "contacts (100, offset 900)": (lambda: raw_list(900), "Query 1, BatchGetItem 1"),
        "contacts.create": (put, "PutItem 1"),
    }
    floor = median(timed(show, repeat))
    rows = []
    for name, case in cases.items():
        printed = io.StringIO()
        with service.counting() as seen, contextlib.redirect_stdout(printed):
            samples = timed(succeeding(case), repeat, per_second=PACE)
        with service.counting() as written:  # what WriteRequestLogs makes of the printed lines, batched
            entries = requests.write_entries(printed.getvalue().splitlines())
        assert entries == repeat, f"{entries} request-log entries for {repeat} requests"
        raw_case, raw_calls = raw_cases[name]
        same_calls = median(timed(raw_case, repeat))
        path_calls = sum(seen.values()) / repeat
        writer_calls = sum(written.values()) / repeat
        kinds = ", ".join(f"{op} {n / repeat:g}" for op, n in sorted(seen.items()))
        record(
            name,
            "DynamoDB calls per request, with the request log's batched writes",
            f"{targets[name]} calls",
            f"{path_calls + writer_calls:.3g} calls, {median(samples):.1f} ms p50, "
            f"{median(samples) / same_calls:.2f}× raw",
        )
        rows.append(
            [
                name,
                f"{path_calls:.3g} ({kinds})",
                f"{writer_calls:.3g}",
                f"**{path_calls + writer_calls:.3g}**",
                targets[name],
                raw_calls,
                f"{median(samples):.2f}",
                f"{p(samples, 0.95):.2f}",
                f"{same_calls:.2f}",
                f"{median(samples) / same_calls:.2f}×",
            ]
        )
    header = [
        "operation",
        "DynamoDB calls / request on the call",
        "+ request-log writer",
        "total",
        "target",
        "raw data calls",
        "p50 ms",
        "p95 ms",
        "raw p50 ms",
        "vs raw",
    ]
    intro = (
        f"Foundation benchmark: {repeat} requests of one key per operation over HTTP (new connection "
        f"per request, at most {PACE} a second: under the key's default limit) to the app on the local "
        f"stack, tenant of {TENANT_CONTACTS} contacts, the request log as in the cloud (PM_REQUEST_LOG=logs: "
        "printed, then stored 25 to a BatchWriteItem); the raw data calls alone through boto3 on the same "
        f"moto (in process, as the app reaches it), side by side; raw GetItem p50 {floor:.2f} ms."
    )
    return intro + "\n\n" + table(header, rows)


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else 3 if SMOKE else 1000))
