"""Connecting an agent in the browser (issue 37), in German and English: from the overview to the
connect page, a key chosen (its prefix in the snippets, never its secret), a snippet copied, a
pasted key tested with `info`; the page after a key's creation fills the secret in; axe on each."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import check_accessibility, screenshot
from tests.browser.console import signed_in_owner
from tests.client import Api


@pytest.mark.parametrize("page", ["de-DE", "en-US"], indirect=True)
def test_an_owner_connects_an_agent_from_the_overview(page: Page, api: Api) -> None:
    tenant = signed_in_owner(page, api, company="Verbinden GmbH")
    german = page.evaluate("navigator.language") == "de-DE"
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    key = tenant.ok("apikeys.create", {"apiKey": {"agentName": "claude-desk", "scopes": ["read"]}})["apiKey"]

    page.goto(api.base + "/console/")
    # the overview's own link (the navigation names the page too)
    page.locator("#main").get_by_role("link", name="Einen Agenten verbinden" if german else "Connect an agent").click()
    expect(page.locator("h1")).to_have_text("Einen Agenten verbinden" if german else "Connect an agent")
    expect(page.locator("#mcp-url")).to_contain_text("/propertymanagement/v2/mcp")
    check_accessibility(page)

    page.locator("#f-key").select_option(key["id"])
    page.locator("form.connect-choose button[type=submit]").click()
    placeholder = f"<Ihr Schlüssel {key['prefix']}…>" if german else f"<your key {key['prefix']}…>"
    expect(page.locator("#snippet-claude-code")).to_have_value(
        f"claude mcp add --transport http propertymanagement {page.locator('#mcp-url').inner_text()} \\\n"
        f'  --header "Authorization: Bearer {placeholder}"'
    )
    expect(page.locator("#snippet-vscode")).to_contain_text('"type": "http"')
    page.locator("button[data-copy=snippet-cursor]").click()
    assert f'"Authorization": "Bearer {placeholder}"' in page.evaluate("navigator.clipboard.readText()")
    assert key["key"] not in page.content()

    page.locator("#f-apiKey").fill(key["key"])
    page.locator("#f-apiKey").press("Enter")
    expect(page.locator("p.notice[role=status]")).to_contain_text("claude-desk")
    assert key["key"] not in page.content() and page.locator("#f-apiKey").input_value() == ""
    check_accessibility(page)
    if not german:
        screenshot(page, "console-connect")

    page.locator("#f-apiKey").fill("pm_falsch")
    page.locator("#f-apiKey").press("Enter")
    expect(page.locator(".errors[role=alert]")).to_contain_text(
        "kein gültiger API-Schlüssel" if german else "not a valid API key"
    )
    check_accessibility(page)


@pytest.mark.parametrize("page", ["de-DE", "en-US"], indirect=True)
def test_the_new_keys_page_leads_to_the_connect_page(page: Page, api: Api) -> None:
    signed_in_owner(page, api, company="Neuer Schlüssel GmbH")
    german = page.evaluate("navigator.language") == "de-DE"
    page.goto(api.base + "/console/keys/new")
    page.locator("#f-agentName").fill("cursor-bot")
    page.locator("#f-scope-read").check()
    page.locator("main form button[type=submit]").last.click()
    secret = page.locator("#secret-value").input_value()
    expect(page.locator("#snippet-claude-code")).to_contain_text(f"Bearer {secret}")
    check_accessibility(page)
    page.get_by_role(
        "link", name="Einen Agenten mit diesem Schlüssel verbinden" if german else "Connect an agent with this key"
    ).click()
    expect(page.locator("#f-key option:checked")).to_contain_text("cursor-bot")
    assert secret not in page.content()
