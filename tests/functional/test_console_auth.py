"""The console's doors (issue 19): sign-up and its confirmation, the first key shown once,
sign-in with a mailed code, sessions (cookie flags, idle and absolute expiry, sign-out and
sign-out everywhere), form tokens, security headers, and the team's roles."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from chalicelib import clock, mail, throttle
from chalicelib.console import web
from chalicelib.console.app import load_pages
from tests.client import Api, Tenant, from_source, inside_one_window
from tests.console_client import Page, Person, invite, owner_of
from tests.eventually import eventually


def _address(tag: str = "person") -> str:
    return f"{tag}-{uuid.uuid4().hex[:10]}@example.org"


@contextmanager
def later(**delta: float) -> Iterator[None]:
    clock.set_clock(lambda: dt.datetime.now(dt.UTC) + dt.timedelta(**delta))
    try:
        yield
    finally:
        clock.set_clock(None)


def test_sign_up_in_the_console_shows_the_first_key_once_and_signs_the_owner_in(api: Api) -> None:
    email = _address("owner")
    person = Person(api, email)
    assert person.get("/signup").status == 200
    sent = person.post(
        "/signup", {"companyName": "Konsole GmbH", "name": "Eva Muster", "email": email, "agentName": "setup"}
    )
    assert sent.status == 200 and "Check your mailbox" in sent.text() and email in sent.text()
    welcome = person.post("/signup/confirm", {"email": email, "code": api.mailed_code(email)})
    assert welcome.status == 200 and welcome.secret and welcome.secret.startswith("pm_test_")
    cookie = welcome.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/console" in cookie
    key = welcome.secret
    assert Tenant(api, "", key, {}).get("info")["tenant"]["companyName"] == "Konsole GmbH"
    overview = person.get("/")
    assert "Konsole GmbH" in overview.text() and "Eva Muster (Owner)" in overview.text()
    assert key not in overview.html and person.get("/").secret is None  # shown once, never again


def test_the_mail_link_fills_the_form_and_only_the_button_confirms(api: Api) -> None:
    email = _address("link")
    person = Person(api, email)
    person.post("/signup", {"companyName": "Link GmbH", "email": email, "agentName": "setup"})
    code = api.mailed_code(email)
    link = next(
        line for line in mail.outbox(to=email, limit=1)[0].text.splitlines() if "/console/signup/confirm?" in line
    )
    path = link.split("/console", 1)[1].strip()
    form = person.get(path)
    assert form.status == 200 and f'value="{code}"' in form.html
    assert Person(api, email).post("/signup/confirm", {"email": email, "code": code}).secret


def test_a_wrong_confirmation_code_shows_a_readable_message(api: Api) -> None:
    email = _address("wrong")
    person = Person(api, email)
    person.post("/signup", {"companyName": "Falsch GmbH", "email": email, "agentName": "setup"})
    failed = person.post("/signup/confirm", {"email": email, "code": "AAAA-AAAA"})
    assert failed.status == 400 and "wrong or no longer valid" in failed.text() and failed.secret is None


def test_sign_up_form_errors_are_readable(api: Api) -> None:
    page = Person(api, "x").post("/signup", {"companyName": "", "email": "nope", "agentName": "setup"})
    assert page.status == 400 and "companyName" in page.text() and "email" in page.text()


def test_sign_in_answers_alike_for_unknown_addresses_and_mails_only_members(api: Api, tenant: Tenant) -> None:
    stranger = _address("stranger")
    known = Person(api, tenant.email).post("/signin", {"email": tenant.email})
    unknown = Person(api, stranger).post("/signin", {"email": stranger})
    assert known.status == unknown.status == 200
    assert known.text().replace(tenant.email, "@") == unknown.text().replace(stranger, "@")
    assert mail.outbox(to=stranger) == []


def test_a_sign_in_code_works_once_and_wrong_ones_are_limited(api: Api, tenant: Tenant) -> None:
    person = Person(api, tenant.email)
    person.post("/signin", {"email": tenant.email})
    code = api.mailed_code(tenant.email)
    for _ in range(5):
        assert person.post("/signin/code", {"email": tenant.email, "code": "AAAA-AAAA"}).status == 400
    assert person.post("/signin/code", {"email": tenant.email, "code": code}).status == 400  # too many tries
    person.post("/signin", {"email": tenant.email})
    fresh = api.mailed_code(tenant.email)
    assert person.post("/signin/code", {"email": tenant.email, "code": fresh}).status == 303
    assert Person(api, tenant.email).post("/signin/code", {"email": tenant.email, "code": fresh}).status == 400


OWNER_SOURCE, STRANGER_SOURCE = "198.51.100.7", "203.0.113.66"


def test_a_strangers_sign_in_requests_neither_lock_the_person_out_nor_void_their_code(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: five anonymous requests an hour made the person's next one 429, and each replaced
    the code just mailed."""
    monkeypatch.setenv("PM_ADDRESS_LIMIT", "5/3600")  # the documented default; the suite turns it off
    throttle.reset()
    inside_one_window(3600, 30)
    email = api.signup().email
    person = Person(api, email)
    with from_source(OWNER_SOURCE):
        assert person.post("/signin", {"email": email}).status == 200
    code = api.mailed_code(email)
    with from_source(STRANGER_SOURCE):
        stranger = [Person(api, email).post("/signin", {"email": email}).status for _ in range(6)]
    assert stranger == [200] * 5 + [429]  # the stranger spent the budget of their own source only
    with from_source(OWNER_SOURCE):
        assert person.post("/signin", {"email": email}).status == 200
        assert person.post("/signin/code", {"email": email, "code": code}).status == 303  # the mailed code still works
    assert [code in m.subject + m.text for m in mail.outbox(to=email)].count(True) == 1  # mailed once, never replaced


