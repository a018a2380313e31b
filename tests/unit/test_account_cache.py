"""What an instance remembers of a tenant and of an integration (account.py): each is read at
most once per TENANT_CACHE_SECONDS, each under its own name, and a tenant is read again at once
after it was forgotten (the operator changed it here)."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from chalicelib import account


@pytest.fixture()
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[float], list[str]]]:
    """The monotonic clock, held, and every read of a tenant or integration record."""
    clock, seen = [1000.0], []
    monkeypatch.setattr(account, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    def tenant(tenant_id: str) -> Any:
        seen.append(tenant_id)
        return SimpleNamespace(data_dict=lambda: {"companyName": tenant_id})

    def integration(integration_id: str) -> dict[str, Any] | None:
        seen.append(integration_id)
        return {"disabled": integration_id == "int_off"} if integration_id != "int_gone" else None

    monkeypatch.setattr(account.keys, "get_tenant", tenant)
    monkeypatch.setattr(account.integrations, "get", integration)
    account._cache.clear()
    yield clock, seen
    account._cache.clear()


def test_a_tenant_is_read_once_per_period_and_each_tenant_is_its_own(reads: tuple[list[float], list[str]]) -> None:
    clock, seen = reads
    assert account.tenant_facts("ten_A") == {"companyName": "ten_A"}
    assert account.tenant_facts("ten_B") == {"companyName": "ten_B"}
    clock[0] = 1000.0 + account.TENANT_CACHE_SECONDS - 0.001
    assert account.tenant_facts("ten_A") == {"companyName": "ten_A"}
    assert seen == ["ten_A", "ten_B"]  # from memory
    clock[0] = 1000.0 + account.TENANT_CACHE_SECONDS  # the period is over
    account.tenant_facts("ten_A")
    assert seen == ["ten_A", "ten_B", "ten_A"]
    account.forget_tenant("ten_A")
    account.tenant_facts("ten_A")
    assert seen == ["ten_A", "ten_B", "ten_A", "ten_A"]  # forgotten: read again at once


def test_an_integration_is_remembered_under_its_own_id_and_one_that_is_gone_counts_as_disabled(
    reads: tuple[list[float], list[str]],
) -> None:
    _, seen = reads
    assert account._integration_facts("int_off") == {"disabled": True}
    assert account._integration_facts("int_on") == {"disabled": False}
    assert account._integration_facts("int_gone") == {"disabled": True}
    assert account._integration_facts("int_on") == {"disabled": False}
    assert seen == ["int_off", "int_on", "int_gone"]
