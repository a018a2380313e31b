"""Sandboxes in the browser (issue 36): an owner creates a sandbox from the console, the worker fills
it with the demo company, the owner opens it (every page carries the banner), goes back, resets and
deletes it; both languages pass axe. The demo company is the small one (PM_DEMO_SIZE=small, set by
tests/conftest.py for the test stack's worker): the pages are under test here, its size in
tests/functional/test_sandboxes.py."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Dialog, Page, expect

from chalicelib import config
from chalicelib.sandbox import lifecycle
from chalicelib.sandbox.demo import demo_lines
from tests.browser.conftest import check_accessibility, screenshot
from tests.browser.console import signed_in_owner
from tests.client import Api

PLANTED_WITHIN_MS = 120_000  # the small demo company takes seconds, longer on a busy test machine


def _state(page: Page, name: str) -> str:
    return page.locator("tbody tr", has_text=name).locator(".badge").inner_text()


def _wait_until_ready(page: Page, name: str) -> None:
    """The list, reloaded each second, until the worker says the sandbox is ready."""
    for _ in range(PLANTED_WITHIN_MS // 1000):
        if _state(page, name) == "ready":
            return
        page.wait_for_timeout(1000)
        page.reload()
    assert _state(page, name) == "ready"


@pytest.mark.slow
def test_an_owner_creates_opens_resets_and_deletes_a_sandbox(page: Page, api: Api) -> None:
    tenant = signed_in_owner(page, api, company="Muster Hausverwaltung GmbH")
    page.goto(api.base + "/console/sandboxes")
    expect(page.locator("#sandbox-name")).to_have_value("Muster Hausverwaltung GmbH (sandbox)")
    check_accessibility(page)
    page.locator("#sandbox-name").fill("Demo HV")
    page.locator("main form.card button[type=submit]").click()
    expect(page.locator(".notice")).to_contain_text("being filled with demo data")
    expect(page.locator("tbody tr", has_text="Demo HV")).to_contain_text("being filled")
    _wait_until_ready(page, "Demo HV")
    check_accessibility(page)
    screenshot(page, "console-sandboxes")
    sandbox_id = re.search(r"/sandboxes/(ten_[0-9A-Z]+)/reset", page.content())
    assert sandbox_id is not None

    # opened: the session moves there, every page says sandbox, the data is the demo company's
    page.locator("tbody tr", has_text="Demo HV").get_by_role("button", name="Open: Demo HV").click()
    expect(page.locator(".sandbox-banner")).to_contain_text("Sandbox: made-up data")
    page.goto(api.base + "/console/data/units")
    expect(page.locator(".sandbox-banner")).to_be_visible()
    size = config.demo_size()
    assert size == "small"  # tests/conftest.py: a page of units
    units = [line["data"]["number"] for line in demo_lines(lifecycle.DEFAULT_SEED, size) if line["type"] == "unit"]
    expect(page.locator("main tbody tr")).to_have_count(len(units))
    for number in units:
        expect(page.locator("main tbody")).to_contain_text(number)
    check_accessibility(page)
    screenshot(page, "console-sandbox-data", full_page=False)
    page.goto(api.base + "/console/sandboxes")
    expect(page.locator("main")).to_contain_text("You are in the sandbox “Demo HV”")
    page.get_by_role("button", name="Back to the live company").click()
    expect(page.locator(".sandbox-banner")).to_have_count(0)
    assert tenant.get("info")["tenant"]["sandbox"] is False

    # reset (confirmed), then delete (confirmed): gone from the list, its keys end
    page.goto(api.base + "/console/sandboxes")
    page.once("dialog", Dialog.accept)
    page.get_by_role("button", name="Reset: Demo HV").click()
    expect(page.locator(".notice")).to_contain_text("being reset")
    _wait_until_ready(page, "Demo HV")
    page.once("dialog", Dialog.accept)
    page.get_by_role("button", name="Delete: Demo HV").click()
    expect(page.locator(".notice")).to_contain_text("The sandbox is deleted.")
    expect(page.locator("main")).not_to_contain_text("Demo HV")


def test_the_sandbox_page_in_german(page_for: object, api: Api) -> None:
    page = page_for("de-DE")  # type: ignore[operator]
    signed_in_owner(page, api, company="Beispiel Verwaltung GmbH")
    page.goto(api.base + "/console/sandboxes")
    expect(page.locator("h1")).to_have_text("Sandboxes")
    expect(page.locator("#sandbox-name")).to_have_value("Beispiel Verwaltung GmbH (Sandbox)")
    check_accessibility(page)
    screenshot(page, "console-sandboxes-de")
