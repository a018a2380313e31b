"""Delivery rules that need a clock or DNS: the retry schedule, giving up, disabling after
five days, and refusing non-public targets."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from chalicelib import clock
from chalicelib.events import deliveries, sender
from chalicelib.store.model import ENTITY_SK, Item

T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture()
def frozen(monkeypatch: pytest.MonkeyPatch) -> list[dt.datetime]:
    now = [T0]
    clock.set_clock(lambda: now[0])
    monkeypatch.setenv("PM_WEBHOOK_RETRY_SCALE", "1")
    yield now
    clock.set_clock(None)


def _pending(memory_table: None) -> Item:
    Item("ten_A#whk_1", ENTITY_SK, type="webhook", tenantId="ten_A", id="whk_1", data={"enabled": True, "url": "https://x.example"}).save()
    body = {"id": "evt_1", "type": "contact.created", "timestamp": clock.now_iso(), "tenantId": "ten_A", "data": {}}
    assert deliveries.create("ten_A", "whk_1", body, entity_key="contact#con_1")
    return Item.get("ten_A#whk_1", "delivery#evt_1")


def test_failures_follow_the_schedule_and_honour_retry_after(memory_table: None, frozen: list[dt.datetime]) -> None:
    item = _pending(memory_table)
    deliveries.settle(item, {"statusCode": 503})
    assert item.data_dict()["nextAttemptAt"] == clock.iso(T0 + dt.timedelta(seconds=5))
    deliveries.settle(item, {"statusCode": 429, "retryAfter": 3600})
    assert item.data_dict()["nextAttemptAt"] == clock.iso(T0 + dt.timedelta(hours=1))  # longer than the 5 min step
    assert item.data_dict()["attempts"] == 2 and item.data_dict()["status"] == "pending"


def test_gives_up_after_the_last_step(memory_table: None, frozen: list[dt.datetime]) -> None:
    item = _pending(memory_table)
    for _ in range(len(deliveries.SCHEDULE) + 1):
        deliveries.settle(item, {"statusCode": 500})
    assert item.data_dict()["status"] == "failed" and item.data_dict()["attempts"] == 8
    assert item.gsi1pk is None  # no longer due


def test_five_days_of_failures_disable_the_webhook(memory_table: None, frozen: list[dt.datetime]) -> None:
    item = _pending(memory_table)
    deliveries.settle(item, {"statusCode": 500, "error": "HTTP 500"})
    frozen[0] = T0 + dt.timedelta(days=5, minutes=1)
    deliveries.settle(item, {"statusCode": 500, "error": "HTTP 500"})
    hook = Item.get("ten_A#whk_1", ENTITY_SK).data_dict()
    assert hook["enabled"] is False and "5 days" in hook["disabledReason"]
    assert item.data_dict()["status"] == "failed"


@pytest.mark.parametrize("host", ["10.1.2.3", "169.254.169.254", "127.0.0.1", "192.168.0.10", "[::1]"])
def test_non_public_targets_are_refused(host: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PM_ALLOW_LOOPBACK_WEBHOOKS", "0")
    assert sender.unsafe_target(f"https://{host}/hook") is not None
    outcome = sender.send(f"https://{host}/hook", json.dumps({}), "evt_1", "whsec_" + "A" * 32, None)
    assert outcome["statusCode"] is None and "non-public" in outcome["error"]


def test_loopback_is_allowed_in_the_local_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PM_ALLOW_LOOPBACK_WEBHOOKS", "1")
    assert sender.unsafe_target("http://127.0.0.1:9/hook") is None
