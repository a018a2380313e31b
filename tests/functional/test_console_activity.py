"""The console's agent activity (issue 19): the audit trail filtered by agent, key, entity type,
operation and time; a change's diff; reverting one change, and everything a filter matches
after a preview that changes nothing."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from tests.client import Tenant
from tests.console_client import invite, owner_of
from tests.eventually import eventually

PAGE = {"limit": 1000, "offset": 0}


def _trail_total(tenant: Tenant, filters: dict[str, Any], total: int) -> None:
    """Wait until the stream has written `total` audit records matching `filters`."""

    def written() -> bool:
        found = tenant.get("audit.list", {**filters, **PAGE})["pagination"]["total"]
        assert found == total, f"{found} of {total} audit records"
        return True

    eventually(written, message=f"{total} audit records for {filters}")


def _records(tenant: Tenant, filters: dict[str, Any]) -> list[dict[str, Any]]:
    return list(tenant.get("audit.list", {**filters, **PAGE})["auditRecords"])


def _record_links(html: str) -> list[str]:
    return re.findall(r'href="/console/activity/(aud_[A-Za-z0-9]+)"', html)


def _agent_at_work(tenant: Tenant) -> tuple[str, list[dict[str, Any]]]:
    """An agent key that renames three contacts the owner's key created: (its key id, contacts)."""
    made = [tenant.contact(firstName="Anna", lastName=f"Alt{i}") for i in range(3)]
    bot = tenant.new_key(["read", "write", "destructive"], agent="crm-sync")
    for person in made:
        tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Vom Agenten"}}, key=bot)
    _trail_total(tenant, {"agentName": "crm-sync"}, 3)
    return tenant.get("info", key=bot)["key"]["id"], made


def test_the_trail_filters_by_agent_key_type_operation_and_time(tenant: Tenant) -> None:
    key_id, made = _agent_at_work(tenant)
    obj = tenant.ok("objects.create", {"object": {"name": "Haus am See", "type": "rental"}})["object"]
    _trail_total(tenant, {"entityId": obj["id"]}, 1)
    owner = owner_of(tenant)

    everything = owner.get("/activity")
    assert everything.status == 200
    assert obj["id"] in everything.text() and made[0]["id"] in everything.text()

    by_agent = owner.get("/activity?agentName=crm-sync")
    assert len(_record_links(by_agent.html)) == 3
    assert obj["id"] not in by_agent.text() and all(p["id"] in by_agent.text() for p in made)
    assert 'value="crm-sync"' in by_agent.html  # the filter stays filled in

    by_key = owner.get(f"/activity?keyId={key_id}")
    assert sorted(_record_links(by_key.html)) == sorted(_record_links(by_agent.html))

    objects = owner.get("/activity?entityType=object")
    assert obj["id"] in objects.text() and made[0]["id"] not in objects.text()
    assert 'href="/console/data/objects/' + obj["id"] + '"' in objects.html

    creations = owner.get("/activity?operation=contacts.create")
    assert len(_record_links(creations.html)) == 3 and obj["id"] not in creations.text()

    assert _record_links(owner.get("/activity?agentName=crm-sync&to=2000-01-01T00:00").html) == []
    assert len(_record_links(owner.get("/activity?agentName=crm-sync&from=2000-01-01T00:00:00").html)) == 3

    unreadable = owner.get("/activity?from=yesterday")
    assert unreadable.status == 400 and "yesterday" in unreadable.text()
    assert owner.get("/activity?agentName=nobody").text().count("No changes found.") == 1


