"""Restore from the data pages in Chromium, German and English, axe on every page shown: a contract
and its tenant deleted through the API come back from the contract's page (the tenant first, as
the API wants, then the contract), each confirmed and announced; a live page offers restore beside
a deleted reference; a viewer sees the marks and no button."""

from __future__ import annotations

import uuid

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PageFor, check_accessibility
from tests.browser.console import accepting, sign_in, signed_in_owner
from tests.client import Api
from tests.console_client import invite, owner_of
from tests.functional.test_console_data_restore import _both_deleted, _contract_of, _deleted_past_the_checks

BOTH = pytest.mark.parametrize("locale", ["de-DE", "en-US"])
WORDS = {
    "de-DE": {
        "restore": "Wiederherstellen",
        "deleted": "gelöscht",
        "since": "ist gelöscht (seit",
        "erika": "Erika Mustermann ist wiederhergestellt.",
        "contract": "Vertrag",
        "restored": "ist wiederhergestellt.",
    },
    "en-US": {
        "restore": "Restore",
        "deleted": "deleted",
        "since": "is deleted (since",
        "erika": "Erika Mustermann is restored.",
        "contract": "Contract",
        "restored": "is restored.",
    },
}


@BOTH
def test_a_deleted_contract_and_its_tenant_come_back_from_the_contracts_page(
    page_for: PageFor, api: Api, locale: str
) -> None:
    words = WORDS[locale]
    page = page_for(locale)
    tenant = signed_in_owner(page, api)
    contract, contact = _both_deleted(tenant)  # through the API, with the tenant's key
    asked = accepting(page)

    page.goto(api.base + f"/console/data/contracts/{contract['id']}")
    main = page.locator("main")
    expect(page.locator("h1")).to_contain_text(words["contract"])
    expect(main).to_contain_text(words["since"])
    party = main.locator("ul.data-refs li").filter(has_text="Erika Mustermann")
    expect(party.locator(".badge")).to_have_text(words["deleted"])
    check_accessibility(page)

    party.get_by_role("button", name=f"{words['restore']} Erika Mustermann").click()
    expect(page.locator("[role=status]")).to_have_text(words["erika"])
    assert asked and "Erika Mustermann" in asked[-1]
    expect(party.locator(".badge")).to_have_count(0)
    expect(party.get_by_role("link", name="Erika Mustermann")).to_have_attribute(
        "href", f"/console/data/contacts/{contact['id']}"
    )
    check_accessibility(page)

    main.locator("form").first.get_by_role("button").click()  # the contract's own restore
    expect(page.locator("[role=status]")).to_contain_text(words["restored"])
    expect(page.locator("h1")).not_to_contain_text(words["deleted"])
    expect(main.locator("dl")).to_contain_text("Erika Mustermann")
    check_accessibility(page)
    page.get_by_role("link", name="Erika Mustermann").first.click()
    expect(page.locator("h1")).to_contain_text("Erika Mustermann")
    assert tenant.query("contracts.show", {"contract": contract["id"]}).status == 200


@BOTH
def test_a_live_page_restores_a_deleted_reference(page_for: PageFor, api: Api, locale: str) -> None:
    words = WORDS[locale]
    page = page_for(locale)
    tenant = signed_in_owner(page, api)
    contract, contact = _contract_of(tenant)
    _deleted_past_the_checks(tenant, contact["id"])
    accepting(page)

    page.goto(api.base + f"/console/data/contracts/{contract['id']}")
    expect(page.locator("main dl")).to_contain_text(f"Erika Mustermann ({words['deleted']})")
    check_accessibility(page)
    page.locator("main dl").get_by_role("button", name=f"{words['restore']} Erika Mustermann").click()
    expect(page.locator("[role=status]")).to_have_text(words["erika"])
    expect(page.locator("main dl")).not_to_contain_text(f"({words['deleted']})")
    expect(page.locator("main dl form")).to_have_count(0)
    check_accessibility(page)


@BOTH
def test_a_viewer_sees_the_marks_without_a_restore(page_for: PageFor, api: Api, locale: str) -> None:
    words = WORDS[locale]
    page = page_for(locale)
    tenant = api.signup(company="Nur Lesen GmbH", email=f"owner-{uuid.uuid4().hex[:10]}@example.org")
    contract, contact = _both_deleted(tenant)
    live, party = _contract_of(tenant)
    _deleted_past_the_checks(tenant, party["id"])
    email = f"viewer-{uuid.uuid4().hex[:10]}@example.org"
    invite(owner_of(tenant), email, "viewer")
    sign_in(page, api, email)

    for path in (f"/data/contracts/{contract['id']}", f"/data/contacts/{contact['id']}"):
        page.goto(api.base + "/console" + path)
        expect(page.locator("main")).to_contain_text(words["since"])
        expect(page.locator("main").get_by_role("button")).to_have_count(0)
        check_accessibility(page)
    page.goto(api.base + f"/console/data/contracts/{live['id']}")
    expect(page.locator("main dl")).to_contain_text(f"Erika Mustermann ({words['deleted']})")
    expect(page.locator("main form")).to_have_count(0)
    check_accessibility(page)
