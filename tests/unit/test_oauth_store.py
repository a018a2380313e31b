"""What the OAuth authorization server keeps (store/oauth.py): a code is spent once, a refresh token
is rotated once and its replay is told apart, a client unused past its time is forgotten."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest

from chalicelib import clock
from chalicelib.store import oauth
from chalicelib.store.model import Item


@pytest.fixture()
def moment() -> Iterator[list[dt.datetime]]:
    now = [dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.UTC)]
    clock.set_clock(lambda: now[0])
    yield now
    clock.set_clock(None)


def test_a_code_is_spent_once_and_kept_only_as_its_hash(memory_table: None, moment: list[dt.datetime]) -> None:
    code = oauth.mint_code({"tenantId": "ten_A", "scopes": ["read"], "code_challenge": "c"})
    assert oauth.peek_code(code) is not None and oauth.peek_code(code)["scopes"] == ["read"]  # type: ignore[index]
    assert all(code not in str(item.attribute_values) for item in Item.scan())
    assert oauth.redeem_code(code) is True
    assert oauth.redeem_code(code) is False, "a code used twice"
    spent = oauth.peek_code(code)  # kept, spent, until it expires: a second presentation is known as a replay
    assert spent is not None and spent["spent"] is True


def test_a_code_past_its_minutes_grants_nothing(memory_table: None, moment: list[dt.datetime]) -> None:
    code = oauth.mint_code({"tenantId": "ten_A"})
    moment[0] += dt.timedelta(minutes=oauth.CODE_MINUTES, milliseconds=1)
    assert oauth.peek_code(code) is None


def test_a_refresh_token_rotates_once_and_its_replay_is_told_apart(
    memory_table: None, moment: list[dt.datetime]
) -> None:
    first = oauth.new_refresh("ten_A", "grt_1", {"client_id": "ocl_1", "scopes": ["read"]})
    found = oauth.refresh(first)
    assert found is not None and (found.tenant_id, found.grant_id) == ("ten_A", "grt_1")
    outcome, second = oauth.rotate(first, found)
    assert outcome == "rotated" and second is not None and second != first
    assert oauth.refresh(second).data["scopes"] == ["read"]  # type: ignore[union-attr]
    spent = oauth.refresh(first)
    assert spent is not None and spent.data["spent"] is True
    assert oauth.rotate(first, spent) == ("reused", None), "a spent token presented again"
    assert all(first not in str(item.attribute_values) for item in Item.scan())


def test_a_client_unused_for_its_days_is_forgotten_and_use_keeps_it(
    memory_table: None, moment: list[dt.datetime]
) -> None:
    kept, left = "0b6e94-kept", "0b6e94-left"
    oauth.register_client(kept, {"client_name": "Claude", "redirect_uris": ["https://claude.ai/cb"]})
    oauth.register_client(left, {"client_name": "Old", "redirect_uris": ["https://old.example/cb"]})
    moment[0] += dt.timedelta(days=20)
    assert oauth.client(kept)["client_name"] == "Claude"  # type: ignore[index]
    moment[0] += dt.timedelta(days=15)
    assert oauth.client(kept) is not None, "used 15 days ago"
    assert oauth.client(left) is None, "unused for 35 days"


def test_an_authorization_request_lives_its_minutes_and_ends_once_answered(
    memory_table: None, moment: list[dt.datetime]
) -> None:
    request_id = oauth.save_request("ocl_1", {"state": "s", "scopes": ["read"]})
    assert oauth.request(request_id) == {"state": "s", "scopes": ["read"], "client_id": "ocl_1"}
    oauth.end_request(request_id)
    assert oauth.request(request_id) is None
    late = oauth.save_request("ocl_1", {"state": "t"})
    moment[0] += dt.timedelta(minutes=oauth.REQUEST_MINUTES, seconds=1)
    assert oauth.request(late) is None
