"""The console's own throttles (issue 29): each anonymous form counts against its source
address's limit (sign-up, sign-in, a sign-in code), and the mail to one address against that
address's limit across sources. Each test shows the request past the limit refused and another
subject (another source, another address) still served, so a limit counted for everyone at once,
or not at all, fails here."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable

import pytest

from chalicelib import throttle
from tests.client import Api, from_source, inside_one_window
from tests.console_client import Person


def _address(tag: str) -> str:
    return f"{tag}-{uuid.uuid4().hex[:10]}@example.org"


def _sources(count: int) -> list[str]:
    """Source addresses no other test uses (each test process draws its own)."""
    return [f"192.0.2.{n}" for n in random.sample(range(1, 255), count)]


@pytest.fixture
def three_per_source(monkeypatch: pytest.MonkeyPatch) -> None:
    """Anonymous forms limited to 3 per source address in 10 minutes (the suite turns it off)."""
    monkeypatch.setenv("PM_SIGNUP_LIMIT", "3/600")
    throttle.reset()
    inside_one_window(600, 30)


def _four_then_another(post: Callable[[], int]) -> tuple[list[int], int]:
    busy, other = _sources(2)
    with from_source(busy):
        statuses = [post() for _ in range(4)]
    with from_source(other):
        return statuses, post()


def test_console_sign_in_requests_are_limited_per_source(api: Api, three_per_source: None) -> None:
    statuses, elsewhere = _four_then_another(
        lambda: Person(api, "x").post("/signin", {"email": _address("signin")}).status
    )
    assert statuses == [200, 200, 200, 429] and elsewhere == 200


def test_console_sign_in_codes_are_limited_per_source(api: Api, three_per_source: None) -> None:
    wrong = {"email": _address("code"), "code": "AAAA-AAAA"}
    statuses, elsewhere = _four_then_another(lambda: Person(api, "x").post("/signin/code", wrong).status)
    assert statuses == [400, 400, 400, 429] and elsewhere == 400  # a wrong code, not a throttle


def test_console_sign_ups_are_limited_per_source(api: Api, three_per_source: None) -> None:
    def sign_up() -> int:
        form = {"companyName": "Drossel GmbH", "email": _address("signup"), "agentName": "setup"}
        return Person(api, "x").post("/signup", form).status

    statuses, elsewhere = _four_then_another(sign_up)
    assert statuses == [200, 200, 200, 429] and elsewhere == 200


def test_mail_to_one_address_is_limited_across_sources_and_another_address_is_served(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PM_ADDRESS_TOTAL_LIMIT", "2/3600")  # per address from all sources; per source off
    throttle.reset()
    inside_one_window(3600, 30)
    wanted, other = api.signup().email, api.signup().email

    def asks(email: str, source: str) -> int:
        with from_source(source):
            return Person(api, email).post("/signin", {"email": email}).status

    first, second, third = _sources(3)
    assert [asks(wanted, first), asks(wanted, second), asks(wanted, third)] == [200, 200, 429]
    assert asks(other, third) == 200, "the limit of one address refused another"
