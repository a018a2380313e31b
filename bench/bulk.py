"""Bulk-data benchmark (issue 34): `units.upsert` items per second over HTTP, when every item is
created and when every item is unchanged, against the raw DynamoDB calls of the same data on the
same moto, side by side in one run: BatchWriteItem of the same items (each unit and its alias item,
25 a call) for the creation, BatchGetItem of the aliases and then of the units (100 a call) for the
unchanged pass, which is what an unchanged item costs. The raw calls read and write the very items
the upserts made (copies under keys of their own for the writes), so the sizes are the same.

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


def _upsert(service: Service, key: str, items: list[dict[str, Any]], outcome: str) -> tuple[float, list[str]]:
    """Seconds for all items in calls of BATCH, each answering `outcome` for every item, and the ids."""
    started, ids = time.perf_counter(), []
    with contextlib.redirect_stdout(io.StringIO()):  # the request log's lines dropped
        for start in range(0, len(items), BATCH):
            part = items[start : start + BATCH]
            status, body = service.call("POST", f"{BASE}/command/units.upsert", {"items": part}, key=key)
            assert status == 200, body
            assert body["counts"][outcome] == len(part), body["counts"]
            ids += [r["id"] for r in body["results"]]
    return time.perf_counter() - started, ids


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
    created, ids = _upsert(service, key, items, "created")
    unchanged, _ = _upsert(service, key, items, "unchanged")

    raw = boto3.client("dynamodb", region_name=config.region())
    table_name = config.table_name()
    keys = [{"PK": {"S": f"{tenant_id}#alias#-#{item['alias']}"}, "SK": {"S": "alias"}} for item in items] + [
        {"PK": {"S": f"{tenant_id}#{entity_id}"}, "SK": {"S": "entity"}} for entity_id in ids
    ]
    raw_read, stored = _raw_read(raw, table_name, keys)
    raw_write = _raw_write(raw, table_name, stored)

    rows = []
    for label, seconds, raw_seconds, raw_calls in (
        ("created", created, raw_write, "BatchWriteItem of the same units and alias items, 25 a call"),
        ("unchanged", unchanged, raw_read, "BatchGetItem of the same alias items and units, 100 a call"),
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


def _raw_read(raw: Any, table_name: str, keys: list[dict[str, Any]]) -> tuple[float, list[dict[str, Any]]]:
    """What an unchanged item reads: its alias item and its unit, 100 a BatchGetItem, consistent."""
    started, found = time.perf_counter(), []
    for start in range(0, len(keys), 100):
        part = keys[start : start + 100]
        answer = raw.batch_get_item(RequestItems={table_name: {"Keys": part, "ConsistentRead": True}})
        assert len(answer["Responses"][table_name]) == len(part) and not answer.get("UnprocessedKeys")
        found += answer["Responses"][table_name]
    return time.perf_counter() - started, found


def _raw_write(raw: Any, table_name: str, stored: list[dict[str, Any]]) -> float:
    """What a created item writes, without the transaction: the same unit and alias items (copies under
    keys of their own), 25 a BatchWriteItem."""
    copies = [{**item, "PK": {"S": item["PK"]["S"] + "#raw"}} for item in stored]
    started = time.perf_counter()
    for start in range(0, len(copies), 25):
        puts = [{"PutRequest": {"Item": item}} for item in copies[start : start + 25]]
        answer = raw.batch_write_item(RequestItems={table_name: puts})
        assert not answer.get("UnprocessedItems"), answer
    return time.perf_counter() - started


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20 if SMOKE else 5000))
