"""The change feed (changes.list, issue 33), over HTTP: while writers keep writing, a reader that
follows `next` sees every change exactly once, each entity's changes in order, with the ids of the
webhook events of the same changes; what a key may read bounds what it sees; cursors and `since`
are checked."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import threading
import time
from collections import defaultdict
from typing import Any

import pytest

from chalicelib import clock
from chalicelib.events import feed
from tests.client import Tenant
from tests.eventually import eventually
from tests.moments import clock_at
from tests.receiver import Receiver

WRITERS = 4
# Creates, updates and deletes of contacts, units and contracts, all writers together: the issue's
# 2,000 with PM_FEED_TEST_OPERATIONS=2000 (6.5 min here, passed 2026-11-27). The suite runs 200, five
# rounds per writer: what the test proves (every change once, each entity's in order, while the
# writers' changes interleave and the reader reads between them) needs the writers to interleave,
# which the test asserts, not a count; 800 took 3 min of a worker's share of `make test`.
OPERATIONS = int(os.environ.get("PM_FEED_TEST_OPERATIONS", "200"))
CYCLE = 10  # operations of one writer's round (below)
# The 500 changes during a receiver's outage with PM_RECOVER_TEST_CHANGES=500, which `make
# test-long` sets (the Makefile; the test alone took 40 s here, passed 2026-12-02; 2.5 min on
# 2026-11-27); run without it, 50: ten contacts of five versions each, more entity groups than the
# webhook's four attempts in flight (store/webhooks.MAX_IN_FLIGHT), so the redeliveries still contend
# for them and each contact's order still has to hold across groups sent in parallel. 200 took 2 min
# of a worker, most of it redeliveries waiting their turn (webhook_health's busy wait, in real seconds).
RECOVERED = int(os.environ.get("PM_RECOVER_TEST_CHANGES", "50"))
WRITTEN_TYPES = {"contact", "unit", "contract"}  # the object and the webhook made before may come later


def _since_now(seconds: float = -1.0) -> str:
    """A time `seconds` from now (a second ago by default: the test's own changes come after it)."""
    moment = time.time() + seconds
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(moment)) + f".{int(moment % 1 * 1000):03d}Z"


