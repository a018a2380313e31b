"""The webhook portal in Chromium (issue 37), in English and German: edit a webhook, rotate its
signing secret (shown once, both signatures sent), filter the delivery log, open an attempt's
details and resend a test; axe on every page; a test banner typed by hand shows nothing."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Dialog, Page, expect

from tests.browser.conftest import check_accessibility, screenshot
from tests.browser.console import signed_in_owner
from tests.client import Api
from tests.eventually import eventually
from tests.receiver import Receiver

WORDS = {
    "en": {
        "test": "Send a test event",
        "edit": "Edit",
        "save": "Save changes",
        "saved": "The changes were saved.",
        "rotate": "Rotate signing secret",
        "continue": "Go to the webhook",
        "filter": "Filter",
        "status": "Status",
        "event": "Event",
        "details": "Details",
        "resend": "Resend",
        "ok": "Test succeeded",
    },
    "de": {
        "test": "Testereignis senden",
        "edit": "Bearbeiten",
        "save": "Änderungen speichern",
        "saved": "Die Änderungen wurden gespeichert.",
        "rotate": "Signaturschlüssel erneuern",
        "continue": "Weiter zum Webhook",
        "filter": "Filtern",
        "status": "Status",
        "event": "Ereignis",
        "details": "Details",
        "resend": "Erneut senden",
        "ok": "Test erfolgreich",
    },
}


def _walk(page: Page, api: Api, receiver: Receiver, lang: str) -> None:
    words = WORDS[lang]
    tenant = signed_in_owner(page, api)
    hook = tenant.ok("webhooks.create", {"name": "Fibu", "url": receiver.url, "events": ["contact.created"]})["webhook"]
    base = f"{api.base}/console/webhooks/{hook['id']}"

    # mend 7: a banner typed by hand shows nothing
    page.goto(base + "?tested=1&code=200&ms=3")
    expect(page.get_by_text(words["ok"])).to_have_count(0)
    assert receiver.requests == []

    page.goto(base)
    page.get_by_role("button", name=words["test"]).click()
    expect(page.get_by_role("status").filter(has_text=words["ok"])).to_be_visible()
    check_accessibility(page)

    # edit
    page.get_by_role("link", name=words["edit"], exact=True).click()
    check_accessibility(page)
    page.locator("#f-name").fill("Fibu neu")
    page.locator("#ev-contact-updated").check()
    screenshot(page, f"console-webhooks-edit-{lang}")
    page.get_by_role("button", name=words["save"]).click()
    expect(page.get_by_role("status").filter(has_text=words["saved"])).to_be_visible()
    expect(page.get_by_role("heading", name="Fibu neu")).to_be_visible()

    # rotate: the new secret once, then both signatures
    page.once("dialog", Dialog.accept)
    page.get_by_role("button", name=words["rotate"]).click()
    expect(page.locator("#secret-value")).to_have_value(re.compile(r"^whsec_"))
    new_secret = page.locator("#secret-value").input_value()
    check_accessibility(page)
    screenshot(page, f"console-webhooks-rotated-{lang}")
    page.get_by_role("link", name=words["continue"]).click()
    assert new_secret not in page.content()
    page.get_by_role("button", name=words["test"]).click()
    expect(page.get_by_role("status").filter(has_text=words["ok"])).to_be_visible()
    assert len(receiver.requests[-1].headers["webhook-signature"].split(" ")) == 2

    # a contact's delivery beside the tests, then the filter
    tenant.contact(lastName="Portal")
    eventually(lambda: len(receiver.requests) >= 3, timeout=15, message="the contact's delivery")
    page.goto(base)
    page.get_by_label(words["event"], exact=True).select_option("webhook.ping")
    page.get_by_role("button", name=words["filter"], exact=True).click()
    rows = page.locator("table.webhooks-log tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("table.webhooks-log")).not_to_contain_text("contact.created")
    rows.first.locator("summary").click()
    expect(rows.first.locator("pre.webhooks-body").last).to_contain_text('"type": "webhook.ping"')
    check_accessibility(page)
    screenshot(page, f"console-webhooks-log-{lang}")

    # resend a test
    before = len(receiver.requests)
    rows.first.get_by_role("button", name=re.compile(words["resend"], re.IGNORECASE)).click()
    eventually(lambda: len(receiver.requests) > before, timeout=15, message="the resent test")
    assert receiver.requests[-1].event["type"] == "webhook.ping"

    page.goto(f"{api.base}/console/webhooks")
    expect(page.locator(".webhooks-health")).to_contain_text("100")
    check_accessibility(page)
    screenshot(page, f"console-webhooks-list-{lang}")


def test_the_portal_in_english(page: Page, api: Api, receiver: Receiver) -> None:
    _walk(page, api, receiver, "en")


@pytest.mark.slow
@pytest.mark.locale("de-DE")
def test_the_portal_in_german(page: Page, api: Api, receiver: Receiver) -> None:
    _walk(page, api, receiver, "de")
