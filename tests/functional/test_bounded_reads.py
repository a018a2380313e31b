"""Every filter and count that could walk without bound stops at a documented size (issue 16,
finding 8): list totals and the request-log count at config.COUNT_LIMIT (then
`pagination.capped`), the audit `operation` filter at config.AUDIT_OPERATION_SCAN records,
audit.revert by filter at config.REVERT_RECORD_LIMIT changes. Totals stay exact within them.

The caps are lowered here (the app runs in this process) so a handful of records reaches them;
before, every read went on to the last key."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib import config
from tests.client import Tenant


@pytest.fixture()
def settled(stack: Any) -> Any:
    def wait() -> None:
        assert stack.poller.wait_idle(15), "the change stream did not catch up"

    return wait


def test_a_list_total_counts_up_to_the_cap_and_says_so(tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(5):
        tenant.contact(lastName=f"Zähler {n}")
    exact = tenant.get("contacts", {"limit": 2, "offset": 0})["pagination"]
    assert exact == {"total": 5, "limit": 2, "offset": 0, "nextOffset": 2}  # within the cap: exact, no flag
    monkeypatch.setattr(config, "COUNT_LIMIT", 3)
    capped = tenant.get("contacts", {"limit": 2, "offset": 0})
    assert (
        capped["pagination"] == {"total": 3, "limit": 2, "offset": 0, "capped": True, "nextOffset": 2}
        and len(capped["contacts"]) == 2
    )
    assert tenant.get("contacts", {"limit": 2, "offset": 2})["contacts"][0]["lastName"] == "Zähler 2"


def test_the_request_log_count_stops_at_the_cap(tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    for _ in range(4):
        tenant.get("info")
    key_id = tenant.signup_answer["apiKey"]["id"]
    monkeypatch.setattr(config, "COUNT_LIMIT", 3)
    page = tenant.get("apikeys.requests.list", {"apiKey": key_id, "limit": 2, "offset": 0})
    assert (
        page["pagination"] == {"total": 3, "limit": 2, "offset": 0, "capped": True, "nextOffset": 2}
        and len(page["requests"]) == 2
    )
    assert (
        tenant.get("apikeys.requests.list", {"apiKey": key_id, "limit": 2, "offset": 3})["requests"] == []
    )  # past the cap: nothing read


def test_the_audit_operation_filter_reads_a_bounded_number_of_records(
    tenant: Tenant, settled: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(4):
        tenant.contact(lastName=f"Prüfung {n}")
    tenant.ok("objects.create", {"object": {"name": "Haus", "type": "weg"}})
    settled()
    monkeypatch.setattr(config, "AUDIT_OPERATION_SCAN", 3)
    broad = tenant.query("audit.list", {"operation": "contacts.create", "limit": 10, "offset": 0})
    assert broad.status == 400 and broad.body["code"] == "filter_too_broad"
    assert broad.body["errors"][0]["path"] == "operation" and "at most 3" in broad.body["detail"]
    monkeypatch.setattr(config, "AUDIT_OPERATION_SCAN", 10)
    assert (
        tenant.get("audit.list", {"operation": "contacts.create", "limit": 10, "offset": 0})["pagination"]["total"] == 4
    )


def test_a_revert_by_filter_undoes_a_bounded_number_of_changes(
    tenant: Tenant, settled: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = [tenant.contact(lastName=f"Rücknahme {n}") for n in range(3)]
    settled()
    monkeypatch.setattr(config, "REVERT_RECORD_LIMIT", 2)
    key_id = tenant.signup_answer["apiKey"]["id"]
    answer = tenant.command("audit.revert", {"filter": {"keyId": key_id}})
    assert (
        answer.status == 400
        and answer.body["code"] == "filter_too_broad"
        and "Revert in parts" in answer.body["detail"]
    )
    assert all(tenant.query("contacts.show", {"contact": c["id"]}).status == 200 for c in created)  # nothing reverted
    monkeypatch.setattr(config, "REVERT_RECORD_LIMIT", 10)
    reverted = tenant.ok("audit.revert", {"filter": {"keyId": key_id}})["reverted"]
    assert {r["entityId"] for r in reverted} == {c["id"] for c in created}
