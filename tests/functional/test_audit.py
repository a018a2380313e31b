"""The audit trail from the change stream, and rolling changes back."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib import clock
from tests.client import Tenant


@pytest.fixture()
def settle(stack: Any) -> Any:
    """Wait until the stream handler has seen every write so far."""

    def wait() -> None:
        assert stack.poller.wait_idle(15), "the stream poller did not catch up"

    return wait


def test_every_change_is_recorded_with_who_and_what(tenant: Tenant, settle: Any) -> None:
    person = tenant.contact(firstName="Anna", lastName="Alt")
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Neu"}})
    tenant.ok("contacts.delete", {"contact": person["id"]})
    tenant.ok("contacts.restore", {"contact": person["id"]})
    settle()
    records = tenant.get("audit.list", {"entityId": person["id"], "limit": 10, "offset": 0})
    assert [r["action"] for r in records["auditRecords"]] == ["created", "updated", "deleted", "restored"]
    assert [r["operation"] for r in records["auditRecords"]] == [
        "contacts.create",
        "contacts.update",
        "contacts.delete",
        "contacts.restore",
    ]
    update = records["auditRecords"][1]
    assert update["before"]["data"]["lastName"] == "Alt" and update["after"]["data"]["lastName"] == "Neu"
    assert update["changedFields"] == ["lastName"]
    assert update["actor"]["agentName"] == "setup" and update["actor"]["binding"] == {"type": "company"}
    assert update["requestId"]
    assert tenant.get("audit.show", {"auditRecord": update["id"]})["auditRecord"] == update


def test_audit_filters_by_key_agent_operation_and_time(tenant: Tenant, settle: Any) -> None:
    bot = tenant.new_key(["read", "write"], agent="import-bot")
    tenant.contact(lastName="Mine")
    for i in range(3):
        tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": f"Bot{i}"}}, key=bot)
    settle()
    by_agent = tenant.get("audit.list", {"agentName": "import-bot", "limit": 100, "offset": 0})
    assert by_agent["pagination"]["total"] == 3
    key_id = by_agent["auditRecords"][0]["actor"]["keyId"]
    assert (
        tenant.get("audit.list", {"keyId": key_id, "operation": "contacts.create", "limit": 100, "offset": 0})[
            "pagination"
        ]["total"]
        == 3
    )
    first_at = by_agent["auditRecords"][1]["at"]
    later = tenant.get("audit.list", {"agentName": "import-bot", "from": first_at, "limit": 100, "offset": 0})
    assert later["pagination"]["total"] == 2
    assert (
        tenant.get("audit.list", {"agentName": "import-bot", "to": "2000-01-01T00:00:00Z", "limit": 10, "offset": 0})[
            "pagination"
        ]["total"]
        == 0
    )


def test_audit_filters_by_entity_type_with_exact_totals(tenant: Tenant, settle: Any) -> None:
    people = [tenant.contact(lastName=f"Typ{i}") for i in range(3)]
    tenant.ok("contacts.update", {"contact": {"id": people[0]["id"], "lastName": "Typ0b"}})
    place = tenant.ok("objects.create", {"object": {"name": "Haus Typ", "type": "rental"}})["object"]
    settle()
    contacts = tenant.get("audit.list", {"entityType": "contact", "limit": 100})
    assert contacts["pagination"]["total"] == 4
    assert {r["entityType"] for r in contacts["auditRecords"]} == {"contact"}
    objects = tenant.get("audit.list", {"entityType": "object", "limit": 100})
    assert [r["entityId"] for r in objects["auditRecords"]] == [place["id"]]
    # the account's records by their type: the sign-up's key, to an admin key
    keys = tenant.get("audit.list", {"entityType": "apiKey", "limit": 100})
    assert keys["pagination"]["total"] >= 1 and {r["entityType"] for r in keys["auditRecords"]} == {"apiKey"}
    reader = tenant.new_key(["read"], agent="reader")
    assert tenant.get("audit.list", {"entityType": "apiKey", "limit": 100}, key=reader)["pagination"]["total"] == 0
    unknown = tenant.query("audit.list", {"entityType": "spaceship", "limit": 10})
    assert unknown.status == 400 and unknown.body["errors"][0]["path"] == "entityType"


def test_audit_pages_by_cursor_and_goes_on_after_its_last_record(tenant: Tenant, settle: Any) -> None:
    bot = tenant.new_key(["read", "write"], agent="cursor-bot")
    for i in range(7):
        tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": f"C{i}"}}, key=bot)
    settle()
    seen: list[str] = []
    answer = tenant.get("audit.list", {"agentName": "cursor-bot", "limit": 3})
    while answer["auditRecords"]:
        seen += [r["entityId"] for r in answer["auditRecords"]]
        answer = tenant.get("audit.list", {"agentName": "cursor-bot", "limit": 3, "after": answer["next"]})
    everything = tenant.get("audit.list", {"agentName": "cursor-bot", "limit": 100})["auditRecords"]
    assert seen == [r["entityId"] for r in everything] and len(seen) == 7
    # the last cursor is where a follower waits: what arrives later comes after it, exactly once
    waiting = answer["next"]
    late = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": "Late"}}, key=bot)
    settle()
    after = tenant.get("audit.list", {"agentName": "cursor-bot", "limit": 3, "after": waiting})
    assert [r["entityId"] for r in after["auditRecords"]] == [late["contact"]["id"]]
    assert after["pagination"]["total"] == 1
    # an offset counts after the cursor, and the total is of the records after it
    all_eight = [
        r["entityId"] for r in tenant.get("audit.list", {"agentName": "cursor-bot", "limit": 100})["auditRecords"]
    ]
    first = tenant.get("audit.list", {"agentName": "cursor-bot", "limit": 2})
    skipped = tenant.get("audit.list", {"agentName": "cursor-bot", "limit": 2, "offset": 1, "after": first["next"]})
    assert [r["entityId"] for r in skipped["auditRecords"]] == all_eight[3:5]
    assert skipped["pagination"]["total"] == 6


def test_an_audit_cursor_this_service_did_not_hand_out_is_refused(tenant: Tenant) -> None:
    for cursor in ("aud_01K00000000000000000000000", "aud1.bm9wZQ", "chg1.MTA", "aud1.!!"):
        answer = tenant.query("audit.list", {"limit": 10, "after": cursor})
        assert answer.status == 400, cursor
        assert answer.body["code"] == "invalid_cursor" and answer.body["errors"][0]["path"] == "after"


def test_audit_is_per_tenant(tenant: Tenant, other_tenant: Tenant, settle: Any) -> None:
    theirs = other_tenant.contact()
    settle()
    assert tenant.get("audit.list", {"entityId": theirs["id"], "limit": 10, "offset": 0})["pagination"]["total"] == 0
    record = other_tenant.get("audit.list", {"entityId": theirs["id"], "limit": 10, "offset": 0})["auditRecords"][0]
    assert tenant.query("audit.show", {"auditRecord": record["id"]}).status == 404


def test_revert_of_one_change(tenant: Tenant, settle: Any) -> None:
    person = tenant.contact(lastName="Vorher")
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Nachher"}})
    settle()
    change = tenant.get(
        "audit.list", {"entityId": person["id"], "operation": "contacts.update", "limit": 1, "offset": 0}
    )["auditRecords"][0]
    result = tenant.ok("audit.revert", {"auditRecord": change["id"]})
    assert result["reverted"][0]["action"] == "updated"
    assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["lastName"] == "Vorher"


def test_revert_refuses_to_overwrite_a_later_change_unless_forced(tenant: Tenant, settle: Any) -> None:
    person = tenant.contact(lastName="A")
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "B"}})
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "C"}})
    settle()
    first_update = tenant.get(
        "audit.list", {"entityId": person["id"], "operation": "contacts.update", "limit": 1, "offset": 0}
    )["auditRecords"][0]
    refused = tenant.command("audit.revert", {"auditRecord": first_update["id"]})
    assert refused.status == 409 and refused.body["code"] == "changed_later"
    assert tenant.ok("audit.revert", {"auditRecord": first_update["id"], "force": True})["reverted"]
    assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["lastName"] == "A"


def test_everything_a_key_did_is_rolled_back_in_one_call(tenant: Tenant, settle: Any) -> None:
    kept = tenant.contact(lastName="Bestand")
    obj = tenant.ok("objects.create", {"object": {"name": "Haus", "type": "rental"}})["object"]
    settle()
    before = {
        "contacts": tenant.get("contacts", {"limit": 1000, "offset": 0}),
        "object": tenant.get("objects.show", {"object": obj["id"]}),
    }
    agent = tenant.new_key(["read", "write", "destructive"], agent="rogue-agent")
    changes = 0
    made = []
    for i in range(8):  # 8 creates
        made.append(
            tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": f"Neu{i}"}}, key=agent)[
                "contact"
            ]
        )
        changes += 1
    for person in made[:5]:  # 5 updates
        tenant.ok("contacts.update", {"contact": {"id": person["id"], "notes": "x"}}, key=agent)
        changes += 1
    tenant.ok("contacts.update", {"contact": {"id": kept["id"], "lastName": "Überschrieben"}}, key=agent)
    tenant.ok("objects.update", {"object": {"id": obj["id"], "name": "Umbenannt", "constructionYear": 1999}}, key=agent)
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "9", "type": "storage"}}, key=agent)[
        "unit"
    ]
    tenant.ok("contacts.delete", {"contact": made[7]["id"]}, key=agent)
    tenant.ok("contacts.delete", {"contact": made[6]["id"]}, key=agent)
    tenant.ok("units.update", {"unit": {"id": unit["id"], "floor": 2}}, key=agent)
    tenant.ok("contacts.update", {"contact": {"id": kept["id"], "notes": "y"}}, key=agent)
    tenant.ok("contacts.delete", {"contact": made[5]["id"]}, key=agent)
    changes += 8
    assert changes == 21
    settle()
    agent_key = tenant.get("info", key=agent)["key"]["id"]
    assert tenant.get("audit.list", {"keyId": agent_key, "limit": 100, "offset": 0})["pagination"]["total"] == 21

    result = tenant.ok("audit.revert", {"filter": {"keyId": agent_key}})
    assert result["skipped"] == []
    assert len(result["reverted"]) == 11  # 8 contacts, the kept contact, the object, the unit
    after_contacts = tenant.get("contacts", {"limit": 1000, "offset": 0})
    assert [c["id"] for c in after_contacts["contacts"]] == [c["id"] for c in before["contacts"]["contacts"]]
    strip = lambda e: {k: v for k, v in e.items() if k not in ("version", "updatedAt")}  # noqa: E731
    assert [strip(c) for c in after_contacts["contacts"]] == [strip(c) for c in before["contacts"]["contacts"]]
    assert strip(tenant.get("objects.show", {"object": obj["id"]})["object"]) == strip(before["object"]["object"])
    assert tenant.query("units.show", {"unit": unit["id"]}).status == 404
    settle()
    rollback = tenant.get("audit.list", {"operation": "audit.revert", "limit": 100, "offset": 0})
    writes = sum(1 for r in result["reverted"] if r["action"] != "none")  # created-then-deleted needs no write
    assert writes == 8 and rollback["pagination"]["total"] == writes
    assert {r["actor"]["agentName"] for r in rollback["auditRecords"]} == {"setup"}


def test_a_dry_run_previews_what_a_revert_would_do_and_writes_nothing(tenant: Tenant, settle: Any) -> None:
    """The preview the console shows before a revert, also for agents over REST and MCP: the
    same reverted and skipped lists as the revert itself, and not one write."""
    agent = tenant.new_key(["read", "write", "destructive"], agent="preview-agent")
    made = [
        tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": f"V{i}"}}, key=agent)["contact"]
        for i in range(3)
    ]
    for person in made:
        tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Vom Agenten"}}, key=agent)
    tenant.ok("contacts.update", {"contact": {"id": made[0]["id"], "notes": "später vom Menschen"}})  # a later change
    settle()
    agent_key = tenant.get("info", key=agent)["key"]["id"]
    page = {"limit": 1000, "offset": 0}
    trail_before, contacts_before = tenant.get("audit.list", page), tenant.get("contacts", page)

    preview = tenant.ok("audit.revert", {"filter": {"keyId": agent_key}, "dryRun": True})
    assert preview["dryRun"] is True
    assert sorted(r["entityId"] for r in preview["reverted"]) == sorted(p["id"] for p in made[1:])
    assert {r["action"] for r in preview["reverted"]} == {"deleted"}  # they did not exist before the agent
    assert [(r["entityId"], r["code"]) for r in preview["skipped"]] == [(made[0]["id"], "changed_later")]
    settle()
    assert tenant.get("contacts", page) == contacts_before
    assert tenant.get("audit.list", page)["pagination"] == trail_before["pagination"]

    single = tenant.command("audit.revert", {"auditRecord": preview["skipped"][0]["auditRecords"][-1], "dryRun": True})
    assert single.status == 409 and single.body["code"] == "changed_later"  # as the revert itself would answer

    done = tenant.ok("audit.revert", {"filter": {"keyId": agent_key}})
    assert "dryRun" not in done
    assert (done["reverted"], done["skipped"]) == (preview["reverted"], preview["skipped"])


def test_revert_needs_write_and_destructive(tenant: Tenant) -> None:
    writer = tenant.new_key(["read", "write"], agent="w")
    assert tenant.command("audit.revert", {"filter": {"agentName": "x"}}, key=writer).status == 403
    assert tenant.command("audit.revert", {}).status == 400


def test_a_handler_crash_mid_batch_loses_and_duplicates_nothing(
    tenant: Tenant, settle: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The handler crashes twice right after the batch's audit records and feed entries were
    written: the stream delivers the batch again, and neither the trail nor the change feed holds a
    change twice (issue 33: the feed's append skips what it appended before)."""
    from chalicelib.events import feed

    real = feed.append
    crashes = {"left": 2}

    def flaky(changes: list[Any]) -> None:
        real(changes)
        if any(c.tenant_id == tenant.id for c in changes) and crashes["left"] > 0:
            crashes["left"] -= 1
            raise RuntimeError("injected crash")

    monkeypatch.setattr(feed, "append", flaky)
    since = clock.now_iso()
    people = [tenant.contact(lastName=f"Batch{i}") for i in range(5)]
    settle()
    assert crashes["left"] == 0
    records = tenant.get("audit.list", {"operation": "contacts.create", "limit": 100, "offset": 0})["auditRecords"]
    assert sorted(r["entityId"] for r in records) == sorted(p["id"] for p in people)  # each exactly once
    changes = tenant.get("changes.list", {"since": since, "limit": 100})["changes"]
    assert sorted(c["entityId"] for c in changes) == sorted(p["id"] for p in people)


