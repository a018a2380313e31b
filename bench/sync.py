"""Change-feed benchmark (issue 33): one `changes.list` page of 1,000 changes over HTTP against the
same DynamoDB calls made raw through boto3 on the same moto (the feed's head, consistently, then
the entries' Query pages), side by side in one run; and how soon a change is on the feed after its
write, on the stack `make serve` runs (the stream poller feeding the same handler Lambda runs).

The delay is measured two ways: on the server, from the entity's write (the change's `occurredAt`,
its updatedAt) to the feed transaction that made it readable (the entry's `committedAt`, kept in
the store, not shown); and as a client sees it, from the create's answer to the first
`changes.list` answer (polled every POLL_MS with a second key) that holds it.

    make bench            (or: .venv/bin/python -m bench.sync [pages] [writes])
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import time

import boto3

from bench.harness import SMOKE, Service, median, p, record, succeeding, table, timed
from chalicelib import clock, config
from chalicelib.context import CallContext
from chalicelib.events.feed import encode_cursor
from chalicelib.resources.contacts import CONTACT
from chalicelib.store import entities, feed

FEED_CHANGES = 1000  # one full page
POLL_MS = 10
PACE = 90  # requests a second of one key at most: its default limit is 100
BASE = "/propertymanagement/v2"


def main(pages: int = 50, writes: int = 200) -> str:
    os.environ["PM_REQUEST_LOG"] = "logs"  # as the template sets it for the HTTP functions (lines dropped here)
    service = Service()
    service.stack.start_stream(uploads=False)
    try:
        return run(service, pages, writes)
    finally:
        service.stop()


def run(service: Service, pages: int, writes: int) -> str:
    tenant_id, key = service.signup()
    ctx = CallContext(
        tenant_id=tenant_id, key_id="key_bench", agent_name="bench", scopes=frozenset(), operation="contacts.create"
    )
    start = feed.head(tenant_id)
    for i in range(FEED_CHANGES):
        entities.create(ctx, CONTACT, {"personType": "natural", "lastName": f"Feed {i}"}, path="contact")
    assert service.stack.poller.wait_idle(120), "the stream poller did not catch up"
    assert feed.head(tenant_id) == start + FEED_CHANGES
    page_path = f"{BASE}/query/changes.list?after={encode_cursor(start)}&limit={FEED_CHANGES}"

    def one_page() -> tuple[int, object]:
        status, body = service.call("GET", page_path, key=key)
        assert status != 200 or len(body["changes"]) == FEED_CHANGES, len(body["changes"])
        return status, body

    with contextlib.redirect_stdout(io.StringIO()):  # warm: key cache, validators (request log lines dropped)
        one_page()
        with service.counting() as seen:
            samples = timed(succeeding(one_page), pages, per_second=PACE)

    raw = boto3.client("dynamodb", region_name=config.region())
    table_name = config.table_name()
    raw_calls: list[str] = []

    def raw_page() -> None:
        """The feed's data calls: the head, then the entries' Query pages (1 MB each), consistent."""
        raw.get_item(
            TableName=table_name, Key={"PK": {"S": f"{tenant_id}#feed"}, "SK": {"S": "head"}}, ConsistentRead=True
        )
        query = {
            "TableName": table_name,
            "KeyConditionExpression": "PK = :p AND SK BETWEEN :a AND :b",
            "ExpressionAttributeValues": {
                ":p": {"S": f"{tenant_id}#feed#{(start + 1) // feed.BLOCK}"},
                ":a": {"S": f"{start + 1:012d}"},
                ":b": {"S": f"{start + FEED_CHANGES:012d}"},
            },
            "ConsistentRead": True,
        }
        calls, found = ["GetItem"], 0
        while True:
            answer = raw.query(**query)
            calls.append("Query")
            found += answer["Count"]
            if "LastEvaluatedKey" not in answer:
                break
            query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
        assert found == FEED_CHANGES, found
        raw_calls[:] = calls

    raw_samples = timed(raw_page, pages)
    per_page = {op: n / pages for op, n in sorted(seen.items())}
    on_page = ", ".join(f"{op} {n:g}" for op, n in per_page.items())
    raw_kinds = ", ".join(f"{op} {raw_calls.count(op)}" for op in sorted(set(raw_calls)))
    ratio = median(samples) / median(raw_samples)

    server, client = visibility(service, tenant_id, key, writes)
    record(
        "changes.list, a page of 1,000",
        "p50 vs the same DynamoDB calls raw",
        "bounded reads",
        f"{median(samples):.0f} ms, {ratio:.2f}× raw ({sum(per_page.values()):.3g} calls)",
    )
    record(
        "change feed visibility",
        "write → on the feed, p50 / p95 (server; as a client polling sees it)",
        "a few seconds at worst",
        f"{median(server):.0f} / {p(server, 0.95):.0f} ms; {median(client):.0f} / {p(client, 0.95):.0f} ms",
    )
    rows = [
        [
            f"changes.list, {FEED_CHANGES} changes",
            f"{sum(per_page.values()):.3g} ({on_page})",
            raw_kinds,
            f"{median(samples):.1f}",
            f"{p(samples, 0.95):.1f}",
            f"{median(raw_samples):.1f}",
            f"{ratio:.2f}×",
        ]
    ]
    delays = [
        [
            "write → feed transaction (server)",
            len(server),
            f"{median(server):.0f}",
            f"{p(server, 0.95):.0f}",
            f"{max(server):.0f}",
        ],
        [
            f"create answered → seen by a client polling every {POLL_MS} ms",
            len(client),
            f"{median(client):.0f}",
            f"{p(client, 0.95):.0f}",
            f"{max(client):.0f}",
        ],
    ]
    intro = (
        f"Change-feed benchmark: {pages} requests of one page of {FEED_CHANGES} changes (contacts created, "
        "each a change) over HTTP, new connection per request, against its raw data calls through boto3 on "
        f"the same moto, side by side; then {writes} creates one after the other, each followed until it is "
        "on the feed."
    )
    return (
        intro
        + "\n\n"
        + table(
            ["page", "DynamoDB calls / request", "raw data calls", "p50 ms", "p95 ms", "raw p50 ms", "vs raw"], rows
        )
        + "\n\n"
        + table(["visibility delay", "changes", "p50 ms", "p95 ms", "max ms"], delays)
    )


def visibility(service: Service, tenant_id: str, key: str, writes: int) -> tuple[list[float], list[float]]:
    """Milliseconds from each write to its feed entry's commit (server) and from the create's answer
    to the first changes.list answer holding it (client: a reader's key of its own)."""
    cursor = encode_cursor(feed.head(tenant_id))
    client: list[float] = []
    with contextlib.redirect_stdout(io.StringIO()):  # the request log's lines dropped
        status, body = service.call(
            "POST",
            f"{BASE}/command/apikeys.create",
            {"apiKey": {"agentName": "feed-reader", "scopes": ["read"]}},
            key=key,
        )
        assert status == 200, body
        reader = body["apiKey"]["key"]
        for n in range(writes):
            status, body = service.call(
                "POST",
                f"{BASE}/command/contacts.create",
                {"contact": {"personType": "natural", "lastName": f"W{n}"}},
                key=key,
            )
            answered = time.perf_counter()
            assert status == 200, body
            wanted = body["contact"]["id"]
            while True:
                status, page = service.call("GET", f"{BASE}/query/changes.list?after={cursor}&limit=10", key=reader)
                assert status == 200, page
                cursor = page["next"]
                if any(c["entityId"] == wanted for c in page["changes"]):
                    client.append((time.perf_counter() - answered) * 1000)
                    break
                time.sleep(POLL_MS / 1000)
            time.sleep(1 / PACE)
    last = feed.head(tenant_id)
    written = list(feed.entries(tenant_id, last - writes + 1, last))
    server = [(clock.parse(e["committedAt"]) - clock.parse(e["occurredAt"])).total_seconds() * 1000 for e in written]
    return server, client


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    defaults = (3, 5) if SMOKE else (50, 200)
    print(main(*(args + list(defaults[len(args) :]))))