def test_a_source_that_signed_in_before_passes_when_strangers_filled_the_addresss_limit(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many sources together meet a limit per address too (no mailbox is flooded from a botnet);
    a source that proved the mailbox before is let through it."""
    monkeypatch.setenv("PM_ADDRESS_LIMIT", "2/3600")
    monkeypatch.setenv("PM_ADDRESS_TOTAL_LIMIT", "4/3600")  # the owner's first request counted too
    throttle.reset()
    inside_one_window(3600, 30)
    email = api.signup().email
    with from_source(OWNER_SOURCE):
        Person(api, email).sign_in()

    def asks(source: str) -> int:
        with from_source(source):
            return Person(api, email).post("/signin", {"email": email}).status

    assert [asks("203.0.113.1"), asks("203.0.113.1"), asks("203.0.113.2")] == [200, 200, 200]
    assert asks("203.0.113.3") == 429  # the address's limit across sources is full
    assert asks(OWNER_SOURCE) == 200  # the source that signed in before passes


def test_one_companys_invitations_do_not_use_up_another_companys(
    api: Api, tenant: Tenant, other_tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: invitations counted per address alone, so one company could keep every other from
    inviting a person."""
    monkeypatch.setenv("PM_ADDRESS_LIMIT", "1/3600")
    throttle.reset()
    inside_one_window(3600, 30)
    email = _address("wanted")
    first, second = owner_of(tenant), owner_of(other_tenant)
    assert first.post("/members", {"email": email, "role": "viewer"}).status == 303
    assert first.post(f"/members/{_member_id(first, email)}/remove").status == 303
    assert first.post("/members", {"email": email, "role": "viewer"}).status == 429  # this company's budget
    assert second.post("/members", {"email": email, "role": "viewer"}).status == 303


def test_pages_need_a_session(api: Api) -> None:
    for path in ("/", "/keys", "/webhooks", "/activity", "/members", "/data/contacts"):
        page = Person(api, "nobody@example.org").get(path)
        assert page.status == 303 and page.location.startswith("/console/signin"), path


def test_every_page_carries_the_security_headers(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    for page in (owner.get("/"), owner.get("/members"), Person(api, "x").get("/signup"), owner.get("/nowhere")):
        policy = page.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy and "unsafe" not in policy
        assert page.headers["x-frame-options"] == "DENY" and page.headers["cache-control"] == "no-store"


def test_forms_without_the_session_token_or_from_another_site_are_refused(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    token, owner.csrf = owner.csrf, ""
    refused = owner.post("/members", {"email": _address(), "role": "viewer"})
    assert refused.status == 403 and "expired or did not come from this site" in refused.text()
    forged = owner.post("/members", {"email": _address(), "role": "viewer", "csrf": "0" * 40})
    assert forged.status == 403
    owner.csrf = token
    headers = {
        "Cookie": f"pm_session={owner.cookies['pm_session']}",
        "Sec-Fetch-Site": "cross-site",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    body = f"email=x%40example.org&role=viewer&csrf={token}".encode()
    assert api.request("POST", "/console/members", body=body, headers=headers).status == 403


def test_sign_out_ends_the_session(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    cookie = owner.cookies["pm_session"]
    done = owner.post("/signout")
    assert done.status == 303 and "pm_session" not in owner.cookies
    owner.cookies["pm_session"] = cookie  # the old cookie, replayed
    assert owner.get("/").status == 303


def test_sign_out_everywhere_ends_every_session_of_the_person(api: Api, tenant: Tenant) -> None:
    laptop, phone = owner_of(tenant), owner_of(tenant)
    assert phone.post("/signout/everywhere").status == 303
    assert laptop.get("/").status == 303
    assert owner_of(tenant).get("/").status == 200  # signing in again works


def test_sessions_end_when_idle_and_after_twelve_hours(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    with later(minutes=31):
        assert owner.get("/").status == 303
    busy = owner_of(tenant)
    for minutes in (25, 50, 75):  # active every 25 minutes: the idle limit never strikes
        with later(minutes=minutes):
            assert busy.get("/").status == 200
    with later(hours=12, minutes=5):
        assert busy.get("/").status == 303


def test_owners_invite_colleagues_who_sign_in_with_their_role(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    colleague = _address("admin")
    admin = invite(owner, colleague, "admin")
    assert "(Admin)" in admin.get("/").text()
    invitation = mail.outbox(to=colleague)[-1]
    assert "Hausverwaltung Test GmbH" in invitation.text and "/console/signin" in invitation.text
    team = owner.get("/members").text()
    assert colleague in team and "active" in team
    refused = admin.post("/members", {"email": _address(), "role": "owner"})
    assert refused.status == 403  # admins do not manage the team


def test_a_viewer_cannot_change_anything(api: Api, tenant: Tenant) -> None:
    viewer = invite(owner_of(tenant), _address("viewer"), "viewer")
    load_pages()
    changes = [route for route in web.ROUTES if route.method == "POST" and not route.public and route.role != "viewer"]
    assert len(changes) >= 3
    for route in changes:
        path = route.pattern.pattern.strip("^$")
        path = path.replace("(?P<", "{").replace(">[A-Za-z0-9_.-]{1,100})", "}")
        for name in route.pattern.groupindex:
            path = path.replace("{" + name + "}", "x_1")
        assert viewer.post(path, {"email": _address(), "role": "owner"}).status == 403, path
    assert viewer.get("/members").status == 200


def _member_id(owner: Person, email: str) -> str:
    """The member id in the team table's row of `email` (its forms' actions name it)."""
    row = next(row for row in owner.get("/members").html.split("<tr>") if f"<td>{email}</td>" in row)
    return row.split('action="/console/members/', 1)[1].split("/", 1)[0]


def test_a_role_change_ends_the_persons_sessions_and_the_last_owner_stays(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    email = _address("promoted")
    viewer = invite(owner, email, "viewer")
    assert owner.post(f"/members/{_member_id(owner, email)}/role", {"role": "admin"}).status == 303
    assert viewer.get("/").status == 303  # signed out: the next sign-in carries the new role
    last = owner.post(f"/members/{_member_id(owner, tenant.email)}/role", {"role": "viewer"})
    assert last.status == 409 and "at least one owner" in last.text()


def test_team_changes_are_in_the_audit_trail_attributed_to_the_owner(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    email = _address("audited")
    invite(owner, email, "viewer")
    member_id = _member_id(owner, email)
    owner.post(f"/members/{member_id}/role", {"role": "admin"})
    owner.post(f"/members/{member_id}/remove")
    assert email not in owner.get("/members").text()

    def trail() -> list[dict[str, object]]:
        found = tenant.get("audit.list", {"entityId": member_id, "limit": 10, "offset": 0})["auditRecords"]
        return found if len(found) >= 4 else []

    records = eventually(trail, message="the team's changes in the audit trail")
    assert [(r["entityType"], r["action"], r["operation"]) for r in records] == [
        ("member", "created", "console.members.invite"),
        ("member", "updated", "console.members.accept"),  # the invited person accepted, after signing in
        ("member", "updated", "console.members.role"),
        ("member", "deleted", "console.members.remove"),
    ]
    owner_ids = {r["actor"]["keyId"] for r in records if r["operation"] != "console.members.accept"}
    assert owner_ids == {_member_id(owner, tenant.email)} and {r["channel"] for r in records} == {"console"}
    again = invite(owner, email, "viewer")  # a removed person can be invited again
    assert again.get("/").status == 200


def _code_sign_in(person: Person) -> Page:
    """Asks for a code and sends it: the answer to the code (where it leads)."""
    person.post("/signin", {"email": person.email})
    return person.post("/signin/code", {"email": person.email, "code": person.api.mailed_code(person.email)})


def test_an_invitation_is_pending_until_the_invitee_accepts_it(api: Api, tenant: Tenant) -> None:
    """Before: the invited person's first sign-in landed in the inviting company, no question asked."""
    owner = owner_of(tenant)
    email = _address("invitee")
    assert owner.post("/members", {"email": email, "name": "Ina", "role": "admin"}).status == 303
    person = Person(api, email)
    done = _code_sign_in(person)
    assert (done.status, done.location) == (303, "/console/signin/choose")
    assert person.get("/").status == 303  # no session: nothing is joined yet
    choice = person.get("/signin/choose")
    assert choice.status == 200 and "Hausverwaltung Test GmbH" in choice.text() and "Admin" in choice.text()
    assert "invited" in owner.get("/members").text()
    assert person.post(f"/signin/accept/{tenant.id}").status == 303
    overview = person.get("/").text()
    assert "Hausverwaltung Test GmbH" in overview and "(Admin)" in overview
    assert "invited" not in owner.get("/members").text()
    assert _code_sign_in(Person(api, email)).location == "/console/"  # one company: straight in from now on


def test_a_declined_invitation_leaves_the_person_out(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    email = _address("declines")
    owner.post("/members", {"email": email, "role": "viewer"})
    member_id = _member_id(owner, email)
    person = Person(api, email)
    assert _code_sign_in(person).location == "/console/signin/choose"
    person.get("/signin/choose")
    declined = person.post(f"/signin/decline/{tenant.id}")
    assert declined.status == 303 and declined.location.startswith("/console/signin?")
    assert email not in owner.get("/members").text() and person.get("/").status == 303

    def declining() -> list[dict[str, object]]:
        found = tenant.get("audit.list", {"entityId": member_id, "limit": 10, "offset": 0})["auditRecords"]
        return [r for r in found if r["operation"] == "console.members.decline"]

    record = eventually(declining, message="the declined invitation in the audit trail")[0]
    assert record["action"] == "deleted" and record["actor"]["keyId"] == member_id  # the invitee declined
    mailed = len(mail.outbox(to=email))
    person.post("/signin", {"email": email})
    assert len(mail.outbox(to=email)) == mailed  # no code: no company to sign in to


def test_an_invitation_does_not_capture_the_sign_in_of_someone_elses_owner(api: Api) -> None:
    """Before: the oldest membership won, so a company that signed up earlier and invited a
    stranger's address took over that person's next sign-in."""
    trap, victim = api.signup(company="Falle GmbH"), api.signup(company="Opfer GmbH")
    owner_of(trap).post("/members", {"email": victim.email, "role": "owner"})
    person = Person(api, victim.email)
    assert _code_sign_in(person).location == "/console/signin/choose"
    choice = person.get("/signin/choose").text()
    assert "Falle GmbH" in choice and "Opfer GmbH" in choice
    assert person.post(f"/signin/choose/{trap.id}").status == 404  # not theirs before they accept
    assert person.post(f"/signin/choose/{victim.id}").status == 303
    assert "Opfer GmbH" in person.get("/").text()
    assert person.post(f"/switch/{trap.id}").status == 404  # nor by switching
    assert "Falle GmbH" not in person.get("/members").text()


def test_a_person_of_several_companies_chooses_and_then_gets_the_last_used(
    api: Api, tenant: Tenant, other_tenant: Tenant
) -> None:
    shared = _address("several")
    invite(owner_of(other_tenant), shared, "viewer")
    invite(owner_of(tenant), shared, "admin")
    person = Person(api, shared)  # a browser that has not signed in before
    assert _code_sign_in(person).location == "/console/signin/choose"
    choice = person.get("/signin/choose").text()
    assert "Hausverwaltung Test GmbH" in choice and "Andere Verwaltung AG" in choice
    assert person.post(f"/signin/choose/{other_tenant.id}").status == 303
    assert "Andere Verwaltung AG" in person.get("/").text()
    person.post("/signout")
    assert _code_sign_in(person).location == "/console/"  # the company used last, on this browser
    assert "Andere Verwaltung AG" in person.get("/").text()


def test_invitations_are_limited_per_company(
    api: Api, tenant: Tenant, other_tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: one company mailed 40 invitations in a row. Each company has its own budget: a
    counter shared by every company would refuse the other one here (issue 29)."""
    monkeypatch.setenv("PM_INVITE_LIMIT", "3/86400")
    throttle.reset()
    inside_one_window(86400, 30)
    owner = owner_of(tenant)
    statuses = [owner.post("/members", {"email": _address("many"), "role": "viewer"}).status for _ in range(4)]
    assert statuses == [303, 303, 303, 429]
    assert owner_of(other_tenant).post("/members", {"email": _address("few"), "role": "viewer"}).status == 303


def test_names_in_invitation_mails_are_quoted_as_data_and_bounded_in_the_subject(api: Api) -> None:
    """Before: the company's name was the subject, whole, and the text carried it (and the
    inviter's name, line breaks included) as the mail's own words."""
    bait = "Support-Team. Ihr Konto ist gesperrt, bitte sofort unter https://evil.example anmelden"
    owner = owner_of(api.signup(company=bait))
    inviter = invite(owner, _address("colleague"), "owner", name="Eva\nIhr Passwort ist abgelaufen")
    invited = _address("invited")
    assert inviter.post("/members", {"email": invited, "role": "viewer"}).status == 303
    sent = mail.outbox(to=invited, limit=1)[0]
    assert bait not in sent.subject and len(sent.subject) < 80 and "«Support-Team. Ihr Konto" in sent.subject
    assert "…»" in sent.subject
    assert f"«{bait}»" in sent.text and "«Eva Ihr Passwort ist abgelaufen»" in sent.text
    assert "\nIhr Passwort" not in sent.text


def test_removing_a_person_offers_to_disable_the_keys_they_created(api: Api, tenant: Tenant) -> None:
    """Before: a removed admin's keys kept every scope, and nothing pointed at them."""
    owner = owner_of(tenant)
    email = _address("leaver")
    admin = invite(owner, email, "admin")
    made = admin.post("/keys", {"agentName": "leaver-bot", "binding": "company", "scopes": ["read", "admin"]})
    assert made.status == 200 and made.secret
    by_key = Tenant(api, tenant.id, made.secret, {})  # a key that key created in turn: theirs as well
    by_key.ok("apikeys.create", {"apiKey": {"agentName": "leaver-sub", "scopes": ["read"]}})
    other = tenant.new_key(["read"], agent="stays-bot")  # created by the first key, not by the person
    member_id = _member_id(owner, email)
    removed = owner.post(f"/members/{member_id}/remove")
    assert removed.status == 303 and removed.location.startswith(f"/console/members/{member_id}/keys?")
    offer = owner.get(removed.location.removeprefix("/console"))
    assert offer.status == 200 and "leaver-bot" in offer.text() and "leaver-sub" in offer.text()
    assert "stays-bot" not in offer.text() and "setup" not in offer.text()
    assert owner.post(f"/members/{member_id}/keys/disable").status == 303
    listed = {k["agentName"]: k for k in tenant.get("apikeys.list", {"limit": 100, "offset": 0})["apiKeys"]}
    assert listed["leaver-bot"]["disabled"] and listed["leaver-sub"]["disabled"]
    assert not listed["stays-bot"]["disabled"] and tenant.query("info", key=other).status == 200
    assert by_key.query("info").status == 401
    owner_id = _member_id(owner, tenant.email)

    def disabling() -> list[dict[str, object]]:
        found = tenant.get("audit.list", {"operation": "apikeys.disable", "limit": 10, "offset": 0})["auditRecords"]
        return found if len(found) >= 2 else []

    records = eventually(disabling, message="the disabling in the audit trail")
    assert {r["entityId"] for r in records} == {listed["leaver-bot"]["id"], listed["leaver-sub"]["id"]}
    assert {(r["actor"]["keyId"], r["channel"]) for r in records} == {(owner_id, "console")}


def test_a_person_of_two_companies_switches_between_them(api: Api, tenant: Tenant, other_tenant: Tenant) -> None:
    shared = _address("both")
    invite(owner_of(other_tenant), shared, "viewer")
    person = invite(owner_of(tenant), shared, "admin")  # signed in to the company it joined first
    first = person.get("/").text()
    team = person.get("/members")
    target = "Andere Verwaltung AG" if "Hausverwaltung Test GmbH" in first else "Hausverwaltung Test GmbH"
    assert f"Switch to {target}" in team.text()
    tenant_id = team.html.split('action="/console/switch/', 1)[1].split('"', 1)[0]
    assert person.post(f"/switch/{tenant_id}").status == 303
    assert target in person.get("/").text()
    stranger = owner_of(api.signup(company="Fremd GmbH"))
    assert stranger.post(f"/switch/{tenant_id}").status == 404  # no member there: no way in


def test_the_overview_counts_each_keys_requests(api: Api, tenant: Tenant) -> None:
    agent = tenant.new_key(["read"], agent="zaehler")
    for _ in range(4):
        tenant.get("info", key=agent)
    page = owner_of(tenant).get("/")
    row = next(row for row in page.html.split("<tr>") if ">zaehler</a>" in row)
    assert "<td>4</td>" in row, row
    assert "30 days" in page.text() and "Hausverwaltung Test GmbH" in page.text()


def test_the_session_cookie_is_secure_outside_the_local_stage(api: Api, tenant: Tenant, monkeypatch: Any) -> None:
    monkeypatch.setenv("PM_STAGE", "prod")
    person = Person(api, tenant.email)
    person.post("/signin", {"email": tenant.email})
    signed_in = person.post("/signin/code", {"email": tenant.email, "code": api.mailed_code(tenant.email)})
    cookie = signed_in.headers["set-cookie"]
    assert "pm_session=" in cookie and "; Secure" in cookie and "HttpOnly" in cookie


def test_reloading_the_first_key_page_keeps_the_session_and_says_the_key_was_shown_once(api: Api) -> None:
    """Issue 37, 1: F5 on the page after sign-up re-posts the spent code; the person stays
    signed in and reads that the key was shown once (a GET page a further reload repeats)."""
    email = _address("reload")
    person = Person(api, email, lang="de")
    person.post(
        "/signup", {"companyName": "Neu Laden GmbH", "name": "Rita Reload", "email": email, "agentName": "setup"}
    )
    form = {"email": email, "code": api.mailed_code(email)}
    key = person.post("/signup/confirm", form).secret
    assert key
    again = person.post("/signup/confirm", form)  # what the browser's reload sends
    assert again.status == 303 and again.location == "/console/welcome", again.text()
    shown = person.get("/welcome")
    assert shown.status == 200 and "nur einmal angezeigt" in shown.text() and "Rita Reload" in shown.text()
    assert "abgelaufen" not in shown.text() and key not in shown.html and shown.secret is None
    assert person.get("/welcome").status == 200  # a further reload: the same page
    assert Person(api, email).post("/signup/confirm", form).status == 400  # another browser: no session, refused


def test_the_invitation_mail_names_the_role_in_each_language(api: Api, tenant: Tenant) -> None:
    """Issue 37, 5: the German part of the mail said "(Rolle: viewer)"."""
    owner = owner_of(tenant)
    invitee = _address("rolle")
    assert owner.post("/members", {"email": invitee, "name": "Rolf", "role": "viewer"}).status == 303
    text = mail.outbox(to=invitee, limit=1)[0].text
    assert "(Rolle: Nur lesen)" in text and "(role: Viewer)" in text and "Rolle: viewer" not in text
