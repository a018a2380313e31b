"""What a page of the change feed and of the audit trail costs a key limited to objects (issue 51,
point 7), over HTTP: one `changes.list` or `audit.list` page of such a key makes at most three
times the DynamoDB calls of an unlimited key's page of the same size, however much of the feed lies
outside its objects, and following `next` it still sees exactly the entries within them.

The world puts hundreds of changes in another object, of the kinds whose reach costs reads:
process updates (each needs its process), contacts (linked through contracts) and contracts and
units (decided by their objectId), with the key's own object's changes among them. Calls are
counted at pynamodb's client (botocore's `before-call`, registered ahead of the in-process
transport), only those of the test's thread: the request is answered in it, the stream's workers
run in others."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from chalicelib import account
from chalicelib.events import feed
from chalicelib.store import keys
from tests.client import Tenant, inside_one_window
from tests.eventually import eventually

OUTSIDE = 100  # entities of each kind in the other object
PAGE = 100  # the page size both keys ask for
FACTOR = 3  # the bound: a limited key's page costs at most this many times an unlimited one's


class Calls:
    """The DynamoDB calls this thread makes, by operation name."""

    def __init__(self) -> None:
        from chalicelib.store.model import Item

        self.events = Item._get_connection().connection.client.meta.events
        self.thread = threading.get_ident()
        self.seen: list[str] = []
        self.unique = f"pm-test-calls-{uuid.uuid4().hex}"
        self.events.register("before-call.dynamodb", self._count, unique_id=self.unique)

    def _count(self, model: Any, **_: Any) -> None:
        if threading.get_ident() == self.thread:
            self.seen.append(model.name)

    def of(self, run: Callable[[], Any]) -> tuple[int, Any]:
        self.seen.clear()
        answer = run()
        return len(self.seen), answer

    def close(self) -> None:
        self.events.unregister("before-call.dynamodb", unique_id=self.unique)


@pytest.fixture()
def calls() -> Iterator[Calls]:
    counter = Calls()
    yield counter
    counter.close()


def _upsert(tenant: Tenant, plural: str, items: list[dict[str, Any]]) -> list[str]:
    answer = tenant.ok(f"{plural}.upsert", {"items": items})
    assert answer["counts"]["failed"] == 0, answer
    return [result["id"] for result in answer["results"]]


def _world(tenant: Tenant) -> tuple[str, set[str]]:
    """Objects A and B; hundreds of changes in B with A's among them. Answers A's id and the ids
    of every entity within A (those the key limited to A must see, and no other)."""
    a, _b = _upsert(
        tenant,
        "objects",
        [{"alias": "a", "name": "WEG A", "type": "weg"}, {"alias": "b", "name": "WEG B", "type": "weg"}],
    )
    inside: set[str] = {a}

    def in_a(tag: str) -> None:
        """One of each kind in A: a unit, its tenant contact and contract, a process and an update."""
        inside.update(
            _upsert(tenant, "units", [{"alias": f"a-unit-{tag}", "objectId": "a", "number": tag, "type": "apartment"}])
        )
        inside.update(
            _upsert(tenant, "contacts", [{"alias": f"a-party-{tag}", "personType": "natural", "lastName": f"A {tag}"}])
        )
        contract = {
            "alias": f"a-contract-{tag}",
            "unitId": f"a-unit-{tag}",
            "type": "lease",
            "startDate": "2024-01-01",
            "parties": [{"contactId": f"a-party-{tag}", "role": "tenant"}],
        }
        inside.update(_upsert(tenant, "contracts", [contract]))
        inside.update(
            _upsert(tenant, "processes", [{"alias": f"a-process-{tag}", "objectId": "a", "title": f"Vorgang {tag}"}])
        )
        update = {"alias": f"a-update-{tag}", "processId": f"a-process-{tag}", "text": "Termin.", "type": "note"}
        inside.update(_upsert(tenant, "processes.updates", [update]))

    in_a("1")
    n = range(OUTSIDE)
    _upsert(tenant, "processes", [{"alias": f"b-p{i}", "objectId": "b", "title": f"B {i}"} for i in n])
    in_a("2")
    _upsert(
        tenant,
        "processes.updates",
        [{"alias": f"b-u{i}", "processId": f"b-p{i}", "text": "B.", "type": "note"} for i in n],
    )
    _upsert(tenant, "contacts", [{"alias": f"b-c{i}", "personType": "natural", "lastName": f"B {i}"} for i in n])
    in_a("3")
    _upsert(
        tenant, "units", [{"alias": f"b-w{i}", "objectId": "b", "number": f"B {i}", "type": "apartment"} for i in n]
    )
    contracts = [
        {
            "alias": f"b-v{i}",
            "unitId": f"b-w{i}",
            "type": "lease",
            "startDate": "2024-01-01",
            "parties": [{"contactId": f"b-c{i}", "role": "tenant"}],
        }
        for i in n
    ]
    _upsert(tenant, "contracts", contracts)
    _upsert(
        tenant,
        "contacts",
        [{"alias": f"b-c{i}", "personType": "natural", "lastName": f"B {i}", "firstName": "X"} for i in n],
    )
    in_a("4")
    return a, inside


def _limited_key(tenant: Tenant, object_id: str) -> str:
    body = tenant.ok(
        "apikeys.create",
        {
            "apiKey": {
                "agentName": f"portal-{uuid.uuid4().hex[:8]}",
                "scopes": ["read", "write"],
                "objects": [object_id],
            }
        },
    )
    return str(body["apiKey"]["key"])


def _whole_feed(tenant: Tenant, key: str, limit: int = PAGE) -> tuple[list[dict[str, Any]], int]:
    """Every change on the feed as the key reads it, following `next` from the feed's start until
    a page moves no further; and how many pages that took."""
    after, shown, pages = feed.encode_cursor(0), [], 0
    while True:
        answer = tenant.get("changes.list", {"after": after, "limit": limit}, key=key)
        pages += 1
        shown.extend(answer["changes"])
        if answer["next"] == after and not answer["changes"]:
            return shown, pages
        after = answer["next"]


def _whole_audit(tenant: Tenant, key: str) -> list[dict[str, Any]]:
    after: str | None = None
    shown: list[dict[str, Any]] = []
    while True:
        answer = tenant.get("audit.list", {"limit": PAGE, **({"after": after} if after else {})}, key=key)
        shown.extend(answer["auditRecords"])
        if answer["next"] == after and not answer["auditRecords"]:
            return shown
        after = answer["next"]


@pytest.fixture()
def world(tenant: Tenant, stack: Any) -> tuple[Tenant, str, str, set[str]]:
    """The world, an unlimited reading key, the key limited to A (which has made a contact of its
    own, within its reach though linked to nothing) and the ids within A."""
    a, inside = _world(tenant)
    everything = tenant.new_key(["read"])
    limited = _limited_key(tenant, a)
    made = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": "Eigener"}}, key=limited)
    inside.add(made["contact"]["id"])
    written = 6 * OUTSIDE + 2 + 4 * 5 + 1  # the changes with an event made above: all on the feed
    eventually(lambda: len(_whole_feed(tenant, everything, 1000)[0]) >= written or None, timeout=60)
    assert stack.poller.wait_idle(15), "the change stream did not catch up"
    return tenant, everything, limited, inside


def _page_calls(calls: Calls, tenant: Tenant, name: str, args: dict[str, Any], key: str) -> tuple[int, Any]:
    """The DynamoDB calls of one page, asked twice: the first warms the key's lookup and the
    tenant's facts (cached per instance) for both keys alike."""
    tenant.get(name, args, key=key)
    return calls.of(lambda: tenant.get(name, args, key=key))