def _round(tenant: Tenant, object_id: str, writer: int, n: int) -> list[str]:
    """Ten changes: contact, unit and contract created, updated, then deleted; their event types."""
    contact = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": f"W{writer}-{n}"}})
    contact_id = contact["contact"]["id"]
    unit = {"objectId": object_id, "number": f"{writer}.{n}", "type": "apartment"}
    unit_id = tenant.ok("units.create", {"unit": unit})["unit"]["id"]
    contract = {
        "unitId": unit_id,
        "type": "lease",
        "startDate": "2024-01-01",
        "parties": [{"contactId": contact_id, "role": "tenant"}],
    }
    contract_id = tenant.ok("contracts.create", {"contract": contract})["contract"]["id"]
    tenant.ok("contacts.update", {"contact": {"id": contact_id, "firstName": "Erna"}})
    tenant.ok("units.update", {"unit": {"id": unit_id, "number": f"{writer}.{n}a"}})
    tenant.ok("contracts.update", {"contract": {"id": contract_id, "startDate": "2024-02-01"}})
    tenant.ok("contracts.delete", {"contract": contract_id})
    tenant.ok("units.delete", {"unit": unit_id})
    tenant.ok("contacts.update", {"contact": {"id": contact_id, "firstName": "Erwin"}})
    tenant.ok("contacts.delete", {"contact": contact_id})
    return [contact_id, unit_id, contract_id]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_reader_following_next_sees_every_change_once_in_order_while_four_writers_write(
    tenant: Tenant, receiver: Receiver
) -> None:
    tenant.ok("webhooks.create", {"name": "mirror", "url": receiver.url, "events": ["*"]})
    building = tenant.ok("objects.create", {"object": {"name": "Feedweg 1", "type": "weg"}})["object"]
    cursor = tenant.get("changes.list", {"limit": 1})["next"]  # from now on
    done = threading.Event()
    failures: list[BaseException] = []
    writer_of: dict[str, int] = {}  # entity id -> the writer that made it

    def write(writer: int) -> None:
        try:
            for n in range(OPERATIONS // WRITERS // CYCLE):
                writer_of.update(dict.fromkeys(_round(tenant, building["id"], writer, n), writer))
        except BaseException as err:  # noqa: BLE001 - reported by the test below
            failures.append(err)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(WRITERS)]
    for thread in threads:
        thread.start()
    seen: list[dict[str, Any]] = []
    pages = pages_while_writing = 0
    watcher = threading.Thread(target=lambda: ([t.join() for t in threads], done.set()))
    watcher.start()
    started = time.monotonic()
    while True:
        finished = done.is_set()
        answer = tenant.get("changes.list", {"after": cursor, "limit": 50})
        pages += 1
        assert len(answer["changes"]) <= 50
        seen += [c for c in answer["changes"] if c["entityType"] in WRITTEN_TYPES]
        cursor = answer["next"]
        if answer["changes"] and not finished:
            pages_while_writing += 1
        if finished and len(seen) >= OPERATIONS:
            break
        if not answer["changes"]:
            # Nothing new yet: the stream's next batch (or, once the writers are done, its last
            # records). Asking again at once only took the writers' share of the cores.
            time.sleep(0.05 if not finished else 0.2)
        assert pages < 5_000, f"{len(seen)} changes after {pages} pages"
    took = time.monotonic() - started
    print(f"{len(seen)} changes in {pages} pages ({pages_while_writing} while writing), {took:.1f} s")
    assert not failures, failures
    assert tenant.get("changes.list", {"after": cursor, "limit": 50})["changes"] == []

    ids = [change["id"] for change in seen]
    assert len(ids) == len(set(ids)) == OPERATIONS, (len(ids), len(set(ids)))
    by_entity: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for change in seen:
        by_entity[change["entityId"]].append(change)
    assert set(by_entity) == set(writer_of)
    # The writers' changes interleave on the feed (not one writer's after another's), and the
    # reader followed `next` while they wrote: the concurrency the test is about happened.
    writers = [writer_of[change["entityId"]] for change in seen]
    switches = sum(a != b for a, b in itertools.pairwise(writers))
    print(f"{switches} switches between writers")
    assert switches > 2 * WRITERS, f"the writers' changes barely interleave: {switches} switches"
    assert pages_while_writing >= 2, f"only {pages_while_writing} pages of changes were read while writing"
    for entity_id, changes in by_entity.items():
        versions = [c["data"]["version"] if c["data"] else None for c in changes]
        kinds = [c["type"].split(".")[1] for c in changes]
        assert kinds[0] == "created" and kinds[-1] == "deleted", (entity_id, kinds)
        assert [v for v in versions if v is not None] == sorted(v for v in versions if v is not None), (
            entity_id,
            versions,
        )
    delivered = eventually(lambda: set(ids) <= {r.event["id"] for r in receiver.delivered()}, timeout=300)
    assert delivered, "the webhook events of these changes carry other ids"


def test_since_starts_at_that_time_and_the_first_answer_carries_a_cursor(tenant: Tenant) -> None:
    before = _since_now()
    made = tenant.contact(lastName="Seit")
    listed = eventually(lambda: tenant.get("changes.list", {"since": before, "limit": 10})["changes"] or None)
    assert [(c["type"], c["entityId"]) for c in listed] == [("contact.created", made["id"])]
    assert listed[0]["actor"]["channel"] == "rest" and listed[0]["actor"]["agentName"]
    assert listed[0]["previous"] is None and "lastName" in listed[0]["changedFields"]
    later = tenant.get("changes.list", {"since": _since_now(0.5), "limit": 10})
    assert later["changes"] == [] and later["next"]


def test_a_key_sees_the_changes_of_what_it_may_read_and_never_the_accounts(tenant: Tenant) -> None:
    before = _since_now()
    contact = tenant.contact(lastName="Sichtbar")
    building = tenant.ok("objects.create", {"object": {"name": "Nur Objekte 2", "type": "weg"}})["object"]
    tenant.ok("apikeys.create", {"apiKey": {"agentName": "feed-reader", "scopes": ["read"]}})
    contacts_only = tenant.new_key(["read:contacts"])
    everything = eventually(
        lambda: (lambda c: c if len(c) >= 2 else None)(
            tenant.get("changes.list", {"since": before, "limit": 100})["changes"]
        )
    )
    assert {c["entityId"] for c in everything} == {contact["id"], building["id"]}  # no apiKey record
    mine = tenant.query("changes.list", {"since": before, "limit": 100}, key=contacts_only).body["changes"]
    assert [c["entityId"] for c in mine] == [contact["id"]]
    typed = tenant.get("changes.list", {"since": before, "limit": 100, "entityTypes": ["object"]})["changes"]
    assert [c["entityId"] for c in typed] == [building["id"]]


