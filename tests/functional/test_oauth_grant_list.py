"""The console's list of agents connected by OAuth (issue 51, 10): every live grant, paged (not the
newest 200); an approval whose code the client never redeemed is not listed and ends with its code; a
person connects at most config.MAX_GRANTS_PER_MEMBER agents; the page says what revoking ends (4)."""

from __future__ import annotations

import urllib.parse
from typing import Any

import pytest

from chalicelib import config
from chalicelib.console.pages import keys as keys_page
from tests.client import Api, Tenant
from tests.console_client import owner_of
from tests.oauth_flow import approve, authorize, exchange, register


def _grants(page: Any) -> str:
    """The keys page's section of the agents connected by OAuth."""
    return str(page.text().partition("Agents connected by OAuth")[2])


def test_an_approval_never_taken_up_is_not_listed(api: Api, tenant: Tenant) -> None:
    person = owner_of(tenant)
    approve(api, tenant, person, ["read"], agent="Never redeemed")
    redeemed = approve(api, tenant, person, ["read"], agent="Redeemed")
    assert exchange(api, redeemed).status == 200
    listed = _grants(person.get("/keys"))
    assert "Redeemed" in listed and "Never redeemed" not in listed, listed


def test_every_live_grant_is_reachable_page_by_page(api: Api, tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keys_page, "GRANT_PAGE", 2)
    person = owner_of(tenant)
    for n in range(3):
        assert exchange(api, approve(api, tenant, person, ["read"], agent=f"Agent {n}")).status == 200
    first = person.get("/keys")
    assert sum(f"Agent {n}" in _grants(first) for n in range(3)) == 2
    assert "grantsOffset=2" in first.html
    second = person.get("/keys?grantsOffset=2")
    assert sum(f"Agent {n}" in _grants(second) for n in range(3)) == 1


def test_a_person_connects_only_so_many_agents(api: Api, tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "MAX_GRANTS_PER_MEMBER", 2)
    person = owner_of(tenant)
    for n in range(2):
        assert exchange(api, approve(api, tenant, person, ["read"], agent=f"Agent {n}")).status == 200
    client_id = register(api).body["client_id"]
    consent = urllib.parse.urlsplit(authorize(api, client_id, scope="read").headers["location"])
    request_id = urllib.parse.parse_qs(consent.query)["request"][0]
    assert person.get(f"/oauth/consent?{consent.query}").status == 200
    form = [("request", request_id), ("decision", "approve"), ("agentName", "Agent 2"), ("scope", "read")]
    refused = person.post("/oauth/consent", form)
    assert refused.status == 409, refused.text()
    assert "as many as one person may" in refused.text()


def test_the_keys_page_says_what_revoking_ends(api: Api, tenant: Tenant) -> None:
    person = owner_of(tenant)
    assert exchange(api, approve(api, tenant, person, ["read"])).status == 200
    text = _grants(person.get("/keys"))
    assert "disables everything the application made with it" in text, text
