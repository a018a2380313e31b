"""Faults: DynamoDB throttling, unavailability and transaction conflicts (injected into this
process's DynamoDB client), a stream batch failing midway, webhook receivers that are slow,
failing, gone or hang up, upload notices redelivered or failing midway, and `make serve`
killed while it writes.

Faults are injected with botocore's `before-call` event on pynamodb's client: a matching
call is answered with the error instead of being sent (botocore's own retries never see
it), so "the next N calls of this operation that mention X fail" is exact."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from botocore.awsrequest import AWSResponse
from botocore.exceptions import EndpointConnectionError

from chalicelib import clock, config
from tests import serve_process
from tests.client import Answer, Api, Tenant
from tests.eventually import eventually
from tests.receiver import Receiver
from tests.uploads import ZIP_CLAIMING_MILLIONS, pdf, post_file

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "application/problem+json"

# --- the injector -------------------------------------------------------------------


Respond = Callable[[dict[str, Any]], tuple[AWSResponse, dict[str, Any]]]


def aws_error(code: str, status: int = 400, *, reasons: list[str] | None = None) -> Respond:
    """An error answer as DynamoDB gives it; `reasons` the cancellation reasons of a
    TransactWriteItems (one per item, "None" for the rest)."""

    def respond(body: dict[str, Any]) -> tuple[AWSResponse, dict[str, Any]]:
        parsed: dict[str, Any] = {
            "Error": {"Code": code, "Message": f"injected {code}"},
            "ResponseMetadata": {"HTTPStatusCode": status, "HTTPHeaders": {}},
        }
        if reasons is not None:
            count = len(body.get("TransactItems") or [])
            parsed["CancellationReasons"] = [{"Code": reasons[i] if i < len(reasons) else "None"} for i in range(count)]
        return AWSResponse("https://dynamodb.faults.invalid/", status, {}, None), parsed

    return respond


def connection_refused(body: dict[str, Any]) -> tuple[AWSResponse, dict[str, Any]]:
    raise EndpointConnectionError(endpoint_url="http://127.0.0.1:9/")


THROTTLED = aws_error("ProvisionedThroughputExceededException")
CONFLICT = aws_error("TransactionCanceledException", reasons=["TransactionConflict"])


@dataclass
class Rule:
    operation: str
    respond: Respond
    where: Callable[[str], bool]
    left: int
    hits: int = 0


class Faults:
    """Makes DynamoDB calls of this process fail (the app's threads and the stream, queue
    and webhook workers share pynamodb's client): `fail` the next `times` calls of an
    operation whose request mentions every one of `mentions`."""

    def __init__(self) -> None:
        from chalicelib.store.model import Item

        self.client = Item._get_connection().connection.client
        self.rules: list[Rule] = []
        self.lock = threading.Lock()
        self.client.meta.events.register("before-call.dynamodb", self._before_call, unique_id="pm-test-faults")

    def fail(self, operation: str, respond: Respond, *mentions: str, times: int = 1) -> Rule:
        rule = Rule(operation, respond, lambda text: all(m in text for m in mentions), times)
        with self.lock:
            self.rules.append(rule)
        return rule

    def _before_call(self, model: Any, params: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]] | None:
        raw = params.get("body") or b"{}"
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        with self.lock:
            rule = next((r for r in self.rules if r.operation == model.name and r.left > 0 and r.where(text)), None)
            if rule is None:
                return None
            rule.left -= 1
            rule.hits += 1
        return rule.respond(json.loads(text))

    def close(self) -> None:
        self.client.meta.events.unregister("before-call.dynamodb", unique_id="pm-test-faults")


@pytest.fixture()
def faults() -> Iterator[Faults]:
    injector = Faults()
    yield injector
    injector.close()


def refused(answer: Answer, status: int, code: str, retry_after: str) -> None:
    assert answer.status == status, (answer.status, answer.body)
    assert answer.content_type.startswith(PROBLEM) and answer.body["code"] == code, answer.body
    assert answer.headers.get("retry-after") == retry_after, answer.headers
    assert "Traceback" not in answer.raw.decode()


def ctx_of(tenant: Tenant) -> Any:
    from chalicelib.context import CallContext

    return CallContext(tenant_id=tenant.id, key_id="", agent_name="test", scopes=frozenset())


def contacts_named(tenant: Tenant, last_name: str) -> list[dict[str, Any]]:
    listed = tenant.get("contacts", {"limit": 1000, "offset": 0})["contacts"]
    return [c for c in listed if c.get("lastName") == last_name]


# --- 1. DynamoDB faults through the API ------------------------------------------------


@pytest.mark.parametrize(
    "code", ["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"]
)
def test_a_throttled_put_answers_429_writes_nothing_and_the_retry_stores_one(
    tenant: Tenant, faults: Faults, code: str
) -> None:
    name = f"Gedrosselt-{code[:8]}"
    rule = faults.fail("PutItem", aws_error(code), tenant.id, name)
    idem = {"Idempotency-Key": uuid.uuid4().hex}
    body = {"contact": {"personType": "natural", "lastName": name}}
    refused(tenant.command("contacts.create", body, headers=idem), 429, "throttled", "1")
    assert rule.hits == 1 and contacts_named(tenant, name) == []
    first = tenant.command("contacts.create", body, headers=idem)
    again = tenant.command("contacts.create", body, headers=idem)
    assert first.status == again.status == 200 and again.headers.get("idempotent-replayed") == "true"
    assert again.body["contact"]["id"] == first.body["contact"]["id"]
    assert [c["id"] for c in contacts_named(tenant, name)] == [first.body["contact"]["id"]]


@pytest.mark.parametrize(
    "respond",
    [THROTTLED, aws_error("TransactionCanceledException", reasons=["None", "ThrottlingError"])],
    ids=["throughput-exceeded", "cancelled-for-throttling"],
)
def test_a_throttled_transaction_writes_none_of_its_items(tenant: Tenant, faults: Faults, respond: Respond) -> None:
    from chalicelib.store import refs

    obj = tenant.ok("objects.create", {"object": {"name": "Drosselweg 1", "type": "weg"}})["object"]
    # the unit, its edge, the check on the object; the unit's number too: the object's own change
    # feed transaction (stream handler, issue 33) names the tenant and the object as well
    rule = faults.fail("TransactWriteItems", respond, tenant.id, obj["id"], "0.01")
    idem = {"Idempotency-Key": uuid.uuid4().hex}
    body = {"unit": {"objectId": obj["id"], "number": "0.01", "type": "apartment"}}
    refused(tenant.command("units.create", body, headers=idem), 429, "throttled", "1")
    assert rule.hits == 1
    assert tenant.get("units", {"limit": 10, "offset": 0})["pagination"]["total"] == 0
    assert refs.inbound(ctx_of(tenant), obj["id"]) == []  # no reference edge without its unit
    unit = tenant.ok("units.create", body, headers=idem)["unit"]
    assert tenant.ok("units.create", body, headers=idem)["unit"]["id"] == unit["id"]
    assert tenant.get("units", {"limit": 10, "offset": 0})["pagination"]["total"] == 1
    assert [e["id"] for e in refs.inbound(ctx_of(tenant), obj["id"])] == [unit["id"]]


def test_a_transaction_conflict_answers_503_writes_nothing_and_the_retry_applies_once(
    tenant: Tenant, faults: Faults
) -> None:
    person = tenant.contact(lastName="Konflikt")
    rule = faults.fail("TransactWriteItems", CONFLICT, tenant.id, person["id"], "konflikt-1")
    idem = {"Idempotency-Key": uuid.uuid4().hex}
    body = {"entries": [{"alias": "konflikt-1", "id": person["id"], "type": "contact"}]}
    answer = tenant.command("aliases.upsert", body, headers=idem)
    refused(answer, 503, "transaction_conflict", "1")
    assert rule.hits == 1
    assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["aliases"] == []
    assert tenant.query("contacts.show", {"contact": "konflikt-1"}).status == 404  # no alias item either
    assert tenant.command("aliases.upsert", body, headers=idem).status == 200
    assert tenant.command("aliases.upsert", body, headers=idem).headers.get("idempotent-replayed") == "true"
    assert tenant.get("contacts.show", {"contact": "konflikt-1"})["contact"]["aliases"] == ["konflikt-1"]


def test_a_condition_that_fails_beside_a_conflict_still_answers_409(tenant: Tenant, faults: Faults) -> None:
    """A refused condition is about the data: it wins over a conflict on another item."""
    person = tenant.contact(lastName="Zwei Gründe")
    faults.fail(
        "TransactWriteItems",
        aws_error("TransactionCanceledException", reasons=["ConditionalCheckFailed", "TransactionConflict"]),
        person["id"],
        "zwei-gruende",  # the upsert's own, not the stream handler's writes about the new contact
    )
    answer = tenant.command(
        "aliases.upsert", {"entries": [{"alias": "zwei-gruende", "id": person["id"], "type": "contact"}]}
    )
    assert answer.status == 409 and answer.body["code"] == "alias_taken" and "retry-after" not in answer.headers


def test_throttled_reads_answer_429(tenant: Tenant, faults: Faults) -> None:
    person = tenant.contact(lastName="Lesen")
    faults.fail("GetItem", THROTTLED, tenant.id, person["id"])
    refused(tenant.query("contacts.show", {"contact": person["id"]}), 429, "throttled", "1")
    faults.fail("Query", aws_error("ThrottlingException"), tenant.id, "#contact")
    refused(tenant.query("contacts", {"limit": 10, "offset": 0}), 429, "throttled", "1")
    faults.fail("GetItem", THROTTLED, tenant.id, person["id"])  # the read before an update
    refused(
        tenant.command("contacts.update", {"contact": {"id": person["id"], "lastName": "Nie"}}), 429, "throttled", "1"
    )
    shown = tenant.get("contacts.show", {"contact": person["id"]})["contact"]
    assert shown["lastName"] == "Lesen" and shown["version"] == 1


def test_the_console_renders_the_same_translation_as_a_page(tenant: Tenant, faults: Faults) -> None:
    """Throttled or unavailable reads reach a person as the REST and MCP faces answer them (one
    translation, faults.as_api_error): 429 and 503 with Retry-After, in words, never a 500."""
    from tests.console_client import owner_of

    person = tenant.contact(lastName="Seite")
    owner = owner_of(tenant)
    owner.lang = "de-DE"
    faults.fail("GetItem", THROTTLED, tenant.id, person["id"])
    page = owner.get(f"/data/contacts/{person['id']}")
    assert page.status == 429 and page.headers.get("retry-after") == "1", page.status
    assert "Zu viele Anfragen" in page.text() and "Traceback" not in page.html
    faults.fail("GetItem", aws_error("InternalServerError", 500), tenant.id, person["id"])
    page = owner.get(f"/data/contacts/{person['id']}")
    assert page.status == 503 and page.headers.get("retry-after") == "5", page.status
    assert "nicht erreichbar" in page.text()
    assert owner.get(f"/data/contacts/{person['id']}").status == 200


def test_dynamodb_unavailable_answers_503_and_changes_nothing(tenant: Tenant, faults: Faults) -> None:
    person = tenant.contact(lastName="Erreichbar")
    faults.fail("UpdateItem", aws_error("InternalServerError", 500), tenant.id, person["id"])
    answer = tenant.command("contacts.update", {"contact": {"id": person["id"], "lastName": "Nie"}})
    refused(answer, 503, "unavailable", "5")
    faults.fail("GetItem", connection_refused, tenant.id, person["id"])
    refused(tenant.query("contacts.show", {"contact": person["id"]}), 503, "unavailable", "5")
    shown = tenant.get("contacts.show", {"contact": person["id"]})["contact"]
    assert shown["lastName"] == "Erreichbar" and shown["version"] == 1
    assert (
        tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Später"}})["contact"]["version"] == 2
    )


def test_a_throttled_idempotency_claim_answers_429_and_runs_nothing(tenant: Tenant, faults: Faults) -> None:
    faults.fail("PutItem", THROTTLED, tenant.id, '"idempotency"')
    idem = {"Idempotency-Key": uuid.uuid4().hex}
    body = {"contact": {"personType": "natural", "lastName": "Schlüssel"}}
    refused(tenant.command("contacts.create", body, headers=idem), 429, "throttled", "1")
    assert contacts_named(tenant, "Schlüssel") == []
    assert tenant.command("contacts.create", body, headers=idem).status == 200
    assert len(contacts_named(tenant, "Schlüssel")) == 1


def test_a_done_command_whose_idempotent_answer_cannot_be_stored_still_answers_200(
    tenant: Tenant, faults: Faults
) -> None:
    """The write happened: its answer goes out. The key stays claimed rather than running the
    command twice: a repeat is told to retry shortly while the claim could still be running,
    and after that that the outcome is unknown (check, then use a new key)."""
    faults.fail("PutItem", THROTTLED, tenant.id, '"idempotency"', '"done"')
    idem = {"Idempotency-Key": uuid.uuid4().hex}
    body = {"contact": {"personType": "natural", "lastName": "Ohne Quittung"}}
    assert tenant.command("contacts.create", body, headers=idem).status == 200
    repeat = tenant.command("contacts.create", body, headers=idem)
    assert repeat.status == 409 and repeat.body["code"] == "idempotency_in_progress", repeat.body
    assert 1 <= int(repeat.headers["retry-after"]) <= config.IDEMPOTENCY_RUNNING_SECONDS
    later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=config.IDEMPOTENCY_RUNNING_SECONDS + 1)
    clock.set_clock(lambda: later)
    try:
        unknown = tenant.command("contacts.create", body, headers=idem)
        assert unknown.status == 409 and unknown.body["code"] == "idempotency_outcome_unknown", unknown.body
        assert "new Idempotency-Key" in unknown.body["detail"] and "retry-after" not in unknown.headers
    finally:
        clock.set_clock(None)
    assert len(contacts_named(tenant, "Ohne Quittung")) == 1


def test_an_mcp_tool_under_throttling_reports_429_to_the_agent(api: Api, tenant: Tenant, faults: Faults) -> None:
    from tests.mcp_client import McpSession

    faults.fail("PutItem", THROTTLED, tenant.id, "Agentisch")
    with McpSession(api.base, tenant.key) as mcp:
        result = mcp.execute("contacts.create", {"contact": {"personType": "natural", "lastName": "Agentisch"}})
    assert result.is_error and result.structured_content is not None
    assert (
        result.structured_content["error"]["status"] == 429
        and result.structured_content["error"]["code"] == "throttled"
    )
    assert contacts_named(tenant, "Agentisch") == []


# --- 2. the stream handler failing midway ----------------------------------------------


def _stream_records(tenant: Tenant, entity_id: str, count: int) -> list[dict[str, Any]]:
    """`count` stream records of one contact (created, then updated), as Lambda hands them."""
    from boto3.dynamodb.types import TypeSerializer

    typed = TypeSerializer()
    base = int(time.time() * 1000)
    sequence = 10**20 + uuid.uuid4().int % 10**18 * 100
    records, previous = [], None
    for n in range(count):
        at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime((base + n) / 1000)) + f".{(base + n) % 1000:03d}Z"
        image = {
            "PK": f"{tenant.id}#{entity_id}",
            "SK": "entity",
            "type": "contact",
            "tenantId": tenant.id,
            "id": entity_id,
            "data": {"personType": "natural", "lastName": f"Stand {n}"},
            "version": n + 1,
            "createdAt": at if previous is None else previous["createdAt"],
            "updatedAt": at,
            "changedBy": {
                "keyId": "key_test",
                "agentName": "stream-test",
                "operation": "contacts.update" if n else "contacts.create",
            },
        }
        stream: dict[str, Any] = {
            "Keys": {"PK": typed.serialize(image["PK"]), "SK": typed.serialize("entity")},
            "NewImage": {k: typed.serialize(v) for k, v in image.items()},
            "SequenceNumber": str(sequence + n),
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        }
        if previous is not None:
            stream["OldImage"] = {k: typed.serialize(v) for k, v in previous.items()}
        records.append(
            {
                "eventID": uuid.uuid4().hex,
                "eventName": "MODIFY" if previous else "INSERT",
                "eventSource": "aws:dynamodb",
                "dynamodb": stream,
            }
        )
        previous = image
    return records


def _ids_of(records: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

    from chalicelib.events import deliveries
    from chalicelib.events.changes import from_record

    changes = [from_record(DynamoDBRecord(r)) for r in records]
    audit_ids = [c.audit_id for c in changes if c is not None]
    return audit_ids, [deliveries.event_id(c) for c in changes if c is not None]


@pytest.mark.parametrize("failing", ["audit", "delivery"])
def test_a_stream_batch_failing_at_record_k_is_redelivered_without_loss_or_duplicates(
    tenant: Tenant, faults: Faults, receiver: Receiver, stack: Any, failing: str
) -> None:
    from chalicelib import ids
    from chalicelib.events.stream import handle_event

    tenant.ok(
        "webhooks.create", {"name": "stream", "url": receiver.url, "events": ["contact.created", "contact.updated"]}
    )
    assert stack.poller.wait_idle(15)
    entity_id = ids.new_id("con")
    records = _stream_records(tenant, entity_id, 5)
    audit_ids, event_ids = _ids_of(records)
    k = 2
    if failing == "audit":  # the batch's audit and feed write (one TransactWriteItems: one tenant) fails
        rule = faults.fail("TransactWriteItems", THROTTLED, audit_ids[k])
    else:  # record k's delivery cannot be written
        rule = faults.fail("PutItem", THROTTLED, f"delivery#{event_ids[k]}")
    answer = handle_event({"Records": records})
    reported = [f["itemIdentifier"] for f in answer["batchItemFailures"]]
    sequences = [r["dynamodb"]["SequenceNumber"] for r in records]
    assert rule.hits == 1
    # the audit records and feed entries go out as one write: all of the batch comes again; a delivery fails
    # alone: the stream resumes at it, so it and everything after it are reported
    assert reported == (sequences if failing == "audit" else sequences[k:])
    first = sequences.index(reported[0])
    assert handle_event({"Records": records[first:]}) == {"batchItemFailures": []}  # Lambda redelivers from there

    trail = tenant.get("audit.list", {"entityId": entity_id, "limit": 100, "offset": 0})
    assert [r["id"] for r in trail["auditRecords"]] == audit_ids  # one per change: none lost, none twice
    assert [r["action"] for r in trail["auditRecords"]] == ["created"] + ["updated"] * 4
    got = receiver.wait_for(5)
    time.sleep(0.3)  # that no event comes twice is tested: a duplicate would have by now
    assert [r.event["id"] for r in receiver.delivered()] == event_ids  # each once, in stream order
    assert [r.event["data"]["lastName"] for r in got] == [f"Stand {n}" for n in range(5)]


# --- 3. webhook receivers: slow, failing, gone, hanging up -------------------------------


def _deliveries(tenant: Tenant, hook: dict[str, Any]) -> list[dict[str, Any]]:
    return list(
        tenant.get("webhooks.deliveries.list", {"webhook": hook["id"], "limit": 100, "offset": 0})["deliveries"]
    )


@pytest.mark.quiet
def test_slow_failing_gone_and_hanging_up_receivers_do_not_affect_each_other(
    tenant: Tenant, stack: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chalicelib.events import sender

    # The others must have had the event before the slow receiver's first attempt timed out: the
    # timeout leaves room for a slow machine's claims of the other four deliveries (moto, ~5 calls each).
    monkeypatch.setattr(sender, "TIMEOUT_SECONDS", 6.0)
    receivers = {
        "slow": Receiver(slow_first=1, delay=7.0),  # answers after the sender gave up
        "flaky": Receiver(fail_first=1, fail_status=500),
        "gone": Receiver(always=410),
        "hangs-up": Receiver(drop_first=2),
        "healthy": Receiver(),
    }
    hooks = {}
    try:
        for name, rec in receivers.items():
            rec.start()
            hooks[name] = tenant.ok(
                "webhooks.create", {"name": name, "url": rec.url, "events": ["contact.created", "contact.updated"]}
            )["webhook"]
        assert stack.poller.wait_idle(15)
        person = tenant.contact(lastName="Empfang")
        eventually(
            lambda: (
                all(d["status"] != "pending" for h in hooks.values() for d in _deliveries(tenant, h))
                and len(receivers["healthy"].delivered()) == 1
            ),
            timeout=15,
            message="every delivery settled",
        )
        # a slow receiver holds up nobody: the others had the event before its first attempt timed out
        slow_gave_up = receivers["slow"].requests[0].at + sender.TIMEOUT_SECONDS
        assert all(receivers[name].requests[0].at < slow_gave_up for name in ("flaky", "gone", "hangs-up", "healthy"))
        logs = {name: _deliveries(tenant, hook) for name, hook in hooks.items()}
        assert {
            name: [(d["status"], d["attempts"], d["lastStatusCode"]) for d in log] for name, log in logs.items()
        } == {
            "slow": [("delivered", 2, 200)],  # timed out once, then answered
            "flaky": [("delivered", 2, 200)],
            "gone": [("failed", 1, 410)],
            "hangs-up": [("delivered", 3, 200)],
            "healthy": [("delivered", 1, 200)],
        }
        event_id = logs["healthy"][0]["id"]
        for name, rec in receivers.items():  # every attempt carried the same id: the receiver's deduplication key
            assert {r.headers["webhook-id"] for r in rec.requests} == {event_id}, name
        assert len(receivers["slow"].requests) == 2 and len(receivers["hangs-up"].requests) == 3
        gone = tenant.get("webhooks.show", {"webhook": hooks["gone"]["id"]})["webhook"]
        assert gone["enabled"] is False and "410" in gone["disabledReason"]

        assert stack.poller.wait_idle(15)  # the disabling reached the stream handler
        tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Danach"}})
        for name in ("slow", "flaky", "hangs-up", "healthy"):
            receivers[name].wait_for(2 if name != "slow" else 3)
        time.sleep(0.3)  # that nothing more goes to the disabled webhook is tested: it would have by now
        assert (
            len(receivers["gone"].requests) == 1 and len(_deliveries(tenant, hooks["gone"])) == 1
        )  # stopped: nothing more goes there
    finally:
        for rec in receivers.values():
            rec.stop()


@pytest.fixture()
def paused_deliveries(stack: Any) -> Iterator[None]:
    """The test takes the delivery queue's messages itself, as Lambda would hand them over."""
    from chalicelib.local import queue_poller

    stack.deliveries.stop()
    stack.deliveries.join(timeout=15)
    try:
        yield
    finally:
        stack.deliveries = queue_poller.for_deliveries()
        stack.deliveries.start()


def _delivery_records(tenant: Tenant, count: int) -> list[dict[str, Any]]:
    """Receive the tenant's next `count` delivery messages in Lambda's record shape (a FIFO
    queue hands out one group's messages together only while none of them is in flight: keep
    receiving). Other tests' messages stay in flight while the search goes on (handed back at
    once, they would come first again and again), then go back."""
    import boto3

    sqs, url = boto3.client("sqs"), os.environ["PM_DELIVERY_QUEUE_URL"]
    mine: list[dict[str, Any]] = []
    others: list[str] = []

    def received_all() -> bool:
        answer = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1, MessageSystemAttributeNames=["All"]
        )
        for message in answer.get("Messages") or []:
            if json.loads(message["Body"])["tenantId"] == tenant.id:
                mine.append(message)
            else:
                others.append(message["ReceiptHandle"])
        assert len(mine) >= count, f"{len(mine)} of {count} messages received"
        return True

    try:
        eventually(received_all, timeout=15, message=f"{count} delivery messages of the tenant")
    finally:
        for handle in others:
            sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=handle, VisibilityTimeout=0)
    assert len(mine) == count, len(mine)
    return [_sqs_record(m, m["MessageId"]) for m in mine]


