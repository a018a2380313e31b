"""Export benchmark (issue 34): entities a second the export worker writes for a tenant of 50,000
entities, and the worker's peak memory, against the raw DynamoDB reads of the same entities on the
same moto (the type's list index page by page, keys only, and BatchGetItem of 100), side by side in
one run.

The tenant: 50 objects and 500 units made through the upserts, then the units copied under new ids
and aliases with raw BatchWriteItem until the tenant holds the entities asked for (the copies are
stored exactly as the upserts store units). The worker runs in a process of its own, as a Lambda
instance would, against the stack's moto server; its peak resident memory is measured for a small
export (the objects alone) and for the whole tenant, so what grows with the tenant shows.

    make bench            (or: .venv/bin/python -m bench.export [entities])
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time
from typing import Any

import boto3

from bench.harness import SMOKE, Service, record, table
from chalicelib import config, ids

BASE = "/propertymanagement/v2"
OBJECTS, SEED_UNITS = 50, 500


def main(entities: int = 50_000) -> str:
    os.environ["PM_REQUEST_LOG"] = "logs"  # as the template sets it for the HTTP functions (lines dropped here)
    service = Service(moto_process=True)
    try:
        return run(service, entities)
    finally:
        service.stop()


def _ok(service: Service, key: str, name: str, body: dict[str, Any]) -> Any:
    with contextlib.redirect_stdout(io.StringIO()):  # the request log's lines dropped
        status, answer = service.call_admitted("POST", f"{BASE}/command/{name}", body, key=key)
    assert status == 200, answer
    return answer


def _seed(service: Service, tenant_id: str, key: str, entities: int) -> int:
    """The tenant's entities; answers how many units the upserts made (the rest are copies)."""
    objects = [{"alias": f"obj-{n}", "name": f"Haus {n}", "type": "rental"} for n in range(OBJECTS)]
    _ok(service, key, "objects.upsert", {"items": objects})
    seed = min(SEED_UNITS, entities - OBJECTS)
    units = [
        {"alias": f"we-{n}", "objectId": f"obj-{n % OBJECTS}", "number": f"WE {n:05d}", "type": "apartment"}
        for n in range(seed)
    ]
    for start in range(0, len(units), 500):
        _ok(service, key, "units.upsert", {"items": units[start : start + 500]})
    raw = boto3.client("dynamodb", region_name=config.region())
    stored = _read_units(raw, tenant_id)
    copies: list[dict[str, Any]] = []
    round_ = 0
    while OBJECTS + seed + len(copies) < entities:
        round_ += 1
        for item in stored:
            if OBJECTS + seed + len(copies) >= entities:
                break
            copies.append(_copy(item, round_))
    for start in range(0, len(copies), 25):
        puts = [{"PutRequest": {"Item": item}} for item in copies[start : start + 25]]
        answer = raw.batch_write_item(RequestItems={config.table_name(): puts})
        assert not answer.get("UnprocessedItems"), answer
    return seed


def _read_units(raw: Any, tenant_id: str) -> list[dict[str, Any]]:
    keys, found = _list_keys(raw, tenant_id, "unit"), []
    for start in range(0, len(keys), 100):
        answer = raw.batch_get_item(RequestItems={config.table_name(): {"Keys": keys[start : start + 100]}})
        found += answer["Responses"][config.table_name()]
    return found


def _copy(item: dict[str, Any], round_: int) -> dict[str, Any]:
    """The unit under a new id and alias, every key and index entry of it rewritten alike."""
    old_id = item["id"]["S"]
    stored = item["aliases"]["M"]["-"]  # a list or a string set, as pynamodb wrote it
    alias = stored["L"][0]["S"] if "L" in stored else sorted(stored["SS"])[0]
    text = json.dumps(item).replace(old_id, ids.new_id("uni"))
    return dict(json.loads(text.replace(f'"{alias}"', f'"{alias}-{round_}"')))


