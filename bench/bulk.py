"""Bulk-data benchmark (issue 34): `units.upsert` items per second over HTTP, when every item is
created and when every item is unchanged, against the raw DynamoDB calls of the same data on the
same moto, side by side in one run: BatchWriteItem of the same items (each unit and its alias item,
25 a call) for the creation, BatchGetItem of the aliases and then of the units (100 a call) for the
unchanged pass, which is what an unchanged item costs.

    make bench            (or: .venv/bin/python -m bench.bulk [units])
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time
from typing import Any

import boto3

from bench.harness import SMOKE, Service, record, table
from chalicelib import config

BATCH = 500
BASE = "/propertymanagement/v2"


def main(units: int = 5000) -> str:
    os.environ["PM_REQUEST_LOG"] = "logs"  # as the template sets it for the HTTP functions (lines dropped here)
    service = Service()
    try:
        return run(service, units)
    finally:
        service.stop()


def _items(units: int, tag: str) -> list[dict[str, Any]]:
    return [
        {"alias": f"{tag}-{n}", "objectId": f"{tag}-obj", "number": f"WE {n:05d}", "type": "apartment"}
        for n in range(units)
    ]


def _upsert(service: Service, key: str, items: list[dict[str, Any]], outcome: str) -> float:
    """Seconds for all items in calls of BATCH, each answering `outcome` for every item."""
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # the request log's lines dropped
        for start in range(0, len(items), BATCH):
            status, body = service.call(
                "POST", f"{BASE}/command/units.upsert", {"items": items[start : start + BATCH]}, key=key
            )
            assert status == 200, body
            assert body["counts"][outcome] == len(items[start : start + BATCH]), body["counts"]
    return time.perf_counter() - started


def run(service: Service, units: int) -> str:
    tenant_id, key = service.signup()
    tag = "b"
    with contextlib.redirect_stdout(io.StringIO()):
        status, body = service.call(
            "POST",
            f"{BASE}/command/objects.upsert",
            {"items": [{"alias": f"{tag}-obj", "name": "Haus", "type": "rental"}]},
            key=key,
        )
    assert status == 200 and body["counts"]["created"] == 1, body
    items = _items(units, tag)
    created = _upsert(service, key, items, "created")
    unchanged = _upsert(service, key, items, "unchanged")

    raw = boto3.client("dynamodb", region_name=config.region())
    table_name = config.table_name()
    raw_write = _raw_write(raw, table_name, tenant_id, units)
    raw_read = _raw_read(raw, table_name, tenant_id, units)

    rows = []
    for label, seconds, raw_seconds, raw_calls in (
        ("created", created, raw_write, "BatchWriteItem of the unit and its alias item, 25 a call"),
        ("unchanged", unchanged, raw_read, "BatchGetItem of the aliases, then of the units, 100 a call"),
    ):
        rate, raw_rate = units / seconds, units / raw_seconds
        rows.append([label, units, f"{rate:,.0f}", raw_calls, f"{raw_rate:,.0f}", f"{raw_rate / rate:.1f}×"])
        record(
            f"units.upsert, {label}",
            "items per second (calls of 500) vs the same data's raw calls",
            "bulk",
            f"{rate:,.0f}/s; raw {raw_rate:,.0f}/s ({raw_rate / rate:.1f}× faster raw)",
        )
    intro = (
        f"Bulk benchmark: {units} units sent through units.upsert over HTTP in calls of {BATCH}, first all new "
        "(created), then the same again (unchanged), against the raw DynamoDB calls of the same data through boto3 "
        "on the same moto, side by side."
    )
    return intro + "\n\n" + table(["upsert", "items", "items/s", "raw calls", "raw items/s", "raw faster"], rows)


def _raw_write(raw: Any, table_name: str, tenant_id: str, units: int) -> float:
    started = time.perf_counter()
    pending = []
    for n in range(units):
        entity = {
            "PK": {"S": f"{tenant_id}#uni_raw{n:08d}"},
            "SK": {"S": "entity"},
            "type": {"S": "unit"},
            "data": {"M": {"number": {"S": f"WE {n:05d}"}, "type": {"S": "apartment"}, "objectId": {"S": "obj_raw"}}},
        }
        alias = {"PK": {"S": f"{tenant_id}#alias#-#raw-{n}"}, "SK": {"S": "alias"}, "id": {"S": f"uni_raw{n:08d}"}}
        pending += [{"PutRequest": {"Item": entity}}, {"PutRequest": {"Item": alias}}]
    for start in range(0, len(pending), 25):
        answer = raw.batch_write_item(RequestItems={table_name: pending[start : start + 25]})
        assert not answer.get("UnprocessedItems"), answer
    return time.perf_counter() - started


def _raw_read(raw: Any, table_name: str, tenant_id: str, units: int) -> float:
    started = time.perf_counter()
    for kind, keys in (
        ("alias", [{"PK": {"S": f"{tenant_id}#alias#-#raw-{n}"}, "SK": {"S": "alias"}} for n in range(units)]),
        ("entity", [{"PK": {"S": f"{tenant_id}#uni_raw{n:08d}"}, "SK": {"S": "entity"}} for n in range(units)]),
    ):
        for start in range(0, units, 100):
            answer = raw.batch_get_item(
                RequestItems={table_name: {"Keys": keys[start : start + 100], "ConsistentRead": True}}
            )
            assert len(answer["Responses"][table_name]) == len(keys[start : start + 100]), kind
    return time.perf_counter() - started


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20 if SMOKE else 5000))