def test_cursors_and_since_are_checked(tenant: Tenant) -> None:
    forged = tenant.query("changes.list", {"after": "12", "limit": 10})
    assert (forged.status, forged.body["code"]) == (400, "invalid_cursor")
    old = tenant.query("changes.list", {"since": "2020-01-01T00:00:00Z", "limit": 10})
    assert (old.status, old.body["code"]) == (400, "since_out_of_retention")
    cursor = tenant.get("changes.list", {"limit": 1})["next"]
    both = tenant.query("changes.list", {"after": cursor, "since": _since_now(), "limit": 10})
    assert both.status == 400 and both.body["errors"][0]["path"] == "since"


def test_the_feeds_window_is_30_days_to_the_millisecond_at_a_set_clock(tenant: Tenant) -> None:
    moment = (clock.now() + dt.timedelta(days=5)).replace(microsecond=0)  # frozen: within the key and the trial
    edge = moment - dt.timedelta(days=feed.RETENTION_DAYS)
    with clock_at(moment):
        inside = tenant.query("changes.list", {"since": clock.iso(edge), "limit": 1})
        outside = tenant.query("changes.list", {"since": clock.iso(edge - dt.timedelta(milliseconds=1)), "limit": 1})
    assert inside.status == 200, inside.body
    assert (outside.status, outside.body["code"]) == (400, "since_out_of_retention")


@pytest.mark.parametrize("plural", ["contacts", "units", "contracts"])
def test_updated_since_lists_only_what_changed_at_or_after_it_with_exact_totals(tenant: Tenant, plural: str) -> None:
    """Every list query takes updatedSince (issue 33): the entities whose last change is at or after
    it, by that change, from an index (gsi5); a deleted one is not listed."""
    made = [_contract_chain(tenant) for _ in range(3)]
    singular = plural.removesuffix("s")
    time.sleep(0.01)
    since = _since_now(0.0)
    time.sleep(0.01)
    later = [_contract_chain(tenant) for _ in range(2)]
    touched = made[1]
    changes = {
        "contact": {"id": touched["contact"], "firstName": "Neu"},
        "unit": {"id": touched["unit"], "number": "9.99"},
        "contract": {"id": touched["contract"], "startDate": "2025-01-01"},
    }
    tenant.ok(f"{plural}.update", {singular: changes[singular]})
    if singular != "contract":  # what is referenced goes after what refers to it
        tenant.ok("contracts.delete", {"contract": later[0]["contract"]})
    tenant.ok(f"{plural}.delete", {singular: later[0][singular]})
    listed = tenant.get(plural, {"updatedSince": since, "limit": 10, "offset": 0})
    expected = [later[1][singular], touched[singular]]  # by their last change
    assert [e["id"] for e in listed[plural]] == expected, listed
    assert listed["pagination"]["total"] == 2
    page = tenant.get(plural, {"updatedSince": since, "limit": 1, "offset": 1})
    assert [e["id"] for e in page[plural]] == expected[1:] and page["pagination"]["total"] == 2
    assert tenant.get(plural, {"limit": 100, "offset": 0})["pagination"]["total"] == 4  # every live one


def _contract_chain(tenant: Tenant) -> dict[str, str]:
    """A contact, a unit of a new building, and a lease of the unit to the contact."""
    building = tenant.ok("objects.create", {"object": {"name": "Seitweg", "type": "weg"}})["object"]
    contact = tenant.contact(lastName="Seit")
    unit = tenant.ok("units.create", {"unit": {"objectId": building["id"], "number": "1", "type": "apartment"}})
    contract = {
        "unitId": unit["unit"]["id"],
        "type": "lease",
        "startDate": "2024-01-01",
        "parties": [{"contactId": contact["id"], "role": "tenant"}],
    }
    made = tenant.ok("contracts.create", {"contract": contract})["contract"]
    return {"contact": contact["id"], "unit": unit["unit"]["id"], "contract": made["id"]}