def _received(receiver: Receiver, tenant: Tenant) -> list[dict[str, Any]]:
    """What reached the receiver from this tenant (a port of an earlier test's receiver can
    be this one's now, and that test's retries can still come)."""
    return [r.event for r in list(receiver.requests) if r.event["tenantId"] == tenant.id]


def _settle_as_lambda(answer: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """What Lambda does with the answer: deletes every message not reported."""
    import boto3

    kept = {f["itemIdentifier"] for f in answer["batchItemFailures"]}
    done = [
        {"Id": str(n), "ReceiptHandle": r["receiptHandle"]} for n, r in enumerate(records) if r["messageId"] not in kept
    ]
    if done:
        boto3.client("sqs").delete_message_batch(QueueUrl=os.environ["PM_DELIVERY_QUEUE_URL"], Entries=done)


def test_a_delivery_batch_crashing_midway_and_redelivered_whole_loses_nothing_and_keeps_order(
    tenant: Tenant, faults: Faults, receiver: Receiver, stack: Any, paused_deliveries: None
) -> None:
    """Lambda hands the worker a batch; one delivery's state cannot be read (throttled): the
    worker reports it and its group's later message, and delivers the rest. Then the same
    batch comes again whole (an invocation that died before Lambda deleted anything): the
    settled ones are dropped, the rest delivered, each event id once, in order per entity."""
    from chalicelib.events.delivery_worker import handle_event

    tenant.ok(
        "webhooks.create", {"name": "worker", "url": receiver.url, "events": ["contact.created", "contact.updated"]}
    )
    assert stack.poller.wait_idle(15)
    people = [tenant.contact(lastName=f"Person {n}") for n in range(3)]
    tenant.ok("contacts.update", {"contact": {"id": people[0]["id"], "lastName": "Person 0, changed"}})
    assert stack.poller.wait_idle(15)
    records = _delivery_records(tenant, 4)
    event_of = {r["messageId"]: json.loads(r["body"])["eventId"] for r in records}
    first = event_of[records[0]["messageId"]]  # person 0's creation; its update waits behind it
    rule = faults.fail("GetItem", THROTTLED, f"delivery#{first}")
    answer = handle_event({"Records": records})
    assert rule.hits == 1
    kept = [event_of[f["itemIdentifier"]] for f in answer["batchItemFailures"]]
    entity_of = {r["messageId"]: json.loads(r["body"])["entityKey"] for r in records}
    update = next(r for r in records[1:] if entity_of[r["messageId"]] == entity_of[records[0]["messageId"]])
    assert kept == [first, event_of[update["messageId"]]]  # the failed one and its group's later one
    assert sorted(e["data"]["lastName"] for e in _received(receiver, tenant)) == ["Person 1", "Person 2"]

    assert handle_event({"Records": records}) == {"batchItemFailures": []}  # redelivered whole
    _settle_as_lambda({"batchItemFailures": []}, records)
    time.sleep(0.3)  # that each event id arrives once is tested: a late duplicate would have by now
    got = _received(receiver, tenant)
    assert len(got) == 4 and len({e["id"] for e in got}) == 4  # each event id once
    person0 = [e["data"]["lastName"] for e in got if e["data"]["id"] == people[0]["id"]]
    assert person0 == ["Person 0", "Person 0, changed"]  # in order


def test_a_redelivered_delivery_message_is_not_sent_twice(
    tenant: Tenant, receiver: Receiver, stack: Any, paused_deliveries: None
) -> None:
    from chalicelib.events.delivery_worker import handle_event

    tenant.ok("webhooks.create", {"name": "twice", "url": receiver.url, "events": ["contact.created"]})
    assert stack.poller.wait_idle(15)
    tenant.contact(lastName="Einmal")
    assert stack.poller.wait_idle(15)
    records = _delivery_records(tenant, 1)
    assert handle_event({"Records": records}) == {"batchItemFailures": []}
    assert handle_event({"Records": records}) == {"batchItemFailures": []}  # SQS delivered it again
    _settle_as_lambda({"batchItemFailures": []}, records)
    assert len(_received(receiver, tenant)) == 1


# --- 4. upload notices: redelivered and failing midway -----------------------------------


@pytest.fixture()
def paused_uploads(stack: Any) -> Iterator[None]:
    """The test takes the upload queue's messages itself, as Lambda would hand them over."""
    from chalicelib.local import queue_poller

    stack.uploads.stop()
    stack.uploads.join(timeout=15)
    try:
        yield
    finally:
        stack.uploads = queue_poller.for_uploads()
        stack.uploads.start()


def _notices(batch_id: str, count: int) -> list[dict[str, Any]]:
    import boto3

    sqs, url = boto3.client("sqs"), os.environ["PM_UPLOAD_QUEUE_URL"]
    found: dict[str, dict[str, Any]] = {}

    def arrived() -> bool:
        for message in (
            sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages") or []
        ):
            if batch_id in message["Body"]:
                found[message["MessageId"]] = message
        assert len(found) >= count, f"{len(found)} of {count} notices arrived"
        return True

    eventually(arrived, timeout=20, message=f"{count} upload notices of batch {batch_id}")
    assert len(found) == count, f"{len(found)} of {count} notices arrived"
    return list(found.values())


def _sqs_record(message: dict[str, Any], message_id: str | None = None) -> dict[str, Any]:
    """The message as Lambda's SQS event source hands it over (its system attributes too)."""
    return {
        "messageId": message_id or message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": message.get("Attributes") or {"ApproximateReceiveCount": "1"},
        "eventSource": "aws:sqs",
    }


def test_an_upload_batch_failing_midway_retries_only_the_failed_message_and_registers_each_once(
    tenant: Tenant, faults: Faults, paused_uploads: None, stack: Any
) -> None:
    import boto3

    from chalicelib.uploads.register import handle_event

    obj = tenant.ok("objects.create", {"object": {"name": "Postfach 4", "type": "weg"}})["object"]
    contents = [pdf(f"sqs-{n}") for n in range(4)]
    requests = [
        {"locationId": obj["id"], "fileName": f"b{n}.pdf", "contentType": "application/pdf", "size": len(c)}
        for n, c in enumerate(contents)
    ]
    created = tenant.ok("documents.uploads.create", {"uploads": requests})
    uploads, batch_id = created["uploads"], created["batch"]["id"]
    for upload, content in zip(uploads, contents, strict=True):
        assert post_file(upload, content) in (200, 204)
    messages = sorted(
        _notices(batch_id, 4), key=lambda m: next(n for n, u in enumerate(uploads) if u["documentId"] in m["Body"])
    )
    doc_ids = [u["documentId"] for u in uploads]

    rule = faults.fail("TransactWriteItems", THROTTLED, doc_ids[2])  # registering the third file fails
    duplicate = _sqs_record(messages[0], "dup-" + messages[0]["MessageId"])  # S3 delivered the first notice twice
    records = [_sqs_record(m) for m in messages] + [duplicate]
    answer = handle_event({"Records": records})
    assert rule.hits == 1
    assert answer == {"batchItemFailures": [{"itemIdentifier": messages[2]["MessageId"]}]}
    progress = tenant.get("documents.uploads.progress", {"batch": batch_id, "limit": 10, "offset": 0})["batch"][
        "counts"
    ]
    assert progress["registered"] == 3 and progress["pending"] == 1

    again = handle_event(
        {"Records": [_sqs_record(messages[2]), _sqs_record(messages[0])]}
    )  # the failed one comes back, the first once more
    assert again == {"batchItemFailures": []}
    boto3.client("sqs").delete_message_batch(
        QueueUrl=os.environ["PM_UPLOAD_QUEUE_URL"],
        Entries=[{"Id": str(n), "ReceiptHandle": m["ReceiptHandle"]} for n, m in enumerate(messages)],
    )
    listed = tenant.get("documents.list", {"locationId": obj["id"], "limit": 100, "offset": 0})
    assert sorted(d["id"] for d in listed["documents"]) == sorted(doc_ids)
    assert stack.poller.wait_idle(15)
    for doc_id in doc_ids:
        trail = tenant.get("audit.list", {"entityId": doc_id, "limit": 10, "offset": 0})["auditRecords"]
        assert [r["action"] for r in trail] == ["created"], doc_id


def _reserve_and_post(tenant: Tenant, content: bytes, file_name: str, content_type: str) -> tuple[str, dict[str, Any]]:
    obj = tenant.ok("objects.create", {"object": {"name": "Postfach 7", "type": "weg"}})["object"]
    request = {"locationId": obj["id"], "fileName": file_name, "contentType": content_type, "size": len(content)}
    created = tenant.ok("documents.uploads.create", {"uploads": [request]})
    assert post_file(created["uploads"][0], content) in (200, 204)
    return created["batch"]["id"], created["uploads"][0]


def test_one_tenants_oversized_zip_is_refused_alone_and_another_tenants_pdf_in_the_batch_registers(
    tenant: Tenant, other_tenant: Tenant, paused_uploads: None
) -> None:
    """Issue 16, finding 2: one batch holds one tenant's crafted ZIP and another's PDF. The ZIP
    is refused before its directory is read, as that upload's failure (`archive_too_large`,
    the file removed); the PDF registers; no message of the batch comes back."""
    from chalicelib.uploads.register import handle_event
    from tests.uploads import object_exists

    bad_batch, bad = _reserve_and_post(tenant, ZIP_CLAIMING_MILLIONS, "archiv.zip", "application/zip")
    good_batch, good = _reserve_and_post(other_tenant, pdf("nachbar"), "nachbar.pdf", "application/pdf")
    messages = _notices(bad_batch, 1) + _notices(good_batch, 1)
    records = [_sqs_record(m) for m in messages]
    assert handle_event({"Records": records}) == {"batchItemFailures": []}
    _settle_uploads(records)
    (refused,) = tenant.get("documents.uploads.progress", {"batch": bad_batch, "limit": 10, "offset": 0})["uploads"]
    assert refused["status"] == "failed" and refused["failure"]["code"] == "archive_too_large", refused
    assert "3,000,000 entries" in refused["failure"]["reason"]
    assert not object_exists(bad["fields"]["key"])
    (registered,) = other_tenant.get("documents.uploads.progress", {"batch": good_batch, "limit": 10, "offset": 0})[
        "uploads"
    ]
    assert registered["status"] == "registered"
    assert (
        other_tenant.get("documents.show", {"document": good["documentId"]})["document"]["contentType"]
        == "application/pdf"
    )


@pytest.mark.slow
def test_reservations_that_cannot_be_read_together_are_read_per_notice(
    tenant: Tenant, faults: Faults, paused_uploads: None
) -> None:
    """The batch's one BatchGetItem failing is no reason to return the whole batch: each notice
    reads its own reservation and settles (or fails) alone."""
    from chalicelib.uploads.register import handle_event

    first_batch, _ = _reserve_and_post(tenant, pdf("eins"), "eins.pdf", "application/pdf")
    second_batch, _ = _reserve_and_post(tenant, pdf("zwei"), "zwei.pdf", "application/pdf")
    records = [_sqs_record(m) for m in _notices(first_batch, 1) + _notices(second_batch, 1)]
    rule = faults.fail("BatchGetItem", THROTTLED, first_batch)
    assert handle_event({"Records": records}) == {"batchItemFailures": []}
    _settle_uploads(records)
    assert rule.hits == 1
    for batch_id in (first_batch, second_batch):
        counts = tenant.get("documents.uploads.progress", {"batch": batch_id, "limit": 10, "offset": 0})["batch"][
            "counts"
        ]
        assert counts["registered"] == 1, counts


def test_every_file_a_batch_reads_is_removed_once_it_is_settled(
    tenant: Tenant, paused_uploads: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 16, finding 2: /tmp holds at most the batch's files (EphemeralStorage is sized for
    that), so each file's spooled copy goes once the file is settled, registered or refused."""
    import tempfile

    from chalicelib.uploads import files
    from chalicelib.uploads.register import handle_event

    spools: list[Any] = []

    class Recorded(tempfile.SpooledTemporaryFile):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            spools.append(self)

    obj = tenant.ok("objects.create", {"object": {"name": "Postfach 9", "type": "weg"}})["object"]
    large, short = pdf("gross") + b"%" * files.SPOOL_BYTES, pdf("kurz")  # the large one is spooled to /tmp
    sizes = [len(large), len(short) + 10, len(ZIP_CLAIMING_MILLIONS)]  # the short file is smaller than declared
    types = ["application/pdf", "application/pdf", "application/zip"]
    requests = [
        {"locationId": obj["id"], "fileName": f"f{n}", "contentType": t, "size": size}
        for n, (t, size) in enumerate(zip(types, sizes, strict=True))
    ]
    created = tenant.ok("documents.uploads.create", {"uploads": requests})
    for upload, content in zip(created["uploads"], [large, short, ZIP_CLAIMING_MILLIONS], strict=True):
        assert post_file(upload, content) in (200, 204)
    records = [_sqs_record(m) for m in _notices(created["batch"]["id"], 3)]
    # files.py's spools only: moto in this process spools the files it stores too
    monkeypatch.setattr(files, "tempfile", SimpleNamespace(SpooledTemporaryFile=Recorded))
    assert handle_event({"Records": records}) == {"batchItemFailures": []}
    monkeypatch.undo()
    _settle_uploads(records)
    progress = tenant.get("documents.uploads.progress", {"batch": created["batch"]["id"], "limit": 10, "offset": 0})[
        "uploads"
    ]
    assert [(u["status"], (u.get("failure") or {}).get("code")) for u in progress] == [
        ("registered", None),
        ("failed", "size_mismatch"),
        ("failed", "archive_too_large"),
    ]
    assert len(spools) == 3 and sum(spool._rolled for spool in spools) == 1
    assert all(spool.closed for spool in spools), [spool.closed for spool in spools]


def _settle_uploads(records: list[dict[str, Any]]) -> None:
    import boto3

    entries = [{"Id": str(n), "ReceiptHandle": r["receiptHandle"]} for n, r in enumerate(records)]
    boto3.client("sqs").delete_message_batch(QueueUrl=os.environ["PM_UPLOAD_QUEUE_URL"], Entries=entries)


# --- 5. `make serve` killed mid-write ------------------------------------------------------


@dataclass
class Acked:
    contact_id: str
    at: float  # when the last acknowledged write of it was answered
    alias: str | None = None
    last_name: str = ""


def _writer(tenant: Tenant, worker: int, acked: list[Acked], stop: threading.Event) -> None:
    """Create a contact, give it an alias (a transaction: alias item + the entity's alias
    set), rename it; remember what was acknowledged and when."""
    n = 0
    try:
        while not stop.is_set():
            n += 1
            created = tenant.command(
                "contacts.create", {"contact": {"personType": "natural", "lastName": f"W{worker}-{n}"}}
            )
            if created.status != 200:
                continue
            entry = Acked(created.body["contact"]["id"], time.time(), last_name=f"W{worker}-{n}")
            acked.append(entry)
            alias = f"w{worker}-{n}"
            if (
                tenant.command(
                    "aliases.upsert", {"entries": [{"alias": alias, "id": entry.contact_id, "type": "contact"}]}
                ).status
                == 200
            ):
                entry.alias, entry.at = alias, time.time()
            if (
                tenant.command(
                    "contacts.update", {"contact": {"id": entry.contact_id, "lastName": f"W{worker}-{n}-neu"}}
                ).status
                == 200
            ):
                entry.last_name, entry.at = f"W{worker}-{n}-neu", time.time()
    except Exception:  # noqa: BLE001 - the server is gone (refused, reset, cut off mid-answer)
        return


def _check_state_file(path: Path) -> dict[str, dict[str, Any]]:
    """The snapshot parses, and entities and aliases agree: every alias item names a live
    entity that lists it, every alias an entity lists has its alias item."""
    from boto3.dynamodb.types import TypeDeserializer

    plain = TypeDeserializer()
    state = json.loads(path.read_text())
    assert state["format"] == 1
    items = [{k: plain.deserialize(v) for k, v in item.items()} for item in state["items"]]
    entities = {i["PK"]: i for i in items if i["SK"] == "entity"}
    aliases = {i["PK"]: i for i in items if i["SK"] == "alias"}
    for pk, alias in aliases.items():
        tenant_id, _, integration, name = pk.split("#", 3)
        entity = entities.get(f"{tenant_id}#{alias['id']}")
        assert entity is not None and not entity.get("deletedAt"), f"dangling alias {pk}"
        assert name in (entity.get("aliases") or {}).get(integration, set()), f"{pk} not on its entity"
    for pk, entity in entities.items():
        tenant_id = pk.split("#", 1)[0]
        for integration, names in (entity.get("aliases") or {}).items():
            for name in names:
                assert f"{tenant_id}#alias#{integration}#{name}" in aliases, f"{pk} lists {name} without its alias item"
        if entity.get("type") == "contact" and not entity.get("deletedAt"):
            assert entity.get("gsi1pk") == f"{tenant_id}#contact", f"{pk} missing from its list index"
    return entities


@pytest.mark.slow
def test_serve_killed_mid_write_restarts_with_a_consistent_snapshot(tmp_path: Path) -> None:
    """The local stand-in keeps DynamoDB in memory and snapshots it to state.json (every 5 s
    when changed, and on shutdown). After SIGKILL it restarts from the last snapshot: every
    write acknowledged before that snapshot is there, writes of the last seconds are not
    (a property of the stand-in; DynamoDB itself keeps every acknowledged write), and what
    is there is consistent: the file is whole (written aside and renamed), no transaction
    is in it by half, no alias dangles."""
    from chalicelib.local.stack import free_port

    state_file = tmp_path / "state.json"
    port = free_port()
    # four writers would outrun a key's default limit: the serve process inherits the suite's
    # setting, which turns it off (tests/conftest.py)
    proc = serve_process.start(port, tmp_path, capture=False, POWERTOOLS_LOG_LEVEL="ERROR")
    acked: list[Acked] = []
    stop = threading.Event()
    try:
        tenant = Api(f"http://127.0.0.1:{port}", outbox_dir=str(tmp_path / "outbox")).signup(company="Absturz GmbH")
        started = time.time()
        workers = [threading.Thread(target=_writer, args=(tenant, n, acked, stop), daemon=True) for n in range(4)]
        for worker in workers:
            worker.start()
        # a snapshot taken while the writers run, then a little more writing, then the kill
        eventually(
            lambda: state_file.exists() and state_file.stat().st_mtime > started + 1 and len(acked) > 10,
            timeout=30,
            message="a snapshot while writing",
        )
        # writes after that snapshot are part of the scenario: the kill must lose only those (the next
        # snapshot is 5 s away)
        time.sleep(0.7)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        stop.set()
        if proc.poll() is None:
            proc.kill()
    for worker in workers:
        worker.join(timeout=35)
    snapshot_at = state_file.stat().st_mtime
    entities = _check_state_file(state_file)

    port = free_port()
    proc = serve_process.start(port, tmp_path, capture=False, POWERTOOLS_LOG_LEVEL="ERROR")
    try:
        tenant = Tenant(Api(f"http://127.0.0.1:{port}"), tenant.id, tenant.key, tenant.signup_answer)
        before_snapshot = [a for a in acked if a.at < snapshot_at - 1.0]
        assert before_snapshot, "no write was acknowledged before the snapshot"
        for entry in before_snapshot:  # acknowledged before the snapshot: restored, whole
            shown = tenant.get("contacts.show", {"contact": entry.contact_id})["contact"]
            assert shown["lastName"].startswith(entry.last_name)  # or a later write that was applied but never answered
            if entry.alias:
                assert shown["aliases"] == [entry.alias]
                assert tenant.get("contacts.show", {"contact": entry.alias})["contact"]["id"] == entry.contact_id
        restored = {pk.split("#", 1)[1] for pk, e in entities.items() if e.get("type") == "contact"}
        assert tenant.get("contacts", {"limit": 1000, "offset": 0})["pagination"]["total"] == len(restored)
        lost = [a for a in acked if a.contact_id not in restored]
        assert all(a.at > snapshot_at - 1.0 for a in lost)  # only what came after the last snapshot
        assert tenant.contact(lastName="Nach dem Neustart")["id"]  # and it takes writes again
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
