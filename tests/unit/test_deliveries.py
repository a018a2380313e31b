"""Delivery rules that need a clock or DNS: the retry schedule and the Retry-After cap, giving
up, the log's expiry, a webhook's leases, rest and disabling (consecutive failures over five
days, 410 at once), and the rules for receiver URLs and addresses."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from chalicelib import clock, config
from chalicelib.events import deliveries, delivery_queue, delivery_worker, sender, targets, webhook_health
from chalicelib.events.sender import Outcome
from chalicelib.store import webhooks as webhook_store
from chalicelib.store.deliveries import StoredDelivery, get_delivery
from chalicelib.store.model import ENTITY_SK, Item

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)
FAILED = Outcome(503, "http_5xx", 3.0)
DELIVERED = Outcome(200, None, 3.0)


@pytest.fixture()
def frozen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dt.datetime]]:
    now = [T0]
    clock.set_clock(lambda: now[0])
    monkeypatch.setenv("PM_WEBHOOK_RETRY_SCALE", "1")
    yield now
    clock.set_clock(None)


def _webhook() -> None:
    Item(
        "ten_A#whk_1",
        ENTITY_SK,
        type="webhook",
        tenantId="ten_A",
        id="whk_1",
        data={"enabled": True, "url": "https://x.example"},
    ).save()


def _pending(event: str = "evt_1") -> None:
    body = {"id": event, "type": "contact.created", "timestamp": clock.now_iso(), "tenantId": "ten_A", "data": {}}
    assert deliveries.create("ten_A", "whk_1", body, entity_key="contact#con_1")
    assert not deliveries.create("ten_A", "whk_1", body, entity_key="contact#con_1")  # written once


def _stored(event: str = "evt_1") -> StoredDelivery:
    found = get_delivery("ten_A", "whk_1", event)
    assert found is not None
    return found


def test_failures_follow_the_schedule_and_retry_after_lengthens_a_wait_up_to_an_hour(
    memory_table: None, frozen: list[dt.datetime]
) -> None:
    _pending()
    assert deliveries.settle(_stored(), FAILED) == 5
    assert _stored().data["nextAttemptAt"] == clock.iso(T0 + dt.timedelta(seconds=5))
    assert (
        deliveries.settle(_stored(), Outcome(429, "http_429", 1.0, retry_after=1200)) == 1200
    )  # longer than the 5 min step
    assert deliveries.settle(_stored(), Outcome(429, "http_429", 1.0, retry_after=999_999_999)) == 3600  # capped
    assert deliveries.settle(_stored(), Outcome(503, "http_5xx", 1.0, retry_after=10)) == 7200  # never shortened
    data = _stored().data
    assert data["attempts"] == 4 and data["status"] == "pending" and data["lastError"] == "http_5xx"


def test_gives_up_after_the_last_step(memory_table: None, frozen: list[dt.datetime]) -> None:
    _pending()
    waits = [deliveries.settle(_stored(), FAILED) for _ in range(len(deliveries.SCHEDULE) + 1)]
    assert waits[-1] is None and all(w is not None for w in waits[:-1])
    data = _stored().data
    assert data["status"] == "failed" and data["attempts"] == 8
    assert "nextAttemptAt" not in data


def test_the_log_entry_expires_after_the_documented_days(memory_table: None, frozen: list[dt.datetime]) -> None:
    _pending()
    expected = frozen[0] + dt.timedelta(days=config.WEBHOOK_LOG_DAYS)
    expires = Item.get("ten_A#whk_1", "delivery#evt_1").expiresAt
    assert expires is not None and abs((expires - expected).total_seconds()) < 1


def test_at_most_max_in_flight_attempts_hold_a_lease_and_a_lease_runs_out(memory_table: None) -> None:
    _webhook()
    admitted = [webhook_health.admit("ten_A", "whk_1") for _ in range(webhook_store.MAX_IN_FLIGHT)]
    assert sorted(a.slot for a in admitted if a.slot is not None) == list(range(webhook_store.MAX_IN_FLIGHT))
    busy = webhook_health.admit("ten_A", "whk_1", deferred=3)
    assert busy.slot is None and 4 <= busy.wait <= 12  # grows with how often it was turned away
    webhook_health.record("ten_A", "whk_1", admitted[0], DELIVERED)
    assert webhook_health.admit("ten_A", "whk_1").slot == admitted[0].slot  # given back
    assert webhook_store.claim_lease(
        "ten_A", "whk_1", 1, time.time() + webhook_health.LEASE_SECONDS + 1, time.time() + 100
    )  # ran out


def test_a_failing_webhook_rests_as_long_as_it_has_been_failing(
    memory_table: None, frozen: list[dt.datetime], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Rests and leases run on the wall clock: held still, a slow machine's moment between the
    # failure and the next admission does not shorten the rest the test reads.
    monkeypatch.setattr(webhook_health, "time", SimpleNamespace(time=lambda: 1_800_000_000.0))
    _webhook()
    webhook_health.record("ten_A", "whk_1", webhook_health.admit("ten_A", "whk_1"), FAILED)
    resting = webhook_health.admit("ten_A", "whk_1")
    assert (
        resting.slot is None and 4.9 < resting.wait < 10.6
    )  # rests at least 5 s; its backlog comes back spread over as long again
    frozen[0] = T0 + dt.timedelta(minutes=10)  # ten minutes later it fails again
    webhook_store.record("ten_A", "whk_1", release=None, set_fields={}, remove_fields=("restUntil",))
    webhook_health.record("ten_A", "whk_1", webhook_health.admit("ten_A", "whk_1"), FAILED)
    assert 590 < webhook_health.admit("ten_A", "whk_1").wait < 1201
    webhook_store.record("ten_A", "whk_1", release=None, set_fields={}, remove_fields=("restUntil",))
    webhook_health.record("ten_A", "whk_1", webhook_health.admit("ten_A", "whk_1"), DELIVERED)
    assert webhook_store.health("ten_A", "whk_1").get("failingSince") is None  # a success ends it


def test_five_days_of_failures_across_deliveries_disable_the_webhook(
    memory_table: None, frozen: list[dt.datetime]
) -> None:
    """No single delivery fails for five days (each gives up after ~28 h), but the webhook
    has not succeeded for five: it is disabled."""
    _webhook()
    webhook_store.health("ten_A", "whk_1")  # made on first use
    for day in range(6):
        frozen[0] = T0 + dt.timedelta(days=day, minutes=day)
        webhook_store.record("ten_A", "whk_1", release=None, set_fields={}, remove_fields=("restUntil",))
        webhook_health.record(
            "ten_A", "whk_1", webhook_health.admit("ten_A", "whk_1"), Outcome(None, "timeout", 10_000.0)
        )
        hook = Item.get("ten_A#whk_1", ENTITY_SK).data_dict()
        assert hook["enabled"] is (day < 5), day
    assert "5 days" in hook["disabledReason"] and "timeout" in hook["disabledReason"]


def test_410_disables_at_once(memory_table: None) -> None:
    _webhook()
    webhook_health.record("ten_A", "whk_1", webhook_health.admit("ten_A", "whk_1"), Outcome(410, "http_410", 2.0))
    hook = Item.get("ten_A#whk_1", ENTITY_SK).data_dict()
    assert hook["enabled"] is False and "410" in hook["disabledReason"]


@pytest.mark.parametrize(
    "host",
    [
        "10.1.2.3",
        "169.254.169.254",
        "127.0.0.1",
        "192.168.0.10",
        "[::1]",
        "[::ffff:10.0.0.1]",
        "100.64.0.1",
        "0.0.0.0",
        "[2002:a9fe:a9fe::1]",  # 6to4 around the metadata service
        "[2002:808:808::1]",  # 6to4 around a public address: a tunnel through relays, refused all the same
        "[fec0::1]",  # site-local (deprecated, routed inside a site)
        "[2001:0:a9fe:a9fe::1]",  # Teredo
        "[64:ff9b::a9fe:a9fe]",  # NAT64 of the metadata service
        "[64:ff9b::a00:1]",  # NAT64 of 10.0.0.1
        "[64:ff9b:1::808:808]",  # local-use NAT64: the local network's translator
        "[3fff::1]",  # documentation (RFC 9637)
        "[5f00::1]",  # SRv6 segment identifiers
    ],
)
def test_non_public_targets_are_refused_with_a_coarse_reason(host: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PM_ALLOW_LOOPBACK_WEBHOOKS", "0")
    assert targets.url_problem(f"https://{host}/hook") is not None
    monkeypatch.setattr(targets, "url_problem", lambda url: None)  # as if it had been stored under older rules
    outcome = sender.send(f"https://{host}/hook", json.dumps({}), "evt_1", "whsec_" + "A" * 32, None)
    assert outcome.status_code is None and outcome.reason == "blocked_address"


@pytest.mark.parametrize(
    ("address", "allowed"),
    [
        ("64:ff9b::808:808", True),  # NAT64 (RFC 6052): judged by the IPv4 address it carries
        ("64:ff9b::a9fe:a9fe", False),
        ("::ffff:8.8.8.8", True),  # IPv4-mapped: likewise
        ("::ffff:169.254.169.254", False),
        ("2002:808:808::1", False),  # 6to4 and Teredo tunnel through relays: refused whatever they carry
        ("2001:0:808:808::1", False),
        ("fec0::1", False),
        ("2606:4700::1111", True),
    ],
)
def test_ipv6_addresses_that_carry_ipv4_are_judged_by_it_or_refused(address: str, allowed: bool) -> None:
    assert targets.address_allowed(address) is allowed
    assert (targets.url_problem(f"https://[{address}]/hook") is None) is allowed


def test_loopback_and_http_are_allowed_in_the_local_stage_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PM_ALLOW_LOOPBACK_WEBHOOKS", "1")
    assert targets.url_problem("http://127.0.0.1:9/hook") is None
    assert targets.address_allowed("127.0.0.1")
    assert targets.url_problem("http://example.org/hook") == "must use https"
    monkeypatch.delenv("PM_ALLOW_LOOPBACK_WEBHOOKS")
    assert targets.url_problem("http://127.0.0.1:9/hook") is not None
    assert not targets.address_allowed("127.0.0.1")


def test_an_unresolvable_host_settles_as_dns_error(monkeypatch: pytest.MonkeyPatch) -> None:
    outcome = sender.send("https://no-such-host.invalid/hook", "{}", "evt_1", "whsec_" + "A" * 32, None)
    assert outcome == Outcome(None, "dns_error", outcome.duration_ms)


def test_the_worker_starts_no_attempt_past_its_budget_and_keeps_the_rest_of_the_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ten slow receivers in one group would outlast the function: what was not started is
    kept (visible again at once), in order, and nothing after it in the group is sent."""
    now = [0.0]
    attempted: list[str] = []

    def attempt(record: dict[str, object]) -> None:
        attempted.append(str(record["messageId"]))
        now[0] += 15.0  # a slow receiver

    waits: list[list[tuple[str, float]]] = []
    monkeypatch.setattr(delivery_worker, "BUDGET_SECONDS", 40.0)
    monkeypatch.setattr(delivery_worker, "monotonic", lambda: now[0])
    monkeypatch.setattr(delivery_worker, "_attempt", attempt)
    monkeypatch.setattr(delivery_queue, "wait", waits.append)
    records = [
        {
            "messageId": f"m{n}",
            "receiptHandle": f"r{n}",
            "body": "{}",
            "attributes": {"MessageGroupId": "whk_1:contact#con_1"},
        }
        for n in range(6)
    ]
    answer = delivery_worker.handle_event({"Records": records})
    assert attempted == ["m0", "m1", "m2"]  # started at 0, 15 and 30 s; the budget is 40 s
    assert answer == {"batchItemFailures": [{"itemIdentifier": f"m{n}"} for n in (3, 4, 5)]}
    assert waits == [[("r3", 0.0), ("r4", 0.0), ("r5", 0.0)]]