def test_a_change_shows_its_old_and_new_values(tenant: Tenant) -> None:
    person = tenant.contact(firstName="Anna", lastName="Alt", notes="erste Notiz")
    tenant.ok(
        "contacts.update",
        {"contact": {"id": person["id"], "lastName": "Neu", "emails": [{"address": "anna@example.org"}]}},
    )
    _trail_total(tenant, {"entityId": person["id"]}, 2)
    update = _records(tenant, {"entityId": person["id"], "operation": "contacts.update"})[0]
    owner = owner_of(tenant)

    row = owner.get(f"/activity?entityId={person['id']}")
    assert "<del>" in row.html and "Alt</del>" in row.html and "Neu</ins>" in row.html

    detail = owner.get(f"/activity/{update['id']}")
    assert detail.status == 200
    assert re.search(r"Last name</th>\s*<td[^>]*><del>.*?Alt</del>", detail.html, re.S)
    assert re.search(r"<ins>.*?Neu</ins>", detail.html, re.S)
    assert "notes" not in detail.text()  # unchanged fields are no part of the diff
    assert "E-mail addresses" in detail.text() and "E-mail address: anna@example.org" in detail.text()  # nested
    assert f'href="/console/data/contacts/{person["id"]}"' in detail.html
    assert owner.get("/activity/aud_00000000000000000000000000").status == 404


def test_one_change_is_undone(tenant: Tenant) -> None:
    person = tenant.contact(lastName="Vorher")
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Nachher"}})
    _trail_total(tenant, {"entityId": person["id"]}, 2)
    update = _records(tenant, {"entityId": person["id"], "operation": "contacts.update"})[0]
    owner = owner_of(tenant)

    done = owner.post(f"/activity/{update['id']}/revert")
    assert done.status == 303 and done.location.endswith(f"/activity/{update['id']}?done=updated")
    assert "The change was undone" in owner.get(done.location.removeprefix("/console")).text()
    assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["lastName"] == "Vorher"

    _trail_total(tenant, {"entityId": person["id"]}, 3)  # the undo's own record written
    again = owner.post(f"/activity/{update['id']}/revert")  # undone already: the undo is no one else's change
    assert again.status == 303 and again.location.endswith("done=none")


def test_a_range_preview_lists_what_would_be_undone_and_changes_nothing(tenant: Tenant) -> None:
    _, made = _agent_at_work(tenant)
    tenant.ok("contacts.update", {"contact": {"id": made[0]["id"], "notes": "später vom Menschen"}})
    _trail_total(tenant, {"entityId": made[0]["id"]}, 3)
    contacts_before = tenant.get("contacts", PAGE)
    trail_before = tenant.get("audit.list", PAGE)["pagination"]["total"]
    owner = owner_of(tenant)

    preview = owner.get("/activity/revert?agentName=crm-sync&from=2000-01-01T00:00")
    assert preview.status == 200, preview.text()
    text = preview.text()
    assert "Will be set back (2)" in text and "Will be skipped (1)" in text
    assert all(p["id"] in text for p in made)
    assert "Changed later by someone else" in text and "nothing has been changed yet" in text
    assert 'name="agentName" value="crm-sync"' in preview.html and 'name="to"' in preview.html  # pinned to now

    assert tenant.get("contacts", PAGE) == contacts_before
    assert tenant.get("audit.list", PAGE)["pagination"]["total"] == trail_before

    assert owner.get("/activity?agentName=crm-sync").html.count("/activity/revert?") == 1  # the way to the preview
    assert owner.get("/activity/revert").status == 400  # no filter: never everything of the tenant


def test_confirming_the_preview_undoes_the_range(tenant: Tenant) -> None:
    key_id, made = _agent_at_work(tenant)
    owner = owner_of(tenant)
    preview = owner.get(f"/activity/revert?keyId={key_id}")
    hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', preview.html))
    assert hidden.keys() == {"csrf", "keyId", "to"}

    done = owner.post("/activity/revert", hidden)
    assert done.status == 200, done.text()
    assert "Records set back: 3; skipped: 0." in done.text()
    for person in made:
        assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["lastName"].startswith("Alt")

    _trail_total(tenant, {"operation": "audit.revert", "from": "2000-01-01T00:00:00Z"}, 3)
    trail_link = re.search(r'href="/console(/activity\?keyId=[^"]+)"', done.html)
    assert trail_link is not None
    reverts = owner.get(trail_link.group(1).replace("&amp;", "&"))
    assert len(_record_links(reverts.html)) == 3 and "audit.revert" in reverts.text()
    assert reverts.text().count("team member mem_") == 3  # a person acts with a member id, not a key


