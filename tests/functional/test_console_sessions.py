"""Sessions that stay ended (issue 28): whatever happens to the member afterwards (removed and
invited again), whichever company the person switches to (the absolute limit counts from the
sign-in with a code), and sign-out everywhere ends the address's sessions in every company.
Also: a code's tries hold under concurrent guesses, and the forms that start a session refuse
a post from another site even from browsers that send no Fetch Metadata.

The bounds of a session to the millisecond (issue 29, mutation testing of store/sessions.py and
console/auth.py): the idle and absolute limits, the once-a-minute write of its last use, the
cookie's length, a session ended between its check and its touch, sessions stored before issue
28 (without signedInAt), and where a browser without a live session is sent."""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from chalicelib import clock, config, mail
from chalicelib.codeformat import ALPHABET
from chalicelib.store import mailed_codes, members, sessions
from chalicelib.store.model import Item
from tests.client import Api, Tenant
from tests.console_client import Page, Person, invite, owner_of
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


# --- the bounds of a session (issue 29) -------------------------------------------------------

SIGN_IN = "/console/signin"
EXPIRED = "/console/signin?expired=1"


class Frozen:
    """The service's clock, held still and moved by hand (to the millisecond)."""

    def __init__(self) -> None:
        self.start = dt.datetime.now(dt.UTC).replace(microsecond=0)
        self.now = self.start

    def at(self, **since_start: float) -> None:
        self.now = self.start + dt.timedelta(**since_start)


@pytest.fixture
def frozen() -> Iterator[Frozen]:
    held = Frozen()
    clock.set_clock(lambda: held.now)
    try:
        yield held
    finally:
        clock.set_clock(None)


def _stored_session(cookie: str) -> Item:
    return Item.get(sessions._pk(sessions._hash(cookie)), "session", consistent_read=True)


def _is_stored(cookie: str) -> bool:
    try:
        _stored_session(cookie)
    except Item.DoesNotExist:
        return False
    return True


def _ended(page: Page) -> bool:
    """The answer to a browser whose session has ended: to sign-in, saying so, its cookie cleared."""
    return page.status == 303 and page.location == EXPIRED and "pm_session=;" in page.headers.get("set-cookie", "")


def test_a_session_lives_to_the_millisecond_of_its_idle_limit(api: Api, tenant: Tenant, frozen: Frozen) -> None:
    owner = owner_of(tenant)  # signed in at the start
    frozen.at(minutes=30)  # idle exactly 30 minutes: still alive (and now touched)
    assert owner.get("/").status == 200, "a session idle exactly 30 minutes was ended"
    frozen.at(minutes=60, milliseconds=1)  # idle 30 minutes and a millisecond
    cookie = owner.cookies["pm_session"]
    assert _ended(owner.get("/")) and not _is_stored(cookie)


def test_a_session_lives_to_the_millisecond_of_its_absolute_limit(api: Api, tenant: Tenant, frozen: Frozen) -> None:
    owner = owner_of(tenant)
    for step in range(1, 25):  # a visit every 30 minutes: never idle too long, the last at 12 h exactly
        frozen.at(minutes=30 * step)
        assert owner.get("/").status == 200, f"ended at {30 * step} minutes"
    frozen.at(hours=12, milliseconds=1)
    assert _ended(owner.get("/"))


def test_a_visit_within_a_minute_of_the_last_written_use_is_not_written(
    api: Api, tenant: Tenant, frozen: Frozen
) -> None:
    """lastSeenAt is written at most once a minute: a visit up to 60 s after it leaves it (the
    idle limit counts on from the sign-in); one 60 s and a millisecond after it moves it."""
    quiet, busy = owner_of(tenant), owner_of(tenant)  # both signed in at the start
    frozen.at(seconds=30)
    assert quiet.get("/").status == 200
    frozen.at(seconds=60)
    assert quiet.get("/").status == 200
    assert _stored_session(quiet.cookies["pm_session"]).data_dict()["lastSeenAt"] == clock.iso(frozen.start)
    frozen.at(seconds=60, milliseconds=1)
    assert busy.get("/").status == 200
    frozen.at(minutes=30, milliseconds=1)
    assert _ended(quiet.get("/")), "a visit a minute after the sign-in restarted the idle limit"
    assert busy.get("/").status == 200, "a visit a minute and a millisecond after the sign-in was not written"


