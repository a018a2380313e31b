"""API keys in the browser (issue 19): the key form used with the keyboard alone creates a key
(leaving out other parties' text for its agent, issue 30) whose secret is shown with a working
copy button; the pages pass axe in both languages."""

from __future__ import annotations

import re
import uuid

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import check_accessibility, screenshot
from tests.browser.console import sign_in, signed_in_owner
from tests.client import Api
from tests.console_client import invite, owner_of

MAX_TABS = 120  # the header's links, then the form's fields (a date input takes three stops)


def _tab_to(page: Page, selector: str) -> None:
    """Presses Tab until the element `selector` has the focus."""
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if page.evaluate("(selector) => document.activeElement.matches(selector)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_the_key_form_works_with_the_keyboard_alone(page: Page, api: Api) -> None:
    tenant = signed_in_owner(page, api)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    weg = tenant.ok("objects.create", {"object": {"name": "WEG Lindenallee 3", "type": "weg"}})["object"]
    page.goto(api.base + "/console/keys/new")

    _tab_to(page, "#f-agentName")
    page.keyboard.type("keyboard-bot")
    _tab_to(page, "#f-binding-company")  # the radio group: the company is chosen already
    _tab_to(page, "#f-scope-read")
    page.keyboard.press("Space")
    _tab_to(page, "#f-scope-write-contacts")
    page.keyboard.press("Space")
    _tab_to(page, "#f-untrustedText")  # other parties' text left out for the agent (MCP)
    page.keyboard.press("Space")
    _tab_to(page, "#f-objects")  # limited to one WEG
    page.keyboard.type(weg["id"])
    screenshot(page, "console-keys-form")
    _tab_to(page, "main button[type=submit]")
    page.keyboard.press("Enter")

    expect(page.locator("h1")).to_have_text("Key for keyboard-bot created")
    secret = page.locator("#secret-value").input_value()
    assert secret.startswith("pm_")
    _tab_to(page, "button.copy")
    page.keyboard.press("Enter")
    expect(page.locator("button.copy")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == secret
    check_accessibility(page)
    screenshot(page, "console-keys-secret")

    listed = tenant.get("apikeys.list", {"limit": 100, "offset": 0})["apiKeys"]
    created = next(key for key in listed if key["agentName"] == "keyboard-bot")
    assert created["scopes"] == ["read", "write:contacts"] and created["binding"] == {"type": "company"}
    assert created["untrustedText"] == "omit" and created["objects"] == [weg["id"]]
    assert tenant.query("info", key=secret).status == 200

    page.goto(api.base + "/console/keys")
    expect(page.get_by_role("link", name="keyboard-bot")).to_be_visible()
    assert secret not in page.content()
    check_accessibility(page)


@pytest.mark.parametrize("page", ["de-DE", "en-US"], indirect=True)
def test_the_key_pages_pass_the_accessibility_check(page: Page, api: Api) -> None:
    tenant = signed_in_owner(page, api)
    key = tenant.ok("apikeys.create", {"apiKey": {"agentName": "axe-bot", "scopes": ["read", "write:uvi"]}})["apiKey"]
    for _ in range(3):
        assert tenant.query("info", key=key["key"]).status == 200
    german = page.evaluate("navigator.language") == "de-DE"

    page.goto(api.base + "/console/keys")
    expect(page.locator("h1")).to_have_text("API-Schlüssel" if german else "API keys")
    check_accessibility(page)
    screenshot(page, f"console-keys-list-{'de' if german else 'en'}")

    page.goto(api.base + "/console/keys/new")
    check_accessibility(page)
    page.locator("#f-agentName").fill("not valid!")
    page.locator("main button[type=submit]").click()
    expect(page.locator(".errors")).to_contain_text("Bitte verwenden Sie nur" if german else "please use only")
    check_accessibility(page)  # the form again, with its errors

    page.goto(api.base + f"/console/keys/{key['id']}")
    expect(page.locator("table tbody tr")).to_have_count(3)
    check_accessibility(page)
    screenshot(page, f"console-keys-detail-{'de' if german else 'en'}")

    page.goto(api.base + f"/console/keys/{key['id']}/rotate")
    check_accessibility(page)
    page.locator("main form button[type=submit]").click()
    expect(page.locator("#secret-value")).to_have_value(re.compile(r"^pm_"))
    check_accessibility(page)


@pytest.mark.parametrize("page", ["de-DE", "en-US"], indirect=True)
def test_a_viewer_reads_the_keys_without_their_controls(page: Page, api: Api) -> None:
    """Issue 37, mend 4: a viewer clicking "API-Schlüssel" got 403 although a viewer "sees everything"."""
    tenant = api.signup(company="Nur Lesen GmbH", email=f"owner-{uuid.uuid4().hex[:10]}@example.org")
    tenant.ok("apikeys.create", {"apiKey": {"agentName": "read-bot", "scopes": ["read"]}})
    email = f"viewer-{uuid.uuid4().hex[:10]}@example.org"
    invite(owner_of(tenant), email, "viewer")
    german = page.evaluate("navigator.language") == "de-DE"
    sign_in(page, api, email)

    page.get_by_role("link", name="API-Schlüssel" if german else "API keys").click()
    expect(page.locator("h1")).to_have_text("API-Schlüssel" if german else "API keys")
    expect(page.locator("main p.notice")).to_contain_text("Nur lesen" if german else "As a viewer")
    assert page.locator("main form").count() == 0 and page.locator("a[href$='/keys/new']").count() == 0
    check_accessibility(page)

    page.get_by_role("link", name="read-bot").click()
    expect(page.locator("h1")).to_contain_text("read-bot")
    assert page.locator("main form").count() == 0 and page.locator("a[href$='/rotate']").count() == 0
    check_accessibility(page)