def test_a_viewer_reads_the_trail_but_may_not_undo(tenant: Tenant) -> None:
    person = tenant.contact(lastName="Vorher")
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Nachher"}})
    _trail_total(tenant, {"entityId": person["id"]}, 2)
    update = _records(tenant, {"entityId": person["id"], "operation": "contacts.update"})[0]
    viewer = invite(owner_of(tenant), f"viewer-{uuid.uuid4().hex[:10]}@example.org", "viewer")

    trail = viewer.get(f"/activity?entityId={person['id']}")
    assert trail.status == 200 and len(_record_links(trail.html)) == 2
    assert "/activity/revert?" not in trail.html
    detail = viewer.get(f"/activity/{update['id']}")
    assert detail.status == 200 and "/revert" not in detail.html

    assert viewer.post(f"/activity/{update['id']}/revert").status == 403
    assert viewer.get(f"/activity/revert?entityId={person['id']}").status == 403
    assert viewer.post("/activity/revert", {"entityId": person["id"]}).status == 403
    assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["lastName"] == "Nachher"


def test_the_team_s_records_show_the_owner_who_and_stay_out_of_a_viewers_trail(tenant: Tenant) -> None:
    """Issue 30: the account's records need `admin` (owners and admins hold it, viewers do not),
    and no member's address is in the trail. The owner still sees who joined: the member's name
    in the change, their current name or address beside the record, a link to the team page."""
    owner = owner_of(tenant)
    named, nameless = (f"{who}-{uuid.uuid4().hex[:10]}@example.org" for who in ("vera", "ohne"))
    viewer = invite(owner, named, "viewer", name="Vera Viewer")
    invite(owner, nameless, "viewer", name="")
    _trail_total(tenant, {"operation": "console.members.accept"}, 2)

    trail = owner.get("/activity?entityType=member")
    assert len(_record_links(trail.html)) == 5  # the owner's sign-up, two invitations, two acceptances
    assert "Vera Viewer" in trail.text() and nameless in trail.text()  # beside the record: who it is now
    assert 'href="/console/members"' in trail.html and "Team member" in trail.text()
    accepted = _records(tenant, {"operation": "console.members.accept"})
    assert all(named not in str(r) and nameless not in str(r) for r in _records(tenant, {}))  # in the trail itself
    detail = viewer.get(f"/activity/{accepted[0]['id']}")
    assert detail.status == 404
    assert _record_links(viewer.get("/activity?entityType=member").html) == []
    assert _record_links(viewer.get(f"/activity?entityId={tenant.id}").html) == []
    options = viewer.get("/activity").html
    assert 'value="member"' not in options and 'value="apiKey"' not in options and 'value="contact"' in options
    assert 'value="member"' in owner.get("/activity").html


def test_another_tenants_change_is_not_found(tenant: Tenant, other_tenant: Tenant) -> None:
    theirs = other_tenant.contact()
    _trail_total(other_tenant, {"entityId": theirs["id"]}, 1)
    record = _records(other_tenant, {"entityId": theirs["id"]})[0]
    owner = owner_of(tenant)
    assert owner.get(f"/activity/{record['id']}").status == 404
    assert owner.post(f"/activity/{record['id']}/revert").status == 404
    assert _record_links(owner.get(f"/activity?entityId={theirs['id']}").html) == []


@pytest.mark.slow
def test_the_trail_shows_the_newest_first_fifty_a_page(tenant: Tenant) -> None:
    bot = tenant.new_key(["read", "write"], agent="import-bot")
    made = [
        tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": f"Import {i}"}}, key=bot)[
            "contact"
        ]
        for i in range(55)
    ]
    _trail_total(tenant, {"agentName": "import-bot"}, 55)
    owner = owner_of(tenant)

    first = owner.get("/activity?agentName=import-bot")
    assert len(_record_links(first.html)) == 50 and "Entries 1–50 of 55" in first.text()
    assert made[-1]["id"] in first.text() and made[0]["id"] not in first.text()
    assert "<ins>" in first.html and "Import 54</ins>" in first.html  # a creation: every field is new
    following = re.search(r'href="/console(/activity\?agentName=import-bot&amp;offset=50)"', first.html)
    assert following is not None
    second = owner.get(following.group(1).replace("&amp;", "&"))
    assert len(_record_links(second.html)) == 5 and made[0]["id"] in second.text()

    contacts = owner.get("/activity?agentName=import-bot&entityType=contact&offset=50")
    assert len(_record_links(contacts.html)) == 5