@pytest.mark.slow
def test_a_record_that_keeps_failing_is_dead_lettered_and_replayable(
    tenant: Tenant, settle: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chalicelib.events import deadletters, feed
    from chalicelib.store import deadletters as stored_letters

    real = feed.append  # a contact's change: its audit record goes with its feed entry
    broken = {"on": True}

    def failing(changes: list[Any]) -> None:
        if any(c.entity_type == "contact" and c.tenant_id == tenant.id for c in changes) and broken["on"]:
            raise RuntimeError("injected permanent failure")
        real(changes)

    monkeypatch.setattr(feed, "append", failing)
    person = tenant.contact(lastName="Dead")
    settle()
    assert tenant.get("audit.list", {"entityId": person["id"], "limit": 10, "offset": 0})["pagination"]["total"] == 0
    assert any(person["id"] in letter["record"] for letter in stored_letters.pending().values())
    assert tenant.get("status")["checks"]["changeStream"]["ok"] is False
    broken["on"] = False
    done, failed = deadletters.replay()
    assert done >= 1 and failed == 0
    assert tenant.get("audit.list", {"entityId": person["id"], "limit": 10, "offset": 0})["pagination"]["total"] == 1
    assert tenant.get("status")["checks"]["changeStream"] == {
        "ok": True,
        "detail": "0 failed records in the dead-letter store",
    }


def test_an_audit_record_shares_its_id_with_the_changes_webhook_event(tenant: Tenant, settle: Any) -> None:
    since = clock.iso(clock.now())
    person = tenant.contact(lastName="Gleich")
    settle()
    change = tenant.get("changes.list", {"since": since, "entityTypes": ["contact"], "limit": 10})["changes"][0]
    record = tenant.get("audit.list", {"entityId": person["id"], "limit": 10})["auditRecords"][0]
    assert change["entityId"] == person["id"]
    assert record["id"] == "aud_" + change["id"].removeprefix("evt_")
