"""The console in Chromium (issue 19): sign-up -> the confirmation code from the local outbox ->
the first key shown once with a copy button; sign-in; the team page; accessibility of each of
these pages in German and English."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PageFor, check_accessibility, screenshot
from tests.browser.console import sign_in, signed_in_owner
from tests.client import Api, Tenant
from tests.console_client import owner_of


@pytest.mark.locale("de-DE")
def test_sign_up_confirm_and_get_the_first_key_once(page: Page, api: Api) -> None:
    email = f"browser-{uuid.uuid4().hex[:10]}@example.org"
    page.goto(api.base + "/console/signup")
    expect(page.locator("h1")).to_have_text("Registrieren")  # a German browser gets German
    check_accessibility(page)
    screenshot(page, "console-signup")
    page.get_by_label("Firma").fill("Hausverwaltung Sonnenschein GmbH")
    page.get_by_label("Ihr Name").fill("Erika Mustermann")
    page.get_by_label("E-Mail-Adresse").fill(email)
    page.locator("main button[type=submit]").click()
    expect(page.locator("h1")).to_have_text("Bitte prüfen Sie Ihr Postfach")
    check_accessibility(page)
    page.get_by_label("Bestätigungscode").fill(api.mailed_code(email))  # read from the outbox, as from a mailbox
    page.locator("main button[type=submit]").click()
    expect(page.locator("h1")).to_have_text("Willkommen, Ihr Konto ist eingerichtet")
    key = page.locator("#secret-value").input_value()
    assert key.startswith("pm_test_")
    check_accessibility(page)
    screenshot(page, "console-first-key")
    page.get_by_role("button", name="Kopieren").click()
    expect(page.get_by_role("button", name="Kopiert")).to_be_visible()
    assert Tenant(api, "", key, {}).get("info")["key"]["agentName"] == "setup"
    page.get_by_role("link", name="Weiter zur Übersicht").click()
    expect(page.locator("main")).to_contain_text("Hausverwaltung Sonnenschein GmbH")
    assert key not in page.content()  # shown once: the overview and every later page never hold it


def test_sign_in_with_a_mailed_code_and_the_overview(page: Page, api: Api) -> None:
    tenant = api.signup(company="Anmeldung GmbH", email=f"signin-{uuid.uuid4().hex[:10]}@example.org")
    page.goto(api.base + "/console/")
    expect(page).to_have_url(api.base + "/console/signin")  # no session: to the sign-in page
    check_accessibility(page)
    sign_in(page, api, tenant.email)
    expect(page.locator("h1")).to_have_text("Overview")
    expect(page.locator("main")).to_contain_text("Anmeldung GmbH")
    expect(page.locator("main")).to_contain_text("days left")
    check_accessibility(page)
    screenshot(page, "console-overview")


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_the_team_page_in_both_languages(page_for: PageFor, api: Api, locale: str) -> None:
    page = page_for(locale)
    signed_in_owner(page, api)
    page.goto(api.base + "/console/members")
    expect(page.locator("h1")).to_have_text("Team")
    page.get_by_label("E-Mail-Adresse" if locale == "de-DE" else "E-mail address").fill(
        f"kollege-{uuid.uuid4().hex[:8]}@example.org"
    )
    page.locator("#f-role").select_option("admin")
    page.get_by_role("button", name="Einladen" if locale == "de-DE" else "Invite").click()
    expect(page.locator(".notice")).to_contain_text("eingeladen" if locale == "de-DE" else "invited")
    check_accessibility(page)
    if locale == "en-US":
        screenshot(page, "console-team")


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_an_invitation_waits_on_the_choice_page_until_accepted(page_for: PageFor, api: Api, locale: str) -> None:
    page = page_for(locale)
    tenant = api.signup(company="Einladende Verwaltung GmbH", email=f"inviter-{uuid.uuid4().hex[:10]}@example.org")
    invitee = f"eingeladen-{uuid.uuid4().hex[:8]}@example.org"
    assert owner_of(tenant).post("/members", {"email": invitee, "role": "viewer"}).status == 303
    page.goto(api.base + "/console/signin")
    page.locator("#f-email").fill(invitee)
    page.locator("main button[type=submit]").click()
    page.locator("#f-code").fill(api.mailed_code(invitee))
    page.locator("main button[type=submit]").click()
    page.wait_for_url(api.base + "/console/signin/choose")
    expect(page.locator("h1")).to_have_text("Firma wählen" if locale == "de-DE" else "Choose a company")
    expect(page.locator("main")).to_contain_text("Einladende Verwaltung GmbH")
    check_accessibility(page)
    if locale == "en-US":
        screenshot(page, "console-signin-choice")
    page.get_by_role("button", name="Annehmen und öffnen" if locale == "de-DE" else "Accept and open").click()
    page.wait_for_url(api.base + "/console/")
    expect(page.locator("main")).to_contain_text("Einladende Verwaltung GmbH")


def test_the_language_switch_is_kept(page: Page, api: Api) -> None:
    page.goto(api.base + "/console/signin")
    expect(page.locator("h1")).to_have_text("Sign in")
    page.get_by_role("link", name="Deutsch").click()
    expect(page.locator("h1")).to_have_text("Anmelden")
    page.goto(api.base + "/console/signup")
    expect(page.locator("h1")).to_have_text("Registrieren")
    check_accessibility(page)


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_reloading_the_first_key_page_keeps_the_person_signed_in(page_for: PageFor, api: Api, locale: str) -> None:
    """Issue 37, 1: F5 after sign-up re-posts the spent code; the page says the key was shown
    once, the header shows the person signed in, and a further reload changes nothing."""
    german = locale == "de-DE"
    page = page_for(locale)
    email = f"reload-{uuid.uuid4().hex[:10]}@example.org"
    page.goto(api.base + "/console/signup")
    page.locator("#f-companyName").fill("Neu Laden GmbH")
    page.locator("#f-name").fill("Rita Reload")
    page.locator("#f-email").fill(email)
    page.locator("main button[type=submit]").click()
    page.locator("#f-code").fill(api.mailed_code(email))
    page.locator("main button[type=submit]").click()
    key = page.locator("#secret-value").input_value()
    page.reload()
    expect(page).to_have_url(api.base + "/console/welcome")
    expect(page.locator("main")).to_contain_text("nur einmal angezeigt" if german else "shown once")
    expect(page.locator("header")).to_contain_text("Rita Reload")
    expect(page.locator(".errors")).to_have_count(0)
    assert key not in page.content()
    check_accessibility(page)
    page.reload()
    expect(page.locator("header")).to_contain_text("Rita Reload")