def test_a_refused_undo_is_explained_in_the_persons_language(tenant: Tenant) -> None:
    """Issue 37, 2: the operation's refusal (changed_later, in English, naming `force`) reads
    in the page's language, with the way on: the entity's history."""
    person = tenant.contact(lastName="Vorher")
    bot = tenant.new_key(["read", "write"], agent="crm-sync")
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Vom Agenten"}}, key=bot)
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "notes": "später vom Menschen"}})
    _trail_total(tenant, {"entityId": person["id"]}, 3)
    change = _records(tenant, {"entityId": person["id"], "agentName": "crm-sync"})[0]
    owner = owner_of(tenant)
    for lang, expected in (("de", "danach noch einmal geändert"), ("en", "changed again afterwards")):
        owner.lang = lang
        refused = owner.post(f"/activity/{change['id']}/revert")
        assert refused.status == 409 and expected in refused.text(), refused.text()
        assert "force" not in refused.text() and "changed after" not in refused.text()
    assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["lastName"] == "Vom Agenten"


def test_a_single_undo_does_not_count_as_someone_elses_later_change(tenant: Tenant) -> None:
    """Issue 37, 3: after one of an agent's changes is undone, the range preview of the agent's
    changes does not skip that entity as 'changed later by someone else': the later change is
    the undo of a change in the range. Undoing the same change again has nothing to do."""
    _, made = _agent_at_work(tenant)
    first = _records(tenant, {"entityId": made[0]["id"], "agentName": "crm-sync"})[0]
    owner = owner_of(tenant)
    assert owner.post(f"/activity/{first['id']}/revert").status == 303
    _trail_total(tenant, {"entityId": made[0]["id"]}, 3)

    preview = owner.get("/activity/revert?agentName=crm-sync&from=2000-01-01T00:00")
    text = preview.text()
    assert "Changed later by someone else" not in text and "Will be skipped" not in text, text
    assert "Will be set back (3)" in text and "nothing to do" in text

    again = owner.post(f"/activity/{first['id']}/revert")
    assert again.status == 303 and again.location.endswith("done=none"), again.text()
    done = owner.post("/activity/revert", {"agentName": "crm-sync", "from": "2000-01-01T00:00"})
    assert done.status == 200 and "Skipped" not in done.text()
    assert {tenant.get("contacts.show", {"contact": p["id"]})["contact"]["lastName"] for p in made} == {
        "Alt0",
        "Alt1",
        "Alt2",
    }


def test_a_range_still_skips_a_change_someone_else_made_after_an_undo(tenant: Tenant) -> None:
    _, made = _agent_at_work(tenant)
    first = _records(tenant, {"entityId": made[0]["id"], "agentName": "crm-sync"})[0]
    owner = owner_of(tenant)
    assert owner.post(f"/activity/{first['id']}/revert").status == 303
    tenant.ok("contacts.update", {"contact": {"id": made[0]["id"], "notes": "danach vom Menschen"}})
    _trail_total(tenant, {"entityId": made[0]["id"]}, 4)
    text = owner.get("/activity/revert?agentName=crm-sync&from=2000-01-01T00:00").text()
    assert "Will be skipped (1)" in text and "Changed later by someone else" in text


def test_switching_the_language_keeps_the_filters(tenant: Tenant) -> None:
    """Issue 37, 6: the language links kept only `?lang=`, dropping the trail's filters."""
    owner = owner_of(tenant)
    page = owner.get("/activity?agentName=crm-sync&entityType=contact")
    assert 'href="?agentName=crm-sync&amp;entityType=contact&amp;lang=de"' in page.html, page.html
    german = owner.get("/activity?agentName=crm-sync&entityType=contact&lang=de")
    assert (
        'value="crm-sync"' in german.html
        and 'href="?agentName=crm-sync&amp;entityType=contact&amp;lang=en"' in german.html
    )
