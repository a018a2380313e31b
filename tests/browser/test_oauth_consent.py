"""The OAuth consent page in the browser (issue 51, 13) at phone, tablet and desktop widths: an agent
host that asks for every scope (as the MCP Inspector does) finds them grouped by area in words,
deleting and administration unticked with their warnings, the sentence of what the client will
be able to do following the ticks, Allow and Deny unlike; no sideways scrolling; axe on each.
Screenshots: docs/screenshots/console-oauth-consent-<width>.png (PM_SCREENSHOTS=1)."""

from __future__ import annotations

import urllib.parse

import pytest
from playwright.sync_api import Page, expect

from chalicelib.scopes import KEY_SCOPES
from tests.browser.conftest import PageFor, check_accessibility, screenshot
from tests.browser.console import signed_in_owner
from tests.client import Api
from tests.oauth_flow import REDIRECT, authorize, register

WIDTHS = {390: 844, 820: 1180, 1280: 900}


def _to_consent(page: Page, api: Api, scope: str) -> None:
    client_id = register(api, client_name="MCP Inspector").body["client_id"]
    consent = urllib.parse.urlsplit(authorize(api, client_id, scope=scope).headers["location"])
    page.goto(f"{api.base}{consent.path}?{consent.query}")
    page.wait_for_url("**/console/oauth/consent?**")


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_the_consent_page_for_a_client_asking_everything(page_for: PageFor, api: Api, width: int) -> None:
    page = page_for("en-US")
    page.set_viewport_size({"width": width, "height": WIDTHS[width]})
    signed_in_owner(page, api, company="Zustimmung GmbH")
    _to_consent(page, api, " ".join(KEY_SCOPES))

    for risky in ("admin", "destructive"):
        expect(page.locator(f"input[name=scope][value={risky}]")).not_to_be_checked()
    expect(page.locator("input[name=scope][value='write:contacts']")).to_be_checked()
    expect(page.locator("fieldset.consent-area legend").first).to_have_text("Contacts")
    summary = page.locator("#consent-summary")
    expect(summary).to_contain_text("MCP Inspector will be able to read all your company's data")
    expect(summary).not_to_contain_text("API keys")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width, "the page scrolls sideways"
    allow, deny = page.locator("button[value=approve]"), page.locator("button[value=deny]")
    assert allow.evaluate("b => getComputedStyle(b).backgroundColor") != deny.evaluate(
        "b => getComputedStyle(b).backgroundColor"
    ), "Allow and Deny look alike"
    check_accessibility(page)
    screenshot(page, f"console-oauth-consent-{width}")

    page.locator("input[name=scope][value=admin]").check()
    expect(summary).to_contain_text("manage your company's API keys")
    for box in page.locator("input[name=scope]").all():
        box.uncheck()
    expect(summary).to_have_text("Nothing is ticked: choose at least one permission.")


def test_the_consent_sentence_follows_the_ticks_in_german(page_for: PageFor, api: Api) -> None:
    page = page_for("de-DE")
    page.set_viewport_size({"width": 390, "height": 844})
    signed_in_owner(page, api, company="Zustimmung Deutsch GmbH")
    _to_consent(page, api, "read write:contacts write:units destructive")
    summary = page.locator("#consent-summary")
    expect(summary).to_have_text(
        "MCP Inspector darf dann alle Daten Ihrer Hausverwaltung lesen und Kontakte und Einheiten anlegen und ändern."
    )
    page.locator("input[name=scope][value='write:units']").uncheck()
    page.locator("input[name=scope][value=destructive]").check()
    expect(summary).to_have_text(
        "MCP Inspector darf dann alle Daten Ihrer Hausverwaltung lesen, Kontakte anlegen und ändern und Daten "
        "löschen, zusammenführen und Änderungen zurücknehmen."
    )
    expect(page.locator("#scope-destructive-warning")).to_contain_text("Achtung")
    check_accessibility(page)
    page.locator("#agentName").fill("")
    with page.expect_request(lambda sent: sent.url.startswith(REDIRECT)) as back:
        page.locator("button[value=deny]").click()  # no agent name needed to deny
    assert "error=access_denied" in back.value.url