def _list_keys(raw: Any, tenant_id: str, type_name: str) -> list[dict[str, Any]]:
    """The type's list index, keys only, page by page (what a list and the export read first)."""
    keys: list[dict[str, Any]] = []
    pages = raw.get_paginator("query").paginate(
        TableName=config.table_name(),
        IndexName="gsi1",
        KeyConditionExpression="gsi1pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"{tenant_id}#{type_name}"}},
        ProjectionExpression="PK",
    )
    for page in pages:
        keys += [{"PK": hit["PK"], "SK": {"S": "entity"}} for hit in page["Items"]]
    return keys


def _raw_read(tenant_id: str) -> tuple[float, int]:
    """Seconds to read every object and unit as the worker's raw floor: the list index, then the
    items, 100 a consistent BatchGetItem (the items are dropped as read, as the worker writes them)."""
    raw = boto3.client("dynamodb", region_name=config.region())
    started, count = time.perf_counter(), 0
    for type_name in ("object", "unit"):
        keys = _list_keys(raw, tenant_id, type_name)
        for start in range(0, len(keys), 100):
            request = {config.table_name(): {"Keys": keys[start : start + 100], "ConsistentRead": True}}
            count += len(raw.batch_get_item(RequestItems=request)["Responses"][config.table_name()])
    return time.perf_counter() - started, count


def _export(service: Service, tenant_id: str, key: str, types: list[str] | None) -> dict[str, Any]:
    """One export, its worker run in a process of its own; its seconds, peak memory and counts."""
    started = _ok(service, key, "exports.create", {"entityTypes": types} if types else {})
    child = subprocess.run(
        [sys.executable, "-m", "bench.export_worker", tenant_id, started["id"]],
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(child.stdout.strip().splitlines()[-1]))


def run(service: Service, entities: int) -> str:
    tenant_id, key = service.signup()
    seed = _seed(service, tenant_id, key, entities)
    small = _export(service, tenant_id, key, ["object"])
    whole = _export(service, tenant_id, key, None)
    assert whole["lines"] == entities, whole
    raw_seconds, raw_count = _raw_read(tenant_id)
    assert raw_count == entities, raw_count
    rate, raw_rate = entities / whole["seconds"], entities / raw_seconds
    record(
        "exports (worker)",
        f"entities per second, tenant of {entities:,} vs the raw reads of the same entities",
        "export",
        f"{rate:,.0f}/s; raw {raw_rate:,.0f}/s ({raw_rate / rate:.1f}× faster raw)",
    )
    record(
        "exports (worker)",
        "peak resident memory of the worker's process",
        "export",
        f"{whole['peakMb']:.0f} MB for {entities:,} entities, {small['peakMb']:.0f} MB for {small['lines']}",
    )
    rows = [
        [f"{small['lines']:,} (objects only)", f"{small['seconds']:.2f}", "", "", f"{small['peakMb']:.0f}"],
        [
            f"{entities:,} (all)",
            f"{whole['seconds']:.1f}",
            f"{rate:,.0f}",
            f"{raw_rate:,.0f} ({raw_rate / rate:.1f}× faster)",
            f"{whole['peakMb']:.0f}",
        ],
    ]
    intro = (
        f"Export benchmark: a tenant of {entities:,} entities ({OBJECTS} objects and units: {seed} made by "
        "the upserts, the rest copies of them written raw), exported by the worker in a process of its own "
        "(as a Lambda instance) against the stack's moto server; the raw floor reads the same entities (the list "
        "index, keys only, then BatchGetItem of 100, consistent) on the same moto, side by side."
    )
    headers = ["export", "seconds", "entities/s", "raw reads entities/s", "worker peak MB"]
    return intro + "\n\n" + table(headers, rows)


if __name__ == "__main__":
    print(main(int(sys.argv[1]) if len(sys.argv) > 1 else 120 if SMOKE else 50_000))