def test_a_webhook_that_skips_its_own_changes_hears_the_others_with_actor_fields_and_previous(
    tenant: Tenant, receiver: Receiver
) -> None:
    """skipOwnChanges (issue 33): a two-way sync's webhook hears the other key's changes and none of
    its own; each body says who (actor), what changed (changedFields) and, for an update, the
    earlier values (previous)."""
    sync = tenant.new_key(["read", "write"], agent="sync-bot")
    hook = tenant.ok(
        "webhooks.create",
        {
            "name": "two-way",
            "url": receiver.url,
            "events": ["contact.created", "contact.updated"],
            "skipOwnChanges": True,
        },
        key=sync,
    )["webhook"]
    assert hook["skipOwnChanges"] is True and hook["ownChangesOf"]["keyId"]
    echo = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": "Echo"}}, key=sync)
    other = tenant.contact(lastName="Fremd")
    tenant.ok("contacts.update", {"contact": {"id": other["id"], "lastName": "Fremder"}})
    updated = receiver.first(lambda r: r.event["type"] == "contact.updated")
    assert updated is not None
    time.sleep(1.0)  # the echo's event, had it been sent, was queued before the other's update
    bodies = [r.event for r in receiver.delivered()]
    assert echo["contact"]["id"] not in {b["data"]["id"] for b in bodies}
    assert [b["type"] for b in bodies] == ["contact.created", "contact.updated"]
    created, changed = bodies
    assert created["actor"]["agentName"] != "sync-bot" and created["actor"]["channel"] == "rest"
    assert set(created["actor"]) == {"keyId", "agentName", "integrationId", "channel"}
    assert "lastName" in created["changedFields"] and "previous" not in created
    assert changed["changedFields"] == ["lastName"] and changed["previous"] == {"lastName": "Fremd"}
    assert changed["data"]["lastName"] == "Fremder"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_receiver_down_during_500_changes_gets_all_of_them_in_order_after_a_recovery(
    tenant: Tenant, receiver: Receiver
) -> None:
    """webhooks.deliveries.recover (issue 33): the receiver answers 503 while changes happen (the
    issue's 500 in `make test-long`, PM_RECOVER_TEST_CHANGES; RECOVERED);
    recovered from before the outage, every event arrives again, marked as a redelivery, each
    contact's in the order they were made; the changes made before the webhook existed are not among
    them, though the recovery's `since` lies before them too."""
    receiver.always = 503
    earliest = _since_now(-0.5)
    earlier = [tenant.contact(lastName=f"Vorher{n}")["id"] for n in range(3)]
    tenant.ok("contacts.update", {"contact": {"id": earlier[0], "firstName": "Vorher"}})
    _feed_since(tenant, earliest, 4)  # on the feed (the stream wrote them) before the webhook is made
    time.sleep(1.0)  # `before` below (half a second back) must lie after them: the feed reads by time
    hook = tenant.ok(
        "webhooks.create", {"name": "down", "url": receiver.url, "events": ["contact.created", "contact.updated"]}
    )
    before = _since_now(-0.5)
    people = [tenant.contact(lastName=f"Aus{n}")["id"] for n in range(RECOVERED // 5)]
    for version in range(2, 6):
        for person in people:
            tenant.ok("contacts.update", {"contact": {"id": person, "firstName": f"V{version}"}})
    ids = {c["id"] for c in _feed_since(tenant, before, RECOVERED)}
    receiver.always = None
    # recovered from before the earlier changes: only the webhook's own time counts (events/recover.py)
    answer = tenant.ok("webhooks.deliveries.recover", {"webhook": hook["webhook"]["id"], "since": earliest})
    assert answer == {"recovered": RECOVERED, "capped": False}

    def redelivered() -> list[dict[str, Any]]:
        got = [r.event for r in receiver.delivered() if r.event.get("redelivery")]
        missing = ids - {e["id"] for e in got}
        assert not missing, f"{len(missing)} of {len(ids)} not redelivered yet, e.g. {sorted(missing)[:3]}"
        return got

    events = eventually(redelivered, timeout=600, message="every recovered event redelivered")
    versions: dict[str, list[int]] = defaultdict(list)
    for event in events:
        versions[event["data"]["id"]].append(event["data"]["version"])
    assert set(versions) == set(people)  # none of the earlier contacts'
    assert all(v == [1, 2, 3, 4, 5] for v in versions.values()), versions  # each once, in order

    def logged_delivered() -> bool:
        # a delivery's status is written after its receiver answered: the last one may trail the receipt
        query = {"webhook": hook["webhook"]["id"], "limit": 1000, "offset": 0}
        log = tenant.get("webhooks.deliveries.list", query)["deliveries"]
        assert sum(1 for d in log if "~r" in d["id"] and d["status"] == "delivered") == RECOVERED
        return True

    eventually(logged_delivered, timeout=60, message="every redelivery logged as delivered")
    late = {r.event["data"]["id"] for r in receiver.delivered() if r.event.get("redelivery")}
    assert not late & set(earlier), "a change from before the webhook was redelivered"


def test_a_disabled_webhook_is_not_recovered_and_since_is_checked(tenant: Tenant, receiver: Receiver) -> None:
    hook = tenant.ok("webhooks.create", {"name": "aus", "url": receiver.url, "events": ["*"]})["webhook"]
    old = tenant.command("webhooks.deliveries.recover", {"webhook": hook["id"], "since": "2020-01-01T00:00:00Z"})
    assert (old.status, old.body["code"]) == (400, "since_out_of_retention")
    tenant.ok("webhooks.update", {"webhook": {"id": hook["id"], "enabled": False}})
    refused = tenant.command("webhooks.deliveries.recover", {"webhook": hook["id"], "since": _since_now()})
    assert (refused.status, refused.body["code"]) == (409, "webhook_disabled")


def _feed_since(tenant: Tenant, since: str, count: int) -> list[dict[str, Any]]:
    """The first `count` contact changes on the feed since `since` (waiting for the stream to write them)."""
    seen: list[dict[str, Any]] = []
    cursor = None

    def more() -> bool:
        nonlocal cursor
        where = {"after": cursor} if cursor else {"since": since}
        page = tenant.get("changes.list", {**where, "entityTypes": ["contact"], "limit": 1000})
        cursor = page["next"]
        seen.extend(page["changes"])
        return len(seen) >= count

    eventually(more, timeout=60)
    return seen[:count]


def test_the_backfill_indexes_entities_written_before_updated_since_without_an_event(
    tenant: Tenant, stack: Any
) -> None:
    """Entities last written before gsi5 existed (their keys removed here, as that code left them) are
    missing from updatedSince lists until `pmctl backfill changed-index` fills their keys in; the
    backfill is no change: no audit record, no feed entry."""
    import boto3
    from click.testing import CliRunner

    from chalicelib import config
    from chalicelib.ops.pmctl import cli

    since = _since_now()
    people = [tenant.contact(lastName=f"Alt{i}") for i in range(3)]
    tenant.ok("contacts.delete", {"contact": people[2]["id"]})
    dynamodb = boto3.client("dynamodb")
    for person in people:
        dynamodb.update_item(
            TableName=config.table_name(),
            Key={"PK": {"S": f"{tenant.id}#{person['id']}"}, "SK": {"S": "entity"}},
            UpdateExpression="REMOVE gsi5pk, gsi5sk",
        )
    listed = {"updatedSince": since, "limit": 10, "offset": 0}
    assert tenant.get("contacts", listed)["pagination"]["total"] == 0

    def backfill(*flags: str) -> dict[str, Any]:
        result = CliRunner().invoke(cli, ["backfill", "changed-index", *flags, "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return dict(json.loads(result.stdout))

    assert backfill("--dry-run")["scanned"] == 2  # the deleted one has no list keys at all
    assert tenant.get("contacts", listed)["pagination"]["total"] == 0
    assert backfill() == {"scanned": 2, "filled": 2, "skipped": 0, "dryRun": False}
    found = tenant.get("contacts", listed)
    assert [c["id"] for c in found["contacts"]] == [people[0]["id"], people[1]["id"]]
    assert found["pagination"]["total"] == 2
    assert backfill()["scanned"] == 0  # nothing left to do
    assert stack.poller.wait_idle(15), "the change stream did not catch up"
    audited = tenant.get("audit.list", {"entityType": "contact", "limit": 100})["auditRecords"]
    assert [r["action"] for r in audited] == ["created", "created", "created", "deleted"]
    feed = tenant.get("changes.list", {"since": since, "entityTypes": ["contact"], "limit": 100})["changes"]
    assert [c["type"] for c in feed] == ["contact.created"] * 3 + ["contact.deleted"]
