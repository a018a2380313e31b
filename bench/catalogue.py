"""Catalogue benchmark: every list query of the registry, at offset 0 and at a deep offset,
in a tenant of 10,000 units (and one of everything else): DynamoDB calls per request by
kind (a Scan would show here; there is none) and latency, next to a raw boto3 GetItem
on the same moto (in process, as the app reaches it), measured side by side in one run.

    .venv/bin/python -m bench.catalogue [units] [repeat]
"""

from __future__ import annotations

import sys
import time
from typing import Any

import boto3

from bench.harness import SMOKE, Service, median, record, succeeding, table, timed
from chalicelib import config
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.registry import REGISTRY
from chalicelib.store import entities
from tests.client import Api
from tests.world import OWN_TESTS, World


def list_queries() -> list[str]:
    """Every paged query a world can answer (a batch's progress needs a batch: bench/uploads.py)."""
    return sorted(
        name
        for name, op in REGISTRY.items()
        if op.kind == "query" and "pagination" in op.result.get("properties", {}) and name not in OWN_TESTS
    )


def main(units: int = 10_000, repeat: int = 3) -> str:
    service = Service()
    try:
        return run(service, units, repeat)
    finally:
        service.stop()


def run(service: Service, units: int, repeat: int) -> str:
    api = Api(f"http://127.0.0.1:{service.port}")
    tenant = api.signup(company="Große Verwaltung GmbH")
    world = World(tenant)
    world.build()
    started = time.perf_counter()
    ctx = CallContext(
        tenant_id=tenant.id, key_id="key_bench", agent_name="bench", scopes=frozenset(), operation="units.create"
    )
    unit_type = ENTITY_TYPES["unit"]
    for i in range(units - 1):
        entities.create(
            ctx, unit_type, {"objectId": world.ids["object"], "number": f"{i:05d}", "type": "apartment"}, path="unit"
        )
    fill_seconds = time.perf_counter() - started

    raw = boto3.client("dynamodb", region_name=config.region())
    raw_key = {"PK": {"S": f"{tenant.id}#{world.ids['object']}"}, "SK": {"S": "entity"}}
    floor = median(timed(lambda: raw.get_item(TableName=config.table_name(), Key=raw_key, ConsistentRead=True), 50))
    # moto answers a Query on an index by walking the whole table, so even a one-match
    # Query costs time in proportion to the table: the floor every list shares here.
    one_match = {
        "TableName": config.table_name(),
        "IndexName": "gsi1",
        "KeyConditionExpression": "gsi1pk = :p",
        "ProjectionExpression": "PK",
    }
    query_floor = median(
        timed(lambda: raw.query(**one_match, ExpressionAttributeValues={":p": {"S": f"{tenant.id}#object"}}), 5)
    )

    rows: list[list[Any]] = []
    scans = 0
    for name in list_queries():
        op = REGISTRY[name]
        args = world.fill(op)
        if "limit" in op.args["properties"]:
            args["limit"], args["offset"] = 100, 0
        first = tenant.query(name, args)
        assert first.status == 200, (name, first.body)
        total = first.body["pagination"]["total"]
        offsets = [0] + ([max(0, total - 100)] if "offset" in op.args["properties"] and total > 100 else [])
        for offset in offsets:
            if "offset" in op.args["properties"]:
                args["offset"] = offset
            with service.counting() as seen:
                samples = timed(succeeding(lambda: tenant.query(name, args)), repeat)  # noqa: B023 - runs before args changes
            scans += seen.get("Scan", 0)
            calls = sum(seen.values()) / repeat
            kinds = ", ".join(f"{k} {v / repeat:g}" for k, v in sorted(seen.items()))
            p50 = median(samples)
            rows.append(
                [
                    name,
                    offset,
                    total,
                    f"{calls:g} ({kinds})",
                    f"{p50:.1f}",
                    f"{p50 / floor:.0f}×",
                    f"{p50 / query_floor:.1f}×",
                ]
            )
    assert scans == 0, "a list query scanned the table"

    def raw_units_page() -> None:
        """What `units` does for one page, straight through boto3: every key of the partition, then the page."""
        query = {
            "TableName": config.table_name(),
            "IndexName": "gsi1",
            "KeyConditionExpression": "gsi1pk = :p",
            "ProjectionExpression": "PK",
        }
        keys = [
            k
            for page in raw.get_paginator("query").paginate(
                **query, ExpressionAttributeValues={":p": {"S": f"{tenant.id}#unit"}}
            )
            for k in page["Items"]
        ]
        page_keys = [{"PK": k["PK"], "SK": {"S": "entity"}} for k in keys[:100]]
        raw.batch_get_item(RequestItems={config.table_name(): {"Keys": page_keys, "ConsistentRead": True}})

    raw_units = median(timed(raw_units_page, repeat))
    units_p50 = next(float(row[4]) for row in rows if row[0] == "units")
    rows.append(
        [
            "units, raw same calls (boto3)",
            0,
            units,
            "same Queries + 1 BatchGetItem",
            f"{raw_units:.1f}",
            f"{raw_units / floor:.0f}×",
            f"{raw_units / query_floor:.1f}×",
        ]
    )
    intro_units = (
        f" The units list costs {units_p50 / raw_units:.2f}× the same DynamoDB calls made straight through boto3."
    )
    record(
        "units list, 10,000 matches",
        "p50 vs the same calls raw",
        "no scan",
        f"{units_p50:.0f} ms, {units_p50 / raw_units:.2f}× raw, {scans} scans",
    )
    worst = max(float(row[6].rstrip("×")) for row in rows[:-1] if row[0] != "units")
    record("every other list query", "p50 vs a raw 1-match Query", "no scan", f"at most {worst:.1f}×")
    intro = (
        f"Catalogue benchmark: every list query at offset 0 and at the last page, tenant of {units:,} units "
        f"(filled in {fill_seconds:.0f} s through the store) and one of every other entity; "
        f"{repeat} requests each over HTTP; raw boto3 on the same moto (in process): GetItem p50 {floor:.2f} ms, "
        f"one-match index Query p50 {query_floor:.1f} ms. Table scans: {scans}." + intro_units
    )
    header = [
        "query",
        "offset",
        "total",
        "DynamoDB calls / request",
        "p50 ms",
        "vs raw GetItem",
        "vs raw 1-match Query",
    ]
    return intro + "\n\n" + table(header, rows)


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]] or ([50, 2] if SMOKE else [])
    print(main(*args))
