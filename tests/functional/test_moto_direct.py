"""The local stack's direct way to moto (chalicelib/local/moto_direct.py) hands moto a request's
parameters as values instead of their JSON, and parses an answer from the values moto's handler
built instead of their JSON. Here every request and every answer of a broad workload is parsed
both ways and compared: an entity of every type made, changed, listed, deleted and
restored, the change feed read, a webhook delivered (the stream's records and the delivery
queue's messages included). A difference names the operation and both parses."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib import config
from chalicelib.local import moto_direct
from chalicelib.registry import REGISTRY
from tests.client import Tenant
from tests.receiver import Receiver
from tests.world import World

# The operations whose answers carry what a parse must get right: items (values of every
# kind, nested maps and lists), pages and their keys, transactions, the stream's records
# (timestamps) and the queue's messages.
MUST_BE_CHECKED = {
    "GetItem",
    "PutItem",
    "UpdateItem",
    "Query",
    "BatchGetItem",
    "TransactWriteItems",
    "GetRecords",
    "SendMessageBatch",
    "ReceiveMessage",
}
# The requests moto parses from their values (the stream's reads are parsed from their JSON: its
# handler reads the body itself): items, conditions, updates, transactions, key conditions, batches.
REQUESTS_MUST_BE_CHECKED = {f"{name} request" for name in MUST_BE_CHECKED - {"GetRecords"}}
pytestmark = pytest.mark.skipif(
    config.local_transport() != "direct", reason="PM_LOCAL_TRANSPORT=wsgi: no direct path to compare"
)


@pytest.fixture()
def checked() -> Iterator[list[tuple[str, str | None]]]:
    moto_direct.CROSS_CHECK = checks = []
    try:
        yield checks
    finally:
        moto_direct.CROSS_CHECK = None


@pytest.mark.slow
def test_every_request_and_answer_parsed_from_values_is_what_its_json_gives(
    stack: Any, tenant: Tenant, receiver: Receiver, checked: list[tuple[str, str | None]]
) -> None:
    tenant.ok("webhooks.create", {"name": "all", "url": receiver.url, "events": ["*"]})
    world = World(tenant)
    world.build()
    contact = world.fresh("contact")
    tenant.ok("contacts.update", {"contact": {"id": contact, "firstName": "Grüße", "notes": "zwei\nZeilen"}})
    for name, op in sorted(REGISTRY.items()):
        if op.kind == "query" and name.endswith(".list") and not op.args.get("required"):
            assert tenant.query(name, {"limit": 5}).status == 200, name
    tenant.ok("contacts.delete", {"contact": contact})
    tenant.ok("contacts.restore", {"contact": contact})
    tenant.get("changes.list", {"limit": 100})
    receiver.wait_for(1)
    assert stack.poller.wait_idle(15)

    differences = [f"{name}: {difference[:600]}" for name, difference in checked if difference is not None]
    assert not differences, "\n".join(differences[:3])
    seen = {name for name, _ in checked}
    assert MUST_BE_CHECKED | REQUESTS_MUST_BE_CHECKED <= seen, (MUST_BE_CHECKED | REQUESTS_MUST_BE_CHECKED) - seen
