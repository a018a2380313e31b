"""Agent activity in the browser (issue 19): an agent key changes 20 contacts; the owner finds
the changes under the agent, previews undoing them in a time range, confirms, and the contacts
have their old values back; the trail shows the undo. Accessibility of the trail, a change and
the preview, in English and German."""

from __future__ import annotations

import datetime as dt

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import check_accessibility, screenshot
from tests.browser.console import signed_in_owner
from tests.client import Api, Tenant
from tests.eventually import eventually

CONTACTS = 20


def _field_time(moment: dt.datetime) -> str:
    """A time as the form's datetime-local fields take it (UTC, whole seconds)."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _wait_for_trail(tenant: Tenant, filters: dict[str, str], total: int) -> None:
    """The stream writes audit records a moment after each change."""

    def written() -> bool:
        found = tenant.get("audit.list", {**filters, "limit": 1, "offset": 0})["pagination"]["total"]
        assert found == total, f"{found} of {total} audit records"
        return True

    eventually(written, timeout=20, message=f"{total} audit records for {filters}")


def _filter(page: Page, **values: str) -> None:
    for name, value in values.items():
        page.locator(f"#f-{name}").fill(value)
    page.locator("form.filters button[type=submit]").click()
    page.wait_for_load_state()


@pytest.mark.slow
def test_the_owner_undoes_what_an_agent_did_in_a_time_range(page: Page, api: Api) -> None:
    tenant = signed_in_owner(page, api)
    made = [tenant.contact(firstName="Kundin", lastName=f"Alt {i:02d}") for i in range(CONTACTS)]
    agent = tenant.new_key(["read", "write", "destructive"], agent="crm-sync")
    started = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(seconds=1)
    for i, person in enumerate(made):
        tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": f"CRM {i:02d}"}}, key=agent)
    ended = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(seconds=1)
    _wait_for_trail(tenant, {"agentName": "crm-sync"}, CONTACTS)

    page.goto(api.base + "/console/activity")
    _filter(page, agentName="crm-sync", **{"from": _field_time(started), "to": _field_time(ended)})
    rows = page.locator("table.activity tbody tr")
    expect(rows).to_have_count(CONTACTS)
    expect(rows.first).to_contain_text("crm-sync")
    expect(rows.first.locator("del")).to_contain_text("Alt")
    expect(rows.first.locator("ins")).to_contain_text("CRM")
    check_accessibility(page)
    screenshot(page, "console-activity")

    rows.first.locator("td").first.locator("a").click()
    expect(page.locator("h1")).to_contain_text("Change aud_")
    expect(page.locator("table.diff")).to_contain_text("Last name")
    check_accessibility(page)
    page.go_back()

    page.get_by_role("link", name="Undo these changes").click()
    expect(page.locator("h1")).to_have_text("Undo changes: preview")
    expect(page.locator("main")).to_contain_text(f"Will be set back ({CONTACTS})")
    expect(page.locator("main")).to_contain_text("nothing has been changed yet")
    check_accessibility(page)
    screenshot(page, "console-activity-revert-preview")
    assert tenant.get("contacts.show", {"contact": made[0]["id"]})["contact"]["lastName"] == "CRM 00"

    page.get_by_role("button", name="Undo now").click()
    expect(page.locator("[role=status]")).to_have_text(f"Records set back: {CONTACTS}; skipped: 0.")
    for i, person in enumerate(made):
        assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["lastName"] == f"Alt {i:02d}"

    _wait_for_trail(tenant, {"operation": "audit.revert"}, CONTACTS)
    page.goto(api.base + "/console/activity")
    _filter(page, operation="audit.revert")
    expect(rows).to_have_count(CONTACTS)
    expect(rows.first).to_contain_text("audit.revert")
    expect(rows.first).to_contain_text("team member mem_")  # the owner, who gave no name: by member id
    assert (
        tenant.email
        not in tenant.get("audit.list", {"operation": "audit.revert", "limit": 100, "offset": 0})["auditRecords"][0][
            "actor"
        ]["agentName"]
    )  # never by their address (issue 30)
    expect(rows.first.locator("ins")).to_contain_text("Alt")


@pytest.mark.locale("de-DE")
def test_the_trail_a_change_and_a_preview_in_german_pass_the_accessibility_check(page: Page, api: Api) -> None:
    tenant = signed_in_owner(page, api)
    person = tenant.contact(firstName="Erika", lastName="Muster", emails=[{"address": "erika@example.org"}])
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Neu", "notes": "Umgezogen"}})
    _wait_for_trail(tenant, {"entityId": person["id"]}, 2)

    page.goto(api.base + "/console/activity?entityType=contact")
    expect(page.locator("h1")).to_have_text("Agenten-Aktivität")
    expect(page.locator("table.activity tbody tr")).to_have_count(2)
    check_accessibility(page)

    page.locator("table.activity tbody tr").first.locator("td").first.locator("a").click()
    expect(page.locator("table.diff")).to_contain_text("Vorher")
    check_accessibility(page)

    page.get_by_role("link", name="Alle Änderungen an diesem Datensatz").click()
    page.get_by_role("link", name="Diese Änderungen rückgängig machen").click()
    expect(page.locator("main")).to_contain_text("Wird zurückgesetzt (1)")
    check_accessibility(page)