def test_a_groups_retry_wait_starts_when_the_group_is_done_not_when_the_batch_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two groups in one batch: one receiver takes its time, the other fails at once. The failed
    message's wait is set as soon as its group is done, so the slow receiver does not lengthen it."""
    finished: dict[str, float] = {}
    waits: list[tuple[list[str], float]] = []
    waited = threading.Event()

    def attempt(record: dict[str, object]) -> float | None:
        if record["messageId"] == "slow":
            waited.wait(timeout=5)  # the slow receiver answers once the other group's wait is set, or in 5 s
            finished["slow"] = time.monotonic()
            return None
        return 5.0

    def wait(receipts: list[tuple[str, float]]) -> None:
        waits.append(([r for r, _ in receipts], time.monotonic()))
        waited.set()

    monkeypatch.setattr(delivery_worker, "_attempt", attempt)
    monkeypatch.setattr(delivery_queue, "wait", wait)
    records = [
        {"messageId": name, "receiptHandle": f"r-{name}", "attributes": {"MessageGroupId": name}, "body": "{}"}
        for name in ("slow", "failing")
    ]
    answer = delivery_worker.handle_event({"Records": records})
    assert answer == {"batchItemFailures": [{"itemIdentifier": "failing"}]}
    assert [receipts for receipts, _ in waits] == [["r-failing"]]
    assert waits[0][1] < finished["slow"], "the wait began before the slow group was done"
