"""The webhook pages in Chromium: a webhook created in the browser receives a contact created
over REST, and its page's delivery log shows the delivery; the list, form, created and detail
pages pass axe (English), and in German the form with a refused URL, the detail page and the
list's restore notice after a delete."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Dialog, Page, expect

from tests.browser.conftest import check_accessibility, screenshot
from tests.browser.console import signed_in_owner
from tests.client import Api
from tests.eventually import eventually
from tests.receiver import Receiver


def test_a_webhook_made_in_the_browser_receives_a_contact_created_over_rest(
    page: Page, api: Api, receiver: Receiver
) -> None:
    tenant = signed_in_owner(page, api)
    page.goto(api.base + "/console/webhooks")
    check_accessibility(page)

    page.get_by_role("link", name="New webhook").click()
    check_accessibility(page)
    page.locator("#f-name").fill("Ticketsystem")
    page.locator("#f-url").fill(receiver.url)
    page.locator("#f-authorizationHeader").fill("Bearer browser-token")
    contacts = page.get_by_role("group", name="Contacts contact")
    contacts.get_by_label("created").check()
    contacts.get_by_label("updated").check()
    screenshot(page, "console-webhooks-form")
    page.get_by_role("button", name="Create webhook").click()

    expect(page.locator("#secret-value")).to_have_value(re.compile(r"^whsec_"))
    check_accessibility(page)
    page.get_by_role("link", name="Go to the webhook").click()
    expect(page.get_by_text("Contacts: created, updated")).to_be_visible()

    person = tenant.contact(lastName="Browser")
    arrived = receiver.wait_for(1)[0]
    assert arrived.event["type"] == "contact.created" and arrived.event["data"]["id"] == person["id"]
    assert arrived.headers["authorization"] == "Bearer browser-token"

    def logged() -> bool:
        page.reload()
        row = page.locator("table.webhooks-log tbody tr").first
        cells = [cell.strip() for cell in row.locator("td").all_inner_texts()]
        assert "contact.created" in cells[0] and arrived.event["id"] in cells[0], cells
        assert cells[1:3] == ["delivered", "1"] and cells[5] == "200", cells
        return True

    eventually(logged, timeout=15, message="the delivery in the page's log")
    check_accessibility(page)
    screenshot(page, "console-webhooks-detail")

    page.get_by_role("link", name="All webhooks").click()
    expect(page.get_by_role("link", name="Ticketsystem")).to_be_visible()
    check_accessibility(page)


@pytest.mark.locale("de-DE")
def test_in_german_a_refused_url_then_delete_and_restore(page: Page, api: Api, receiver: Receiver) -> None:
    signed_in_owner(page, api)
    page.goto(api.base + "/console/webhooks/new")
    page.locator("#f-name").fill("Buchhaltung")
    page.locator("#f-url").fill("ftp://example.org/hook")
    page.get_by_role("group", name="Verträge contract").get_by_label("angelegt").check()
    page.get_by_role("button", name="Webhook anlegen").click()
    expect(page.locator("#f-url-error")).to_have_text(
        "muss eine vollständige https-Adresse sein, z. B. https://example.org/webhooks"
    )
    check_accessibility(page)

    page.locator("#f-url").fill(receiver.url)
    page.get_by_role("button", name="Webhook anlegen").click()
    page.get_by_role("link", name="Weiter zum Webhook").click()
    expect(page.get_by_text("Verträge: angelegt")).to_be_visible()
    check_accessibility(page)

    page.once("dialog", Dialog.accept)  # "Webhook „Buchhaltung“ löschen?"
    page.get_by_role("button", name="Löschen").click()
    expect(page.get_by_role("status")).to_contain_text("wurde gelöscht")
    check_accessibility(page)
    page.get_by_role("button", name="Wiederherstellen").click()
    expect(page.get_by_role("status")).to_have_text("Der Webhook wurde wiederhergestellt.")
    expect(page.get_by_role("heading", level=1)).to_have_text("Buchhaltung")