def test_a_session_ended_between_its_check_and_its_touch_serves_nothing(
    api: Api, tenant: Tenant, frozen: Frozen, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sign-out (elsewhere) landing after the session was read and before its last use is
    written: the page is not served, and the write does not bring the session back."""
    owner = owner_of(tenant)
    cookie = owner.cookies["pm_session"]
    real = members.get
    ended: list[str] = []

    def signed_out_meanwhile(email: str, tenant_id: str) -> members.Item | None:
        found = real(email, tenant_id)  # the session was read; its member is checked now
        if not ended:
            ended.append(cookie)
            sessions.end(cookie)
        return found

    monkeypatch.setattr(members, "get", signed_out_meanwhile)
    frozen.at(minutes=2)  # its last use is older than a minute: this visit writes it
    assert _ended(owner.get("/")), "a page was served to a session ended before its use was written"
    assert ended == [cookie] and not _is_stored(cookie)
    monkeypatch.undo()
    owner.cookies["pm_session"] = cookie
    assert owner.get("/").status == 303


@pytest.mark.parametrize("field", ["signedInAt", "lastSeenAt"])
def test_a_stored_session_without_its_sign_in_or_last_use_counts_as_ended(api: Api, tenant: Tenant, field: str) -> None:
    """Sessions stored before issue 28 have no signedInAt: they end (they cannot show that they
    are younger than 12 hours). One without lastSeenAt cannot show it was used in the last 30
    minutes."""
    owner = owner_of(tenant)
    cookie = owner.cookies["pm_session"]
    Item(sessions._pk(sessions._hash(cookie)), "session").update(actions=[Item.data[field].remove()])
    assert _ended(owner.get("/")) and not _is_stored(cookie)


def _token_of_length(length: int) -> str:
    return (uuid.uuid4().hex * 4)[:length]


@pytest.mark.parametrize(("length", "served"), [(100, True), (101, False)])
def test_a_session_cookie_is_at_most_100_characters(
    api: Api, tenant: Tenant, monkeypatch: pytest.MonkeyPatch, length: int, served: bool
) -> None:
    """A longer cookie is refused before it is hashed or looked up, even if a session were
    stored under it (ours are 43 characters; here the service is made to issue one of `length`)."""
    token = _token_of_length(length)
    monkeypatch.setattr(sessions, "secrets", SimpleNamespace(token_urlsafe=lambda _size: token))
    person = Person(api, tenant.email)
    person.post("/signin", {"email": tenant.email})
    done = person.post("/signin/code", {"email": tenant.email, "code": api.mailed_code(tenant.email)})
    assert done.status == 303 and person.cookies["pm_session"] == token and _is_stored(token)
    page = person.get("/")
    assert page.status == 200 if served else _ended(page), f"a cookie of {length} characters"


def test_a_stale_cookie_lands_on_sign_in_saying_so_and_no_cookie_without_a_word(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    cookie = owner.cookies["pm_session"]
    assert owner.post("/signout").status == 303
    stale = Person(api, tenant.email, cookies={"pm_session": cookie}).get("/members")
    assert _ended(stale), (stale.status, stale.location, stale.headers.get("set-cookie"))
    assert "Your session has ended" in Person(api, tenant.email).get(EXPIRED.removeprefix("/console")).text()
    fresh = Person(api, tenant.email).get("/members")  # a browser that never signed in
    assert (fresh.status, fresh.location) == (303, SIGN_IN)
    assert "pm_session" not in fresh.headers.get("set-cookie", ""), "no session cookie, only the way back (pm_next)"


# --- the cookie, the codes and the stored records (issue 29, the finished run's survivors) ----


def _cookie_header(page: Page) -> str:
    return next(line for line in page.headers.get("set-cookie", "").split("\n") if line.startswith("pm_session="))


def test_the_session_cookie_lives_as_long_as_a_session_may(api: Api, tenant: Tenant) -> None:
    """Max-Age is the absolute limit (12 h): without it the cookie ends with the browser, a
    session the person meant to keep."""
    person = Person(api, tenant.email)
    person.post("/signin", {"email": tenant.email})
    done = person.post("/signin/code", {"email": tenant.email, "code": api.mailed_code(tenant.email)})
    assert done.status == 303 and "Max-Age=43200" in _cookie_header(done).split("; ")


def test_the_welcome_page_of_a_sign_up_carries_the_new_sessions_form_token(api: Api) -> None:
    """The page answered by the sign-in itself (the sign-up's welcome) has forms (sign-out): they
    carry the token of the session just started."""
    email = _address("welcome")
    person = Person(api, email)
    person.post("/signup", {"companyName": "Willkommen GmbH", "email": email, "agentName": "setup"})
    welcome = person.post("/signup/confirm", {"email": email, "code": api.mailed_code(email)})
    assert welcome.status == 200 and person.csrf == sessions.csrf_token(person.cookies["pm_session"])
    assert "Max-Age=43200" in _cookie_header(welcome).split("; ")
    assert person.post("/signout").status == 303  # with the welcome page's token
    assert person.get("/").location == SIGN_IN


def test_the_right_sign_in_code_works_on_the_last_allowed_try(api: Api, tenant: Tenant) -> None:
    """Each try counts once, from zero: after CODE_ATTEMPTS - 1 wrong ones the right one still works."""
    person = Person(api, tenant.email)
    person.post("/signin", {"email": tenant.email})
    code = api.mailed_code(tenant.email)
    wrong = "AAAA-AAAA" if code != "AAAA-AAAA" else "BBBB-BBBB"
    for _ in range(config.CODE_ATTEMPTS - 1):
        assert person.post("/signin/code", {"email": tenant.email, "code": wrong}).status == 400
    assert person.post("/signin/code", {"email": tenant.email, "code": code}).status == 303


def _mails_to(email: str) -> int:
    return len(mail.outbox(to=email))


def test_a_sign_in_code_lives_to_the_millisecond_of_its_lifetime(
    api: Api, tenant: Tenant, other_tenant: Tenant, frozen: Frozen
) -> None:
    """A code counts for SIGNIN_CODE_MINUTES to the millisecond: until then a new request mails
    nothing (the code stays the one to use), a millisecond later it is refused and a request mails
    a new one."""
    exact, late = Person(api, tenant.email), Person(api, other_tenant.email)
    exact.post("/signin", {"email": tenant.email})
    late.post("/signin", {"email": other_tenant.email})
    codes = api.mailed_code(tenant.email), api.mailed_code(other_tenant.email)
    before = _mails_to(tenant.email), _mails_to(other_tenant.email)
    frozen.at(minutes=config.SIGNIN_CODE_MINUTES)
    assert exact.post("/signin", {"email": tenant.email}).status == 200
    assert _mails_to(tenant.email) == before[0], "a code was replaced at the last millisecond of its lifetime"
    assert exact.post("/signin/code", {"email": tenant.email, "code": codes[0]}).status == 303
    frozen.at(minutes=config.SIGNIN_CODE_MINUTES, milliseconds=1)
    assert late.post("/signin/code", {"email": other_tenant.email, "code": codes[1]}).status == 400
    assert late.post("/signin", {"email": other_tenant.email}).status == 200
    assert _mails_to(other_tenant.email) == before[1] + 1


def test_of_two_requests_with_the_right_code_only_one_signs_in(
    api: Api, tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another request redeems the code between this one's comparison and its use of the code:
    the code was used once, so this one is refused."""
    person = Person(api, tenant.email)
    person.post("/signin", {"email": tenant.email})
    code = api.mailed_code(tenant.email)
    real = mailed_codes.matches
    other: list[bool] = []

    def used_meanwhile(expected: str, subject: str, typed: str) -> bool:
        right = real(expected, subject, typed)
        if not other:
            other.append(False)
            other[0] = sessions.redeem_code(tenant.email, code)  # the other request, all of it
        return right

    monkeypatch.setattr(mailed_codes, "matches", used_meanwhile)
    done = person.post("/signin/code", {"email": tenant.email, "code": code})
    assert other == [True] and done.status == 400, "one code signed in twice"


def test_a_sign_in_code_is_typed_in_any_case_with_or_without_its_dash_but_every_symbol_counts(
    api: Api, tenant: Tenant
) -> None:
    person = Person(api, tenant.email)
    person.post("/signin", {"email": tenant.email})
    code = api.mailed_code(tenant.email)
    fifth = code[5]  # the first symbol after the dash
    other = next(ch for ch in ALPHABET if ch != fifth)
    for typed in (code[:5] + other + code[6:], code.replace("-", "")[:4] + other + code[6:]):
        assert person.post("/signin/code", {"email": tenant.email, "code": typed}).status == 400, typed
    typed = f" {code[:4].lower()} {code[5:].lower()} "
    assert person.post("/signin/code", {"email": tenant.email, "code": typed}).status == 303


def test_the_stored_code_and_session_are_removed_only_after_they_end(api: Api, tenant: Tenant, frozen: Frozen) -> None:
    """DynamoDB's TTL (expiresAt) deletes an item, late but never before that moment: a sign-in
    code's after its lifetime, a session's at its absolute limit from the sign-in."""
    person = Person(api, tenant.email)
    person.post("/signin", {"email": tenant.email})
    stored = Item.get(sessions._code_pk(tenant.email), "code", consistent_read=True)
    assert stored.expiresAt is not None
    assert stored.expiresAt > frozen.start + dt.timedelta(minutes=config.SIGNIN_CODE_MINUTES)
    frozen.at(minutes=5)
    person.post("/signin/code", {"email": tenant.email, "code": api.mailed_code(tenant.email)})
    session = _stored_session(person.cookies["pm_session"])
    assert session.expiresAt == frozen.now + dt.timedelta(hours=sessions.ABSOLUTE_HOURS)


def test_a_sign_in_code_that_cannot_show_its_age_counts_for_nothing(api: Api, tenant: Tenant) -> None:
    """A code item without createdAt (none is written so; a guard against a partial write)
    is not live: the right code is refused."""
    person = Person(api, tenant.email)
    person.post("/signin", {"email": tenant.email})
    Item(sessions._code_pk(tenant.email), "code").update(actions=[Item.createdAt.remove()])
    assert person.post("/signin/code", {"email": tenant.email, "code": api.mailed_code(tenant.email)}).status == 400


def test_the_audit_trail_names_a_console_user_by_name_else_by_member_id(api: Api, tenant: Tenant, stack: Any) -> None:
    """What a person changes in the console is theirs in the trail: by their name, or (nameless)
    by their member id, never by their e-mail address (console/auth.context_of)."""
    owner = owner_of(tenant)
    nameless = _address("nameless")
    named = invite(owner, _address("named"), "admin", name="Eva Muster")
    people = {"Named": named, "Nameless": invite(owner, nameless, "admin", name="")}
    for label, person in people.items():
        person.get("/webhooks/new")
        form = [("name", f"{label} hook"), ("url", f"https://example.org/hooks/{label}"), ("events", "unit.deleted")]
        assert person.post("/webhooks", form).status == 201
    assert stack.poller.wait_idle(15), "the change stream did not catch up"
    trail = tenant.get("audit.list", {"limit": 1000, "offset": 0})["auditRecords"]
    actors = {r["after"]["data"]["name"]: r["actor"] for r in trail if r["entityType"] == "webhook" and r["after"]}
    assert actors["Named hook"]["agentName"] == "Eva Muster"
    assert actors["Nameless hook"]["agentName"] == _member_id(owner, nameless) == actors["Nameless hook"]["keyId"]
