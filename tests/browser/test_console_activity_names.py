"""The activity pages speak to people in the browser (issue 37), in German and English: an agent
key creates and changes the contact Jürgen Schäfer; the trail and the undo preview name him and
label the field ("Nachname") and show an enum value in words ("Natürliche Person" for `natural`,
in the trail and on the contact's data page), times are local with UTC on hover (the browser's
zone reaches the server in a cookie), and the owner stops the agent after a confirmation. axe on
every page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Dialog, Page, expect

from tests.browser.conftest import PageFor, check_accessibility
from tests.browser.console import signed_in_owner
from tests.client import Api
from tests.eventually import eventually

WORDS = {
    "de-DE": {
        "label": "Nachname",
        "kind": "Personenart",
        "natural": "Natürliche Person",
        "stopped": "ist gestoppt",
        "stop": "Agent crm-sync stoppen",
    },
    "en-US": {
        "label": "Last name",
        "kind": "Kind of person",
        "natural": "Natural person",
        "stopped": "is stopped",
        "stop": "Stop agent crm-sync",
    },
}


@pytest.mark.parametrize("locale", ["de-DE", "en-US"])
def test_the_trail_names_the_contact_and_the_owner_stops_the_agent(page_for: PageFor, api: Api, locale: str) -> None:
    words = WORDS[locale]
    page: Page = page_for(locale)
    tenant = signed_in_owner(page, api)
    bot = tenant.new_key(["read", "write", "destructive"], agent="crm-sync")
    made = tenant.ok(
        "contacts.create",
        {"contact": {"personType": "natural", "firstName": "Jürgen", "lastName": "Schaefer"}},
        key=bot,
    )["contact"]
    tenant.ok("contacts.update", {"contact": {"id": made["id"], "lastName": "Schäfer"}}, key=bot)
    key_id = tenant.get("info", key=bot)["key"]["id"]

    def written() -> bool:
        found = tenant.get("audit.list", {"agentName": "crm-sync", "limit": 1, "offset": 0})["pagination"]["total"]
        assert found == 2
        return True

    eventually(written, timeout=20, message="the agent's two changes in the trail")

    page.goto(api.base + "/console/activity?agentName=crm-sync")
    assert any(cookie["name"] == "pm_tz" for cookie in page.context.cookies())  # console.js told the zone
    rows = page.locator("table.activity tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("Jürgen Schäfer")
    expect(rows.first).to_contain_text(words["label"])
    expect(rows.first).not_to_contain_text("lastName")
    expect(rows.first.locator("time")).to_have_attribute("title", _utc())
    created = rows.nth(1)  # the creation: its diff shows the enum value in words, not `natural`
    expect(created.locator("li", has_text=words["kind"])).to_contain_text(words["natural"])
    expect(created).not_to_contain_text("personType")
    expect(created).not_to_contain_text("natural")
    check_accessibility(page)

    page.goto(api.base + f"/console/data/contacts/{made['id']}")
    expect(page.locator("main dl")).to_contain_text(words["natural"])
    expect(page.locator("main dl")).not_to_contain_text("natural")
    check_accessibility(page)

    page.goto(api.base + "/console/activity/revert?agentName=crm-sync")
    expect(page.locator("main")).to_contain_text("Jürgen Schäfer")
    check_accessibility(page)

    page.goto(api.base + "/console/activity?agentName=crm-sync")
    asked: list[str] = []

    def accept(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    page.get_by_role("button", name=words["stop"]).click()
    page.wait_for_load_state()
    assert asked and "crm-sync" in asked[0]
    expect(page.locator("p.notice")).to_contain_text(words["stopped"])
    expect(page.get_by_role("button", name=words["stop"])).to_have_count(0)
    assert tenant.get("apikeys.show", {"apiKey": key_id})["apiKey"]["disabled"] is True
    check_accessibility(page)


def _utc() -> re.Pattern[str]:
    return re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$")
