"""webhooks.deliveries.recover within bounds (issue 51, 8): one recovery of a webhook at a time
(until its redeliveries are settled), at most config.RECOVERIES_PER_DAY a day, and nothing from
before the webhook existed (issue 52, 2)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from chalicelib import config
from chalicelib.errors import Conflict
from chalicelib.store import recoveries
from tests.client import Tenant
from tests.eventually import eventually
from tests.moments import clock_at
from tests.receiver import Receiver


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _hook(tenant: Tenant, receiver: Receiver) -> str:
    body = {"name": "r", "url": receiver.url, "events": ["contact.created", "contact.updated"]}
    return str(tenant.ok("webhooks.create", body)["webhook"]["id"])


def _redelivered(receiver: Receiver, count: int) -> None:
    eventually(lambda: len([r for r in receiver.delivered() if r.event.get("redelivery")]) >= count or None)


def test_a_second_recovery_waits_for_the_first_to_be_delivered(tenant: Tenant, receiver: Receiver) -> None:
    hook = _hook(tenant, receiver)
    since = _now()
    for n in range(3):
        tenant.contact(lastName=f"R{n}")
    receiver.wait_for(3)
    receiver.always = 503  # the receiver goes down: the recovery's redeliveries wait on their schedule
    first = tenant.ok("webhooks.deliveries.recover", {"webhook": hook, "since": since})
    assert first["recovered"] == 3, first
    again = tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since})
    assert (again.status, again.body["code"]) == (409, "recovery_running"), again.body
    running = again.body["running"]
    assert (running["queued"], running["settled"], running["since"]) == (3, 0, since), running
    assert running["id"].startswith("r") and running["until"] >= since and running["startedAt"] >= since
    receiver.always = None
    _redelivered(receiver, 3)

    def recovered_again() -> bool | None:
        answer = tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since})
        return answer.status == 200 or None  # once every redelivery is logged as settled

    eventually(recovered_again, timeout=60, message="a recovery after the first was delivered")


def test_a_webhook_is_recovered_only_so_often_a_day(
    tenant: Tenant, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config, "RECOVERIES_PER_DAY", 2)
    hook = _hook(tenant, receiver)
    since = _now()
    for _ in range(2):
        assert tenant.ok("webhooks.deliveries.recover", {"webhook": hook, "since": since})["recovered"] == 0
    third = tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since})
    assert (third.status, third.body["code"]) == (429, "recovery_limit_reached"), third.body
    assert 0 < int(third.headers["retry-after"]) <= 86_400
    other = _hook(tenant, receiver)
    assert tenant.command("webhooks.deliveries.recover", {"webhook": other, "since": since}).status == 200


def test_a_recovery_sends_nothing_from_before_the_webhook_existed(tenant: Tenant, receiver: Receiver) -> None:
    since = _now()
    earlier = tenant.contact(lastName="Vorher")
    hook = _hook(tenant, receiver)
    later = tenant.contact(lastName="Nachher")
    # (the earlier contact may be heard live: the stream may reach it after the webhook's creation)
    eventually(lambda: later["id"] in {r.event["data"]["id"] for r in receiver.delivered()} or None)
    answer = tenant.ok("webhooks.deliveries.recover", {"webhook": hook, "since": since})
    assert answer["recovered"] == 1, answer
    _redelivered(receiver, 1)
    again = {r.event["data"]["id"] for r in receiver.delivered() if r.event.get("redelivery")}
    assert again == {later["id"]}, (again, earlier["id"])


def _later(**delta: float) -> dt.datetime:
    return dt.datetime.now(dt.UTC) + dt.timedelta(**delta)


def test_a_recovery_that_never_settles_ends_after_its_lease(tenant: Tenant, receiver: Receiver) -> None:
    hook = _hook(tenant, receiver)
    since = _now()
    receiver.always = 503  # down for good: the redelivery never settles
    tenant.contact(lastName="Nie")
    eventually(lambda: receiver.requests or None)
    assert tenant.ok("webhooks.deliveries.recover", {"webhook": hook, "since": since})["recovered"] == 1
    with clock_at(_later(hours=recoveries.LEASE_HOURS, minutes=-1)):
        held = tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since})
        assert (held.status, held.body["code"]) == (409, "recovery_running"), held.body
    with clock_at(_later(hours=recoveries.LEASE_HOURS, minutes=1)):
        assert tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since}).status == 200


def test_a_recovery_whose_call_died_before_counting_holds_for_minutes_only(tenant: Tenant, receiver: Receiver) -> None:
    hook = _hook(tenant, receiver)
    since = _now()
    died = _later(seconds=1).replace(microsecond=0)  # a whole millisecond: the claim's startedAt exactly
    with clock_at(died):
        recoveries.claim(tenant.id, hook, "rdied", since)  # a call that claimed and never queued (it died)
        held = tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since})
        assert (held.status, held.body["code"]) == (409, "recovery_running"), held.body
        assert (held.body["running"]["queued"], held.body["running"]["settled"]) == (0, 0), held.body
    counting = dt.timedelta(minutes=recoveries.COUNTING_MINUTES)
    with clock_at(died + counting - dt.timedelta(milliseconds=1)):
        assert tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since}).status == 409
    with clock_at(died + counting):
        assert tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since}).status == 200


def test_the_days_count_starts_again_the_next_day(
    tenant: Tenant, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config, "RECOVERIES_PER_DAY", 1)
    hook = _hook(tenant, receiver)
    noon = dt.datetime.now(dt.UTC).replace(hour=12, minute=0, second=0, microsecond=0) + dt.timedelta(days=1)
    since = (noon - dt.timedelta(hours=1)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    with clock_at(noon):
        assert tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since}).status == 200
        refused = tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since})
        assert refused.status == 429 and refused.headers["retry-after"] == str(12 * 3600), refused.headers
    with clock_at(noon + dt.timedelta(hours=12)):
        assert tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since}).status == 200


def test_a_recovery_runs_until_every_event_it_queued_is_settled(tenant: Tenant, receiver: Receiver) -> None:
    """The count the delivery worker keeps (store/recoveries.py), one settled redelivery at a time."""
    hook = _hook(tenant, receiver)
    recoveries.claim(tenant.id, hook, "rcount", _now())
    recoveries.set_queued(tenant.id, hook, "rcount", 3, None)

    def still_running() -> bool:
        return recoveries.running(_stored(tenant, hook).data_dict(), dt.datetime.now(dt.UTC))

    for _ in range(2):
        recoveries.settled(tenant.id, hook, "rcount")
        assert still_running()
    recoveries.settled(tenant.id, hook, "another")  # a later recovery's: not this one's count
    assert still_running()
    recoveries.settled(tenant.id, hook, "rcount")
    assert not still_running()


def test_an_unsettled_recovery_holds_to_the_millisecond_of_its_lease(tenant: Tenant, receiver: Receiver) -> None:
    hook = _hook(tenant, receiver)
    started = _later(seconds=1).replace(microsecond=0)
    with clock_at(started):
        recoveries.claim(tenant.id, hook, "rlease", _now())
        recoveries.set_queued(tenant.id, hook, "rlease", 1, None)  # one redelivery, never settled
    lease = dt.timedelta(hours=recoveries.LEASE_HOURS)
    since = _now()
    with clock_at(started + lease - dt.timedelta(milliseconds=1)):
        assert tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since}).status == 409
    with clock_at(started + lease):
        assert tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since}).status == 200


def test_a_refusal_just_before_midnight_says_retry_after_one_second(
    tenant: Tenant, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config, "RECOVERIES_PER_DAY", 1)
    hook = _hook(tenant, receiver)
    midnight = dt.datetime.now(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0) + dt.timedelta(days=2)
    since = (midnight - dt.timedelta(hours=1)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    with clock_at(midnight - dt.timedelta(milliseconds=500)):
        assert tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since}).status == 200
        refused = tenant.command("webhooks.deliveries.recover", {"webhook": hook, "since": since})
    assert refused.status == 429 and refused.headers["retry-after"] == "1", refused.headers


def _stored(tenant: Tenant, hook: str) -> Any:
    from chalicelib.store.entities import entity_pk
    from chalicelib.store.model import Item

    return Item.get(entity_pk(tenant.id, hook), recoveries.RECOVERY_SK, consistent_read=True)


def test_the_recovery_record_is_the_webhooks_and_its_version_counts_its_claims(
    tenant: Tenant, receiver: Receiver
) -> None:
    """The record names its tenant and webhook and its type, as every item of the table does (the
    tenant's scans and the sandbox reset read them), and its version goes up by one a claim."""
    hook = _hook(tenant, receiver)
    for n in range(3):
        answer = tenant.ok("webhooks.deliveries.recover", {"webhook": hook, "since": _now()})
        assert answer["recovered"] == 0, answer
        stored = _stored(tenant, hook)
        assert (stored.type, stored.tenantId, stored.id, stored.version) == ("recovery", tenant.id, hook, n + 1)


def test_of_two_recoveries_claimed_at_the_same_moment_only_one_starts(
    tenant: Tenant, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each claim reads the record and writes it on the condition that nobody wrote it meanwhile:
    a rival that writes between the read and the write wins, first claim or a later one."""
    from chalicelib.store.model import Item

    real_get = Item.get
    hook = _hook(tenant, receiver)
    for earlier in (False, True):  # no record yet; a finished recovery's record
        if earlier:
            tenant.ok("webhooks.deliveries.recover", {"webhook": hook, "since": _now()})
        rival = f"rrival{int(earlier)}"

        def read_then_rival(*key: Any, rival: str = rival, **options: Any) -> Any:
            try:
                found = real_get(*key, **options)
            except Item.DoesNotExist:
                found = None
            monkeypatch.setattr(Item, "get", real_get)  # the rival reads afresh
            recoveries.claim(tenant.id, hook, rival, _now())  # and writes first
            if found is None:
                raise Item.DoesNotExist()
            return found

        monkeypatch.setattr(Item, "get", read_then_rival)
        with pytest.raises(Conflict) as refused:
            recoveries.claim(tenant.id, hook, f"rlate{int(earlier)}", _now())
        assert refused.value.code == "recovery_running"
        assert refused.value.detail == "Another recovery of this webhook started at the same moment."
        assert _stored(tenant, hook).data_dict()["id"] == rival
        monkeypatch.setattr(Item, "get", real_get)
        recoveries.set_queued(tenant.id, hook, rival, 0, None)  # the rival is done: nothing to send
