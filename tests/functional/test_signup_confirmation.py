"""Sign-up confirms the e-mail address (issue 19): nothing exists before the mailed code is
confirmed, a used address answers exactly as a new one, codes are short-lived, single use and
limited in tries, and sign-ups are limited per address and per source address."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from chalicelib import clock, config, mail, throttle
from chalicelib.store import keys, signups, tenants
from chalicelib.store.mailed_codes import code_in
from chalicelib.store.model import Item
from tests.client import Answer, Api, from_source, inside_one_window


def _address() -> str:
    return f"signup-{uuid.uuid4().hex[:12]}@example.org"


def _start(api: Api, email: str, company: str = "Bestätigt GmbH") -> Answer:
    return api.platform("signup", {"companyName": company, "email": email, "agentName": "setup"})


def test_a_used_address_answers_exactly_as_a_new_one_and_its_owner_is_told(api: Api) -> None:
    used = api.signup().email
    fresh = f"{uuid.uuid4().hex[:12]}@example.org"  # as long as `used`: the answers' lengths match too
    first, second = _start(api, fresh), _start(api, used.upper())
    assert (first.status, second.status) == (200, 200)
    strip = {fresh: "<address>", used.upper(): "<address>"}
    same = [{k: v for k, v in a.headers.items() if k not in ("x-request-id", "date")} for a in (first, second)]
    assert same[0] == same[1]
    bodies = [a.body for a in (first, second)]
    for body in bodies:
        body["confirmation"]["sentTo"] = strip[body["confirmation"]["sentTo"]]
    assert bodies[0] == bodies[1]
    told = mail.outbox(to=used, limit=1)[0]
    assert "already" in told.text and not code_in(told.subject + told.text)
    assert code_in(mail.outbox(to=fresh, limit=1)[0].subject)


def test_no_tenant_exists_before_the_address_is_confirmed(api: Api) -> None:
    email, company = _address(), f"Unbestätigt {uuid.uuid4().hex[:6]} GmbH"
    assert _start(api, email, company).status == 200
    assert not keys.address_in_use(email)
    assert company not in {t["companyName"] for t in tenants.all_tenants()}
    confirmed = api.platform("signup.confirm", {"email": email, "code": api.mailed_code(email).lower()})
    assert confirmed.status == 200, confirmed.body
    assert confirmed.body["tenant"]["companyName"] == company and confirmed.body["apiKey"]["key"].startswith("pm_")
    assert keys.address_in_use(email)


def test_a_code_works_once(api: Api) -> None:
    email = _address()
    _start(api, email)
    code = api.mailed_code(email)
    assert api.platform("signup.confirm", {"email": email, "code": code}).status == 200
    again = api.platform("signup.confirm", {"email": email, "code": code})
    assert (again.status, again.body["code"]) == (400, "confirmation_failed")


def test_wrong_codes_are_limited_and_then_even_the_right_one_fails(api: Api) -> None:
    email = _address()
    _start(api, email)
    code = api.mailed_code(email)
    wrong = "AAAA-AAAA" if code != "AAAA-AAAA" else "BBBB-BBBB"
    for _ in range(5):
        answer = api.platform("signup.confirm", {"email": email, "code": wrong})
        assert (answer.status, answer.body["code"]) == (400, "confirmation_failed")
        assert "wrong or no longer valid" in answer.body["detail"]
    assert api.platform("signup.confirm", {"email": email, "code": code}).status == 400
    assert not keys.address_in_use(email)


@contextmanager
def _later(**delta: float) -> Iterator[None]:
    clock.set_clock(lambda: dt.datetime.now(dt.UTC) + dt.timedelta(**delta))
    try:
        yield
    finally:
        clock.set_clock(None)


def test_a_code_expires_after_30_minutes(api: Api) -> None:
    email = _address()
    _start(api, email)
    code = api.mailed_code(email)
    with _later(minutes=31):
        answer = api.platform("signup.confirm", {"email": email, "code": code})
    assert (answer.status, answer.body["code"]) == (400, "confirmation_failed")


def test_a_repeated_sign_up_keeps_the_live_code_and_mails_no_new_one(api: Api) -> None:
    """Before: a second sign-up replaced the first one's code (and its company): anyone could void
    the code a person had just been mailed. A live code stays valid for its lifetime; only its
    hash is stored, so a repeat sends nothing (the first mail's code still counts)."""
    email = _address()
    _start(api, email)
    first = api.mailed_code(email)
    assert _start(api, email, "Zweiter Versuch GmbH").status == 200
    assert len(mail.outbox(to=email)) == 1
    confirmed = api.platform("signup.confirm", {"email": email, "code": first})
    assert confirmed.status == 200 and confirmed.body["tenant"]["companyName"] == "Bestätigt GmbH"


def test_a_sign_up_after_the_code_expired_starts_afresh(api: Api) -> None:
    email = _address()
    _start(api, email)
    first = api.mailed_code(email)
    with _later(minutes=31):
        _start(api, email, "Zweiter Versuch GmbH")
        second = api.mailed_code(email)
        assert second != first or len(mail.outbox(to=email)) == 2
        confirmed = api.platform("signup.confirm", {"email": email, "code": second})
    assert confirmed.body["tenant"]["companyName"] == "Zweiter Versuch GmbH"


def test_a_strangers_sign_ups_neither_lock_out_nor_replace_the_persons_own(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: five sign-ups of an address an hour, from anywhere, made the next one 429, and each
    replaced the code (and the company) of the one before."""
    monkeypatch.setenv("PM_ADDRESS_LIMIT", "5/3600")  # the documented default; the suite turns it off
    throttle.reset()
    inside_one_window(3600, 30)
    email = _address()
    with from_source("198.51.100.8"):
        assert _start(api, email, "Echt GmbH").status == 200
    code = api.mailed_code(email)
    with from_source("203.0.113.67"):
        stranger = [_start(api, email, "Phish GmbH").status for _ in range(6)]
    assert stranger == [200] * 5 + [429]
    with from_source("198.51.100.8"):
        assert _start(api, email, "Echt GmbH").status == 200
        confirmed = api.platform("signup.confirm", {"email": email, "code": code})
    assert confirmed.status == 200 and confirmed.body["tenant"]["companyName"] == "Echt GmbH"


def test_sign_ups_are_limited_per_address_and_source(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PM_ADDRESS_LIMIT", "5/3600")  # the documented default; the suite turns it off
    throttle.reset()
    inside_one_window(3600, 30)
    email = _address()
    statuses = [_start(api, email).status for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    refused = _start(api, email.upper())
    assert refused.status == 429 and refused.body["code"] == "throttled"
    assert refused.body["detail"].startswith("Too many requests for this e-mail address from here (address limit")
    assert int(refused.headers["retry-after"]) >= 1
    assert len(mail.outbox(to=email)) == 1  # the live code was mailed once
    with from_source("198.51.100.9"):
        assert _start(api, email).status == 200  # another source has its own budget


def test_a_total_address_limit_of_one_lets_one_sign_up_through_from_all_sources(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The address's total limit counts from 1 up: a total of 1 serves the first source and
    refuses the next, naming the address as what ran out (issue 29)."""
    monkeypatch.setenv("PM_ADDRESS_TOTAL_LIMIT", "1/3600")
    throttle.reset()
    inside_one_window(3600, 30)
    email = _address()
    with from_source("198.51.100.21"):
        assert _start(api, email).status == 200
    with from_source("203.0.113.21"):
        refused = _start(api, email)
    assert refused.status == 429, refused.body
    assert refused.body["detail"].startswith("Too many requests for this e-mail address (address_total limit: 1 per")
    assert refused.headers["ratelimit-policy"] == '"address_total";q=1;w=3600'


def test_confirm_validates_its_input(api: Api) -> None:
    answer = api.platform("signup.confirm", {"email": "x", "code": "A" * 30})
    assert answer.status == 400 and {e["path"] for e in answer.body["errors"]} == {"email", "code"}


def test_the_last_allowed_wrong_code_ends_the_sign_up(api: Api) -> None:
    """The try that spends the last one deletes the pending sign-up (its company name, its
    address): nothing of it is kept once nothing can confirm it (issue 29: take_try's count)."""
    email = _address()
    _start(api, email)
    code = api.mailed_code(email)
    wrong = "AAAA-AAAA" if code != "AAAA-AAAA" else "BBBB-BBBB"
    for tried in range(1, config.CODE_ATTEMPTS + 1):
        assert api.platform("signup.confirm", {"email": email, "code": wrong}).status == 400
        assert _pending(email) is (tried < config.CODE_ATTEMPTS), f"after {tried} wrong tries"


def _pending(email: str) -> bool:
    try:
        Item.get(signups._pk(email), signups.PENDING_SK, consistent_read=True)
    except Item.DoesNotExist:
        return False
    return True
