"""Sessions that stay ended (issue 28): whatever happens to the member afterwards (removed and
invited again), whichever company the person switches to (the absolute limit counts from the
sign-in with a code), and sign-out everywhere ends the address's sessions in every company.
Also: a code's tries hold under concurrent guesses, and the forms that start a session refuse
a post from another site even from browsers that send no Fetch Metadata."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from chalicelib import config
from chalicelib.store import mailed_codes
from tests.client import Api, Tenant
from tests.console_client import Person, invite, owner_of
from tests.functional.test_console_auth import _address, _member_id, later


def _replay(api: Api, email: str, cookie: str) -> int:
    """The status of the console's start page for a browser holding `cookie`."""
    return Person(api, email, cookies={"pm_session": cookie}).get("/").status


def test_a_removed_person_invited_again_finds_their_old_sessions_ended(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    email = _address("returning")
    laptop = invite(owner, email, "viewer")
    phone = Person(api, email)
    phone.sign_in()
    ended = phone.cookies["pm_session"]
    assert phone.post("/signout/everywhere").status == 303  # the phone's session ends here
    laptop.sign_in()
    live = laptop.cookies["pm_session"]
    assert owner.post(f"/members/{_member_id(owner, email)}/remove").status == 303
    assert _replay(api, email, live) == 303  # removed: no member, no session

    invite(owner, email, "viewer")  # invited again: a new membership, signed in anew
    assert _replay(api, email, live) == 303, "a removed person's session came back with the new invitation"
    assert _replay(api, email, ended) == 303, "a session signed out everywhere came back with the new invitation"


def test_switching_companies_keeps_the_absolute_limit_of_the_sign_in(
    api: Api, tenant: Tenant, other_tenant: Tenant
) -> None:
    email = _address("switcher")
    invite(owner_of(other_tenant), email, "viewer")
    person = invite(owner_of(tenant), email, "viewer")
    companies = [tenant.id, other_tenant.id]
    for step in range(1, 29):  # a switch every 25 minutes: never idle, 11 h 40 min in all
        with later(minutes=25 * step):
            assert person.post(f"/switch/{companies[step % 2]}").status == 303
            assert person.get("/").status == 200  # the new session's page (and its form token)
    with later(hours=12, minutes=5):
        assert person.get("/").status == 303, "switching companies extended the session past 12 hours"


def test_sign_out_everywhere_ends_the_persons_sessions_in_every_company(
    api: Api, tenant: Tenant, other_tenant: Tenant
) -> None:
    email = _address("twofold")
    invite(owner_of(other_tenant), email, "viewer")
    here = invite(owner_of(tenant), email, "viewer")
    there = Person(api, email)
    there.sign_in()
    assert there.post(f"/switch/{_the_other_company(there)}").status == 303
    assert here.get("/").status == 200 and there.get("/").status == 200
    assert here.post("/signout/everywhere").status == 303
    assert there.get("/").status == 303, "the session in the other company outlived sign-out everywhere"


def _the_other_company(person: Person) -> str:
    """The company a person of two companies is not in now (the one the team page offers)."""
    return person.get("/members").html.split('action="/console/switch/', 1)[1].split('"', 1)[0]


def _concurrently(count: int, call: Callable[[], Any]) -> None:
    start = threading.Barrier(count)

    def run() -> None:
        start.wait()
        call()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@pytest.fixture
def comparisons(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every comparison of a typed code with a stored one."""
    seen: list[str] = []
    real = mailed_codes.matches

    def counted(expected: str, subject: str, code: str) -> bool:
        seen.append(code)
        return real(expected, subject, code)

    monkeypatch.setattr(mailed_codes, "matches", counted)
    return seen


def test_concurrent_wrong_sign_in_codes_are_compared_at_most_the_allowed_tries(
    api: Api, tenant: Tenant, comparisons: list[str]
) -> None:
    guesser = Person(api, tenant.email)
    guesser.post("/signin", {"email": tenant.email})
    right = api.mailed_code(tenant.email)
    wrong = {"email": tenant.email, "code": "AAAA-AAAA"}
    _concurrently(40, lambda: Person(api, tenant.email).post("/signin/code", wrong))
    assert len(comparisons) <= config.CODE_ATTEMPTS, f"{len(comparisons)} guesses were compared"
    done = guesser.post("/signin/code", {"email": tenant.email, "code": right})
    assert done.status == 400  # the tries are spent: even the right code fails now


def test_concurrent_wrong_sign_up_codes_are_compared_at_most_the_allowed_tries(
    api: Api, comparisons: list[str]
) -> None:
    email = _address("signup")
    assert api.platform("signup", {"companyName": "Rate GmbH", "email": email, "agentName": "setup"}).status == 200
    right = api.mailed_code(email)
    _concurrently(40, lambda: api.platform("signup.confirm", {"email": email, "code": "AAAA-AAAA"}))
    assert len(comparisons) <= config.CODE_ATTEMPTS, f"{len(comparisons)} guesses were compared"
    assert api.platform("signup.confirm", {"email": email, "code": right}).status == 400


FORMS_BEFORE_A_SESSION = ("/signin", "/signin/code", "/signup", "/signup/confirm")


@pytest.mark.parametrize("path", FORMS_BEFORE_A_SESSION)
def test_a_form_posted_from_another_origin_is_refused_without_fetch_metadata(api: Api, path: str) -> None:
    """Login CSRF: an older browser sends no Sec-Fetch-Site, but it does send Origin."""
    email = _address("csrf")
    body = f"email={email.replace('@', '%40')}&code=AAAA-AAAA&companyName=X&agentName=setup".encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://attacker.example"}
    assert api.request("POST", "/console" + path, body=body, headers=headers).status == 403
    headers["Origin"] = "null"  # a sandboxed frame or a privacy redirect: not this site either
    assert api.request("POST", "/console" + path, body=body, headers=headers).status == 403


def test_a_form_posted_from_the_consoles_own_origin_is_served(api: Api, tenant: Tenant) -> None:
    own = api.base.split("/", 3)
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Origin": f"{own[0]}//{own[2]}"}
    body = f"email={tenant.email.replace('@', '%40')}".encode()
    assert api.request("POST", "/console/signin", body=body, headers=headers).status == 200
