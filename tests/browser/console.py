"""Steps a person takes in the console, for the browser tests: sign up, sign in (the code read
from the service's outbox, as from a mailbox)."""

from __future__ import annotations

import uuid

from playwright.sync_api import Dialog, Page

from tests.client import Api, Tenant


def sign_in(page: Page, api: Api, email: str) -> None:
    page.goto(api.base + "/console/signin")
    page.locator("#f-email").fill(email)
    page.locator("main button[type=submit]").click()
    page.locator("#f-code").fill(api.mailed_code(email))
    page.locator("main button[type=submit]").click()
    page.wait_for_url(api.base + "/console/")


def signed_in_owner(page: Page, api: Api, company: str = "Browser Verwaltung GmbH") -> Tenant:
    """A new tenant (signed up over the API) whose owner is signed in on `page`."""
    tenant = api.signup(company=company, email=f"owner-{uuid.uuid4().hex[:10]}@example.org")
    sign_in(page, api, tenant.email)
    return tenant


def accepting(page: Page) -> list[str]:
    """Accepts the pages' confirmations (data-confirm), keeping what they asked."""
    asked: list[str] = []

    def accept(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", accept)
    return asked
