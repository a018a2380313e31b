"""Connecting an agent (issue 37): the connect page's addresses and the four hosts' snippets with
the chosen key's prefix as a placeholder (the secret is never kept), the page after a key's
creation as the one that fills the secret in, and the test of a pasted key (`info` run as that
key, its secret never echoed)."""

from __future__ import annotations

import uuid

from chalicelib import config, paths
from tests.client import Tenant
from tests.console_client import invite, owner_of


def test_the_connect_page_names_the_addresses_and_the_chosen_keys_prefix(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    key = tenant.ok("apikeys.create", {"apiKey": {"agentName": "claude-bot", "scopes": ["read"]}})["apiKey"]
    mcp = config.public_url() + paths.MCP

    plain = owner.get("/connect")
    assert plain.status == 200, plain.text()
    text = plain.text()
    assert mcp in text and config.public_url() + paths.V2 in text
    assert f"claude mcp add --transport http propertymanagement {mcp}" in text
    assert '"mcpServers"' in text and '"mcp-remote"' in text  # Claude Desktop, through the bridge
    assert '"servers"' in text and '"type": "http"' in text  # VS Code
    assert '"Authorization": "Bearer <your API key>"' in text  # Cursor and VS Code, no key chosen
    assert "/query/openapi.spec" in plain.html and "oauth-protected-resource" in plain.html
    assert "claude-bot" in text  # offered in the chooser

    chosen = owner.get(f"/connect?key={key['id']}")
    assert chosen.status == 200
    assert f"Bearer <your key {key['prefix']}…>" in chosen.text()
    assert key["key"] not in chosen.html
    assert "no such key" in owner.get("/connect?key=key_01ARZ3NDEKTSV4RRFFQ69G5FAV").text()


def test_the_page_after_creation_fills_the_new_secret_into_the_snippets(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    created = owner.post("/keys", {"agentName": "desk-bot", "binding": "company", "scopes": ["read"], "expiry": ""})
    secret = created.secret
    assert secret and f'--header "Authorization: Bearer {secret}"' in created.text()
    assert f'"Authorization:Bearer {secret}"' in created.text()  # mcp-remote's --header
    assert 'href="/console/connect?key=key_' in created.html
    # and from the overview, and from the navigation of every page
    assert owner.get("/").html.count('href="/console/connect"') == 2
    keys_page = owner.get("/keys").html
    assert '<li><a href="/console/connect">' in keys_page
    assert '<li><a href="/console/connect" aria-current="page">' in owner.get("/connect").html


def test_a_pasted_key_is_tested_with_info_and_never_echoed(tenant: Tenant, other_tenant: Tenant) -> None:
    owner = owner_of(tenant)
    key = tenant.ok("apikeys.create", {"apiKey": {"agentName": "tested-bot", "scopes": ["read"]}})["apiKey"]

    works = owner.post("/connect/test", {"apiKey": key["key"], "key": key["id"]})
    assert works.status == 200, works.text()
    assert "The key works: agent tested-bot" in works.text() and "another company" not in works.text()
    assert key["key"] not in works.html
    assert f"<your key {key['prefix']}…>" in works.text()  # the chosen key stays chosen

    junk = owner.post("/connect/test", {"apiKey": "pm_nonsense"})
    assert junk.status == 400 and "not a valid API key" in junk.text()
    assert "pm_nonsense" not in junk.html
    assert "Please paste a key." in owner.post("/connect/test", {"apiKey": ""}).text()

    foreign = other_tenant.ok("apikeys.create", {"apiKey": {"agentName": "far-bot", "scopes": ["read"]}})["apiKey"]
    assert "another company" in owner.post("/connect/test", {"apiKey": foreign["key"]}).text()

    tenant.ok("apikeys.disable", {"apiKey": key["id"]})
    assert "has been disabled" in owner.post("/connect/test", {"apiKey": key["key"]}).text()


def test_a_viewer_connects_and_tests_too(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    key = tenant.ok("apikeys.create", {"apiKey": {"agentName": "viewer-bot", "scopes": ["read"]}})["apiKey"]
    viewer = invite(owner, f"viewer-{uuid.uuid4().hex[:10]}@example.org", "viewer")
    page = viewer.get(f"/connect?key={key['id']}")
    assert page.status == 200 and f"<your key {key['prefix']}…>" in page.text()
    assert "The key works" in viewer.post("/connect/test", {"apiKey": key["key"]}).text()
