"""The console's search in Chromium (issue 53): the header's field and a list's search box find a
contact created as the 1,500th of the company (past the 1,000 that the console's old search read),
at phone, tablet and desktop widths, in German and English; the results page passes axe-core."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PageFor, check_accessibility, screenshot
from tests.browser.console import signed_in_owner
from tests.client import Api
from tests.functional.test_entity_search import settled

WIDTHS = {"phone": {"width": 390, "height": 844}, "tablet": {"width": 768, "height": 1024}}
WORDS = {
    "de-DE": {"header": "Suche in allen Daten", "list": "Nach Namen suchen", "contacts": "Kontakte (1)"},
    "en-US": {"header": "Search all data", "list": "Search by name", "contacts": "Contacts (1)"},
}


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_the_search_finds_the_1500th_contact_at_every_width(page_for: PageFor, api: Api, locale: str) -> None:
    words = WORDS[locale]
    page = page_for(locale)
    tenant = signed_in_owner(page, api)
    people = [{"alias": f"p-{n}", "personType": "natural", "lastName": f"Person {n:04d}"} for n in range(1, 1500)]
    people.append({"alias": "p-1500", "personType": "natural", "firstName": "Zacharias", "lastName": "Quellenhof"})
    for start in range(0, len(people), 500):
        tenant.ok("contacts.upsert", {"items": people[start : start + 500]})
    last = tenant.get("contacts.show", {"contact": "p-1500"})["contact"]
    assert tenant.get("contacts", {"limit": 1, "offset": 0})["pagination"]["total"] == 1500
    settled(tenant, "Quellenhof", last["id"])

    page.goto(api.base + "/console/")
    page.get_by_label(words["header"]).fill("quellenhof")
    page.get_by_label(words["header"]).press("Enter")
    expect(page.locator("main h2")).to_have_text(words["contacts"])
    expect(page.locator("main")).to_contain_text("Zacharias Quellenhof")
    check_accessibility(page)
    screenshot(page, f"console-search-{locale}")
    for width, size in WIDTHS.items():
        page.set_viewport_size(size)
        assert page.evaluate("document.scrollingElement.scrollWidth") <= size["width"], width
        screenshot(page, f"console-search-{width}-{locale}")
    page.set_viewport_size({"width": 1280, "height": 900})

    page.get_by_role("link", name="Zacharias Quellenhof").click()
    expect(page).to_have_url(api.base + f"/console/data/contacts/{last['id']}")

    page.goto(api.base + "/console/data/contacts")
    page.get_by_label(words["list"]).fill("Quellenhof Zacharias")  # words in any order
    page.get_by_label(words["list"]).press("Enter")
    expect(page.locator("main table tbody tr")).to_have_count(1)
    expect(page.locator("main table")).to_contain_text("Zacharias Quellenhof")