def test_a_limited_keys_feed_page_costs_at_most_three_times_an_unlimited_ones_and_shows_exactly_its_objects(
    world: tuple[Tenant, str, str, set[str]], calls: Calls
) -> None:
    tenant, everything, limited, inside = world
    start = {"after": feed.encode_cursor(0), "limit": PAGE}
    unlimited_calls, full_page = _page_calls(calls, tenant, "changes.list", start, everything)
    limited_calls, _ = _page_calls(calls, tenant, "changes.list", start, limited)
    assert len(full_page["changes"]) == PAGE
    print(f"changes.list page of {PAGE}: unlimited {unlimited_calls} calls, limited {limited_calls}")
    assert limited_calls <= FACTOR * unlimited_calls, (limited_calls, unlimited_calls)

    all_changes, _ = _whole_feed(tenant, everything)
    seen, pages = _whole_feed(tenant, limited)
    assert [c["id"] for c in seen] == [c["id"] for c in all_changes if c["entityId"] in inside]
    assert {c["entityId"] for c in seen} == inside
    print(f"the limited key followed next over {pages} pages")


def test_a_limited_keys_audit_page_costs_at_most_three_times_an_unlimited_ones_and_shows_exactly_its_objects(
    world: tuple[Tenant, str, str, set[str]], calls: Calls
) -> None:
    tenant, everything, limited, inside = world
    first = {"limit": PAGE, "offset": 0}
    unlimited_calls, full_page = _page_calls(calls, tenant, "audit.list", first, everything)
    limited_calls, _ = _page_calls(calls, tenant, "audit.list", first, limited)
    assert len(full_page["auditRecords"]) == PAGE
    print(f"audit.list page of {PAGE}: unlimited {unlimited_calls} calls, limited {limited_calls}")
    assert limited_calls <= FACTOR * unlimited_calls, (limited_calls, unlimited_calls)

    all_records = _whole_audit(tenant, everything)
    seen = _whole_audit(tenant, limited)
    assert [r["id"] for r in seen] == [r["id"] for r in all_records if r["entityId"] in inside]
    assert {r["entityId"] for r in seen} == inside


@pytest.mark.parametrize("name", ["changes.list", "audit.list"])
def test_a_limited_keys_page_counts_against_its_rate_limit_with_the_reads_that_judged_it(
    world: tuple[Tenant, str, str, set[str]], name: str
) -> None:
    tenant, everything, limited, _ = world
    first = {"after": feed.encode_cursor(0), "limit": PAGE} if name == "changes.list" else {"limit": PAGE, "offset": 0}
    keys.set_throttle(tenant.id, {"perKey": {"rate": 0.05, "burst": 6}})  # 6 calls per 120 s
    account.forget_tenant(tenant.id)
    try:
        inside_one_window(120, 20)
        answered = {}
        for who, key in (("unlimited", everything), ("limited", limited)):
            statuses = [tenant.query(name, first, key=key).status for _ in range(7)]
            assert set(statuses) <= {200, 429}, statuses
            answered[who] = statuses.count(200)
        # the limited key's first page judges with four reads or more: it counts as two calls at least
        assert answered == {"unlimited": 6, "limited": 3}, answered
    finally:
        keys.set_throttle(tenant.id, None)
        account.forget_tenant(tenant.id)
