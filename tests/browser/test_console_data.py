"""The console's data pages in Chromium (issue 19): search a list by name, follow the links from an
object to its unit and the unit's contract; a list and a detail page pass axe-core in German and
English."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PageFor, check_accessibility, screenshot
from tests.browser.console import signed_in_owner
from tests.client import Api
from tests.functional.test_console_data import make_world
from tests.functional.test_entity_search import settled

WORDS = {
    "de-DE": {"search": "Nach Namen suchen", "button": "Suchen", "objects": "Objekte", "object": "Objekt"},
    "en-US": {"search": "Search by name", "button": "Search", "objects": "Objects", "object": "Object"},
}


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_search_a_list_and_follow_the_links_in_both_languages(page_for: PageFor, api: Api, locale: str) -> None:
    words = WORDS[locale]
    page = page_for(locale)
    tenant = signed_in_owner(page, api)
    world = make_world(tenant)
    rosenweg = tenant.ok("objects.create", {"object": {"name": "Rosenweg 7", "type": "rental"}})["object"]
    settled(tenant, "Rosenweg", rosenweg["id"])  # the search's index holds the world made before it too

    page.goto(api.base + "/console/data/objects")
    expect(page.locator("h1")).to_have_text(words["objects"])
    expect(page.locator("main table")).to_contain_text("Rosenweg 7")
    check_accessibility(page)
    page.get_by_label(words["search"]).fill("linden")
    page.get_by_role("button", name=words["button"], exact=True).click()
    expect(page.locator("main table")).to_contain_text("WEG Lindenstraße 12")
    expect(page.locator("main table")).not_to_contain_text("Rosenweg 7")
    check_accessibility(page)
    screenshot(page, f"console-data-search-{locale}")

    page.get_by_role("link", name="WEG Lindenstraße 12").click()
    expect(page.locator("h1")).to_have_text(f"{words['object']}: WEG Lindenstraße 12")
    check_accessibility(page)
    screenshot(page, f"console-data-object-{locale}")

    page.locator("main table").get_by_role("link", name="1.02", exact=True).click()
    expect(page).to_have_url(api.base + f"/console/data/units/{world.unit['id']}")
    page.locator("main table").get_by_role("link", name="Erika Weber").click()
    expect(page).to_have_url(api.base + f"/console/data/contracts/{world.contract['id']}")
    expect(page.locator("main dl")).to_contain_text(world.unit["id"])
    check_accessibility(page)


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_the_search_finds_a_full_name_without_umlauts(page_for: PageFor, api: Api, locale: str) -> None:
    """Issue 37, 8: "Schaefer" and "jürgen schäfer" find Jürgen Schäfer, whom an agent made."""
    words = WORDS[locale]
    page = page_for(locale)
    tenant = signed_in_owner(page, api)
    bot = tenant.new_key(["read", "write"], agent="crm-sync")
    contact = {"personType": "natural", "firstName": "Jürgen", "lastName": "Schafer"}
    made = tenant.ok("contacts.create", {"contact": contact}, key=bot)["contact"]
    tenant.ok("contacts.update", {"contact": {"id": made["id"], "lastName": "Schäfer"}}, key=bot)
    settled(tenant, "Schäfer", made["id"])
    for query in ("Schaefer", "jürgen schäfer"):
        page.goto(api.base + "/console/data/contacts")
        page.get_by_label(words["search"]).fill(query)
        page.get_by_role("button", name=words["button"], exact=True).click()
        expect(page.locator("main table")).to_contain_text("Jürgen")
    check_accessibility(page)
