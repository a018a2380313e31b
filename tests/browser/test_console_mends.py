"""Issue 37's mends in the browser (Chromium, German and English, axe on every page shown):
2. a refused undo speaks the page's language, not the API's English ("... send force ...");
3. after a single undo, the range preview does not skip the entity as changed by someone else;
5. the invitation mail names the role as the console does ("Rolle: Nur lesen", "role: Viewer");
and a deleted contact restored from its activity (confirmed, then a notice)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PageFor, check_accessibility
from tests.browser.console import accepting, signed_in_owner
from tests.client import Api, Tenant
from tests.eventually import eventually

BOTH = pytest.mark.parametrize("locale", ["de-DE", "en-US"])


def _trail(tenant: Tenant, filters: dict[str, str], total: int) -> list[dict[str, Any]]:
    def written() -> list[dict[str, Any]]:
        found = tenant.get("audit.list", {**filters, "limit": 100, "offset": 0})
        assert found["pagination"]["total"] == total, found["pagination"]
        return list(found["auditRecords"])

    return eventually(written, timeout=20, message=f"{total} audit records for {filters}")


@BOTH
def test_mend_2_a_refused_undo_in_the_pages_language(page_for: PageFor, api: Api, locale: str) -> None:
    page = page_for(locale)
    tenant = signed_in_owner(page, api)
    person = tenant.contact(lastName="Vorher")
    bot = tenant.new_key(["read", "write"], agent="crm-sync")
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Vom Agenten"}}, key=bot)
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "notes": "später vom Menschen"}})
    _trail(tenant, {"entityId": person["id"]}, 3)
    change = _trail(tenant, {"entityId": person["id"], "agentName": "crm-sync"}, 1)[0]
    accepting(page)
    page.goto(api.base + f"/console/activity/{change['id']}")
    german = locale == "de-DE"
    page.get_by_role("button", name="Änderung rückgängig machen" if german else "Undo this change").click()
    alert = page.locator("[role=alert]")
    expect(alert).to_contain_text("danach noch einmal geändert" if german else "changed again afterwards")
    expect(alert).not_to_contain_text("force")
    check_accessibility(page)
    assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["lastName"] == "Vom Agenten"


@BOTH
def test_mend_3_a_single_undo_is_no_later_change(page_for: PageFor, api: Api, locale: str) -> None:
    page = page_for(locale)
    tenant = signed_in_owner(page, api)
    made = [tenant.contact(firstName="Anna", lastName=f"Alt{i}") for i in range(3)]
    bot = tenant.new_key(["read", "write", "destructive"], agent="crm-sync")
    for person in made:
        tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Vom Agenten"}}, key=bot)
    first = _trail(tenant, {"agentName": "crm-sync"}, 3)[0]
    accepting(page)
    german = locale == "de-DE"
    page.goto(api.base + f"/console/activity/{first['id']}")
    page.get_by_role("button", name="Änderung rückgängig machen" if german else "Undo this change").click()
    expect(page.locator("[role=status]")).to_be_visible()
    _trail(tenant, {"entityId": first["entityId"]}, 3)

    page.goto(api.base + "/console/activity/revert?agentName=crm-sync&from=2000-01-01T00:00")
    main = page.locator("main")
    expect(main).to_contain_text("Wird zurückgesetzt (3)" if german else "Will be set back (3)")
    expect(main).not_to_contain_text("Wird übersprungen" if german else "Will be skipped")
    expect(main).not_to_contain_text("von jemand anderem geändert" if german else "Changed later by someone else")
    check_accessibility(page)
    page.get_by_role("button", name="Jetzt rückgängig machen" if german else "Undo now").click()
    expect(page.locator("[role=status]")).to_contain_text(
        "übersprungen: 0" if german else "skipped: 0", ignore_case=True
    )
    check_accessibility(page)
    names = {tenant.get("contacts.show", {"contact": p["id"]})["contact"]["lastName"] for p in made}
    assert names == {"Alt0", "Alt1", "Alt2"}


@BOTH
def test_mend_5_the_invitation_names_the_role_in_each_language(page_for: PageFor, api: Api, locale: str) -> None:
    page = page_for(locale)
    signed_in_owner(page, api)
    german = locale == "de-DE"
    invitee = f"leserin-{uuid.uuid4().hex[:8]}@example.org"
    page.goto(api.base + "/console/members")
    page.get_by_label("E-Mail-Adresse" if german else "E-mail address").fill(invitee)
    page.locator("#f-role").select_option("viewer")
    page.get_by_role("button", name="Einladen" if german else "Invite").click()
    expect(page.locator(".notice")).to_contain_text("eingeladen" if german else "invited")
    check_accessibility(page)

    page.goto(api.base + "/console/outbox")  # the local service's mailbox (make serve's, the tests')
    mail = page.locator("article.card").filter(has_text=invitee).first
    expect(mail).to_contain_text("(Rolle: Nur lesen)")
    expect(mail).to_contain_text("(role: Viewer)")
    expect(mail).not_to_contain_text("Rolle: viewer")
    check_accessibility(page)


@BOTH
def test_a_deleted_contact_is_restored_from_its_activity(page_for: PageFor, api: Api, locale: str) -> None:
    page = page_for(locale)
    tenant = signed_in_owner(page, api)
    person = tenant.contact(firstName="Erika", lastName="Mustermann")
    tenant.ok("contacts.delete", {"contact": person["id"]})
    deletion = _trail(tenant, {"entityId": person["id"], "operation": "contacts.delete"}, 1)[0]
    german = locale == "de-DE"
    asked = accepting(page)
    page.goto(api.base + f"/console/activity/{deletion['id']}")
    expect(page.locator("main")).to_contain_text("Erika Mustermann")
    expect(page.locator("main .badge").first).to_have_text("gelöscht" if german else "deleted")
    check_accessibility(page)
    page.get_by_role("button", name="Wiederherstellen" if german else "Restore").first.click()
    expect(page.locator("[role=status]")).to_contain_text(
        "Erika Mustermann ist wiederhergestellt" if german else "Erika Mustermann is restored"
    )
    assert asked and "Erika Mustermann" in asked[0]
    check_accessibility(page)
    assert tenant.query("contacts.show", {"contact": person["id"]}).status == 200
