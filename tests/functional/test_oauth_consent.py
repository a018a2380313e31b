"""The OAuth consent page as a new user meets it (issue 51, 13): the permissions an agent host asks
for, in the person's words, grouped by area; only what the client asked for ticked, never `admin`
or `destructive` (each its own tick with a warning); Allow and Deny unlike; one sentence of what
the client will be able to do. An agent host that asks for every scope (as the MCP Inspector does)
gets, on a plain Allow, neither deleting nor administration."""

from __future__ import annotations

import html
import re
import urllib.parse
import uuid

from chalicelib.scopes import AREAS, KEY_SCOPES
from tests.client import Api, Tenant
from tests.console_client import Page, Person, invite, owner_of
from tests.oauth_flow import REDIRECT, authorize, exchange, register

ATTRIBUTE = re.compile(r'([\w-]+)(?:="([^"]*)")?')


def _inputs(page: Page) -> list[dict[str, str]]:
    """The page's input elements, each as its attributes."""
    return [
        {name: html.unescape(value) for name, value in ATTRIBUTE.findall(tag)}
        for tag in re.findall(r"<input\b([^>]*)>", page.html)
    ]


def _scopes(page: Page) -> dict[str, bool]:
    """The scope checkboxes: value -> ticked."""
    return {i["value"]: "checked" in i for i in _inputs(page) if i.get("name") == "scope"}


def _consent(api: Api, person: Person, scope: str) -> tuple[Page, str, str]:
    """A new client's authorize request for `scope`, the person on its consent page: the page,
    the request id and the client id."""
    client_id = register(api).body["client_id"]
    sent = authorize(api, client_id, scope=scope)
    consent = urllib.parse.urlsplit(sent.headers["location"])
    page = person.get(f"/oauth/consent?{consent.query}")
    assert page.status == 200, page.text()
    return page, urllib.parse.parse_qs(consent.query)["request"][0], client_id


def _allow_as_ticked(person: Person, page: Page, request_id: str) -> Page:
    """What a browser sends when the person presses Allow without changing a tick."""
    form = [("request", request_id), ("decision", "approve"), ("agentName", "Inspector")]
    form += [("scope", value) for value, ticked in _scopes(page).items() if ticked]
    return person.post("/oauth/consent", form)


def _summary(page: Page) -> str:
    found = re.search(r'<p id="consent-summary"[^>]*>(.*?)</p>', page.html, re.S)
    assert found is not None, "the page says in one sentence what the client will be able to do"
    return html.unescape(re.sub(r"\s+", " ", found.group(1))).strip()


def test_a_client_asking_for_everything_gets_neither_deleting_nor_administration_by_default(
    api: Api, tenant: Tenant
) -> None:
    person = owner_of(tenant)
    page, request_id, client_id = _consent(api, person, " ".join(KEY_SCOPES))
    offered = _scopes(page)
    assert set(offered) == set(KEY_SCOPES), "an owner may give every scope asked for"
    assert offered["admin"] is False and offered["destructive"] is False, "never ticked by default"
    assert all(ticked for scope, ticked in offered.items() if scope not in ("admin", "destructive"))
    for scope in ("admin", "destructive"):
        box = next(i for i in _inputs(page) if i.get("value") == scope)
        warning = re.search(rf'id="{box["aria-describedby"]}"[^>]*>(.*?)</p>', page.html, re.S)
        assert warning is not None and 'class="consent-warning"' in warning.group(0), scope

    text = page.text()
    assert not re.search(r"\b(read|write):\w+", text), "no scope is shown as its identifier"
    for area in ("Contacts", "Accounting (bank accounts, inbound invoices, direct debit mandates)"):
        assert f"<legend>{area}</legend>" in page.html, area
    assert len(re.findall(r'<fieldset class="consent-area"', page.html)) == len(AREAS), "one group per area"

    allow = re.search(r'<button ([^>]*)value="approve"([^>]*)>', page.html)
    deny = re.search(r'<button ([^>]*)value="deny"([^>]*)>', page.html)
    assert allow is not None and deny is not None
    assert 'class="consent-allow"' in allow.group(0) and 'class="secondary consent-deny"' in deny.group(0)
    assert "formnovalidate" in deny.group(0), "Deny needs no agent name"

    summary = _summary(page)
    assert summary.startswith("Claude will be able to ") and summary.endswith("."), summary
    assert "delete" not in summary and "API keys" not in summary, summary

    done = _allow_as_ticked(person, page, request_id)
    assert done.status == 303 and done.location.startswith(REDIRECT), done.text()
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(done.location).query)["code"][0]
    granted = exchange(api, {"code": code, "client_id": client_id}).body["scope"].split()
    assert "admin" not in granted and "destructive" not in granted and "write:contacts" in granted


def test_only_what_the_client_asked_for_is_offered_in_the_persons_language(api: Api, tenant: Tenant) -> None:
    person = owner_of(tenant)
    person.lang = "de"
    page, _, _ = _consent(api, person, "read write:contacts")
    assert _scopes(page) == {"read": True, "write:contacts": True}
    assert "<legend>Kontakte</legend>" in page.html and "<legend>Verträge</legend>" not in page.html
    assert _summary(page) == "Claude darf dann alle Daten Ihrer Hausverwaltung lesen und Kontakte anlegen und ändern."
    assert re.search(r'<button [^>]*value="approve"[^>]*>\s*Erlauben', page.html)


def test_deleting_and_administration_are_given_only_when_ticked_on_their_own(api: Api, tenant: Tenant) -> None:
    person = owner_of(tenant)
    page, request_id, client_id = _consent(api, person, "read admin destructive")
    assert _scopes(page) == {"read": True, "admin": False, "destructive": False}
    assert "delete" not in _summary(page)
    form = [("request", request_id), ("decision", "approve"), ("agentName", "Admin agent")]
    done = person.post("/oauth/consent", [*form, ("scope", "read"), ("scope", "admin")])
    assert done.status == 303, done.text()
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(done.location).query)["code"][0]
    assert exchange(api, {"code": code, "client_id": client_id}).body["scope"] == "admin read"


def test_a_viewer_reads_in_words_what_their_role_cannot_give(api: Api, tenant: Tenant) -> None:
    viewer = invite(owner_of(tenant), f"viewer-{uuid.uuid4().hex[:8]}@example.org", "viewer")
    page, _, _ = _consent(api, viewer, "read:units write:units admin")
    assert _scopes(page) == {"read:units": True}
    text = page.text()
    assert "Not possible with your role" in text and "Administration" in text, text
    assert "write:units" not in text and "admin:" not in text
    assert _summary(page) == "Claude will be able to read units."
