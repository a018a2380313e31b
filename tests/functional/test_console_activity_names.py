"""The activity pages speak to people (issue 37): entities by their names (the id as secondary
text), fields by their labels in the page's language, values as text, times in the person's time
zone with UTC on hover; and an admin stops an agent from its trail (its keys disabled)."""

from __future__ import annotations

import re

from tests.client import Tenant
from tests.console_client import invite, owner_of
from tests.eventually import eventually


def _written(tenant: Tenant, filters: dict[str, str], total: int) -> None:
    def check() -> bool:
        found = tenant.get("audit.list", {**filters, "limit": 1, "offset": 0})["pagination"]["total"]
        assert found == total, f"{found} of {total}"
        return True

    eventually(check, message=f"{total} audit records for {filters}")


def _schaefer_by_an_agent(tenant: Tenant) -> tuple[str, str]:
    """An agent key creates the contact Jürgen Schäfer and changes his last name's spelling
    back and forth: (the contact's id, the key's id)."""
    bot = tenant.new_key(["read", "write", "destructive"], agent="crm-sync")
    made = tenant.ok(
        "contacts.create",
        {"contact": {"personType": "natural", "firstName": "Jürgen", "lastName": "Schaefer"}},
        key=bot,
    )["contact"]
    tenant.ok("contacts.update", {"contact": {"id": made["id"], "lastName": "Schäfer", "language": "de"}}, key=bot)
    _written(tenant, {"agentName": "crm-sync"}, 2)
    return made["id"], tenant.get("info", key=bot)["key"]["id"]


def test_the_trail_and_the_undo_preview_name_the_contact_and_label_its_fields(tenant: Tenant) -> None:
    contact_id, _ = _schaefer_by_an_agent(tenant)
    owner = owner_of(tenant)
    owner.lang = "de"

    trail = owner.get("/activity?agentName=crm-sync")
    assert trail.status == 200
    text = trail.text()
    assert "Jürgen Schäfer" in text and "Nachname" in text
    assert "lastName" not in text
    # the id only as secondary text, never as the link's words
    assert f'<span class="muted mono entity-id">{contact_id}</span>' in trail.html
    assert not re.search(rf">\s*{contact_id}\s*</a>", trail.html)

    preview = owner.get("/activity/revert?agentName=crm-sync")
    assert preview.status == 200
    assert "Jürgen Schäfer" in preview.text() and not re.search(rf">\s*{contact_id}\s*</a>", preview.html)

    record = tenant.get("audit.list", {"entityId": contact_id, "operation": "contacts.update", "limit": 1, "offset": 0})
    detail = owner.get(f"/activity/{record['auditRecords'][0]['id']}")
    assert re.search(r"<th scope=\"row\">Nachname</th>\s*<td[^>]*><del>.*?Schaefer</del>", detail.html, re.S)
    assert "Sprache" in detail.text() and "lastName" not in detail.text()

    owner.lang = "en"
    english = owner.get("/activity?agentName=crm-sync").text()
    assert "Jürgen Schäfer" in english and "Last name" in english and "lastName" not in english


def test_times_are_local_with_utc_on_hover(tenant: Tenant) -> None:
    _schaefer_by_an_agent(tenant)
    owner = owner_of(tenant)
    owner.lang = "de"
    berlin = owner.get("/activity?agentName=crm-sync").html
    stamp = re.search(
        r'<time datetime="([0-9T:\-]+Z)" title="([^"]+) UTC">(\d\d\.\d\d\.\d{4}, \d\d:\d\d)</time>', berlin
    )
    assert stamp is not None, berlin
    owner.cookies["pm_tz"] = "America/New_York"
    owner.lang = "en"
    new_york = owner.get("/activity?agentName=crm-sync").html
    other = re.search(
        rf'<time datetime="{stamp.group(1)}" title="[^"]+ UTC">(\d{{1,2}} \w{{3}} \d{{4}}, \d\d:\d\d)</time>', new_york
    )
    assert other is not None
    assert other.group(1)[-5:] != stamp.group(3)[-5:]  # five or six hours apart
    owner.cookies["pm_tz"] = "../../etc/passwd"
    assert owner.get("/activity?agentName=crm-sync").status == 200  # no zone: Berlin


def test_an_admin_stops_an_agent_from_its_trail_and_a_viewer_cannot(tenant: Tenant) -> None:
    _, key_id = _schaefer_by_an_agent(tenant)
    owner = owner_of(tenant)
    viewer = invite(owner, "viewer@example.org", "viewer")
    seen = viewer.get("/activity?agentName=crm-sync")
    assert seen.status == 200 and "/activity/stop" not in seen.html
    assert viewer.post("/activity/stop", {"agentName": "crm-sync"}).status == 403
    assert tenant.get("apikeys.show", {"apiKey": key_id})["apiKey"]["disabled"] is False

    assert owner.get("/activity?stopped=1&agentName=crm-sync").text().count("is stopped") == 0  # not yet true
    trail = owner.get("/activity?agentName=crm-sync")
    form = re.search(r'<form method="post" action="/console/activity/stop"[^>]*data-confirm="([^"]+)"', trail.html)
    assert form is not None and "crm-sync" in form.group(1)
    done = owner.post("/activity/stop", {"agentName": "crm-sync"})
    assert done.status == 303
    after = owner.get(done.location.removeprefix("/console"))
    assert "crm-sync is stopped" in after.text() and "/activity/stop" not in after.html
    assert tenant.get("apikeys.show", {"apiKey": key_id})["apiKey"]["disabled"] is True
    _written(tenant, {"operation": "apikeys.disable"}, 1)
    disabled = tenant.get("audit.list", {"operation": "apikeys.disable", "limit": 1, "offset": 0})["auditRecords"][0]
    assert disabled["channel"] == "console" and disabled["entityId"] == key_id
