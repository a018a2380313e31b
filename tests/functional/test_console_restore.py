"""Restore from the activity pages (issue 37): a deleted entity shows its last name, marked
deleted, and for an admin or owner a restore button (confirmed) that runs the type's
`<list>.restore` as the signed-in person (audited as theirs), then a notice; a viewer sees no
button and a post of theirs is refused; a notice typed by hand says nothing."""

from __future__ import annotations

import re

from tests.client import Tenant
from tests.console_client import invite, owner_of
from tests.eventually import eventually

FORM = re.compile(r'<form method="post" action="/console/activity/restore"[^>]*data-confirm="([^"]+)"')


def _deleted_record(tenant: Tenant, contact_id: str) -> str:
    def written() -> str:
        found = tenant.get(
            "audit.list", {"entityId": contact_id, "operation": "contacts.delete", "limit": 1, "offset": 0}
        )["auditRecords"]
        assert found
        return str(found[0]["id"])

    return eventually(written, message="the deletion in the audit trail")


def test_an_owner_restores_a_deleted_contact_from_its_activity(tenant: Tenant) -> None:
    contact = tenant.contact(firstName="Erika", lastName="Mustermann")
    tenant.ok("contacts.delete", {"contact": contact["id"]})
    record_id = _deleted_record(tenant, contact["id"])
    owner = owner_of(tenant)
    owner.lang = "de"

    detail = owner.get(f"/activity/{record_id}")
    assert "Erika Mustermann" in detail.text() and "gelöscht" in detail.text()
    form = FORM.search(detail.html)
    assert form is not None, detail.html
    assert "Erika Mustermann" in form.group(1)  # the confirmation names what comes back
    trail = owner.get(f"/activity?entityId={contact['id']}")
    assert FORM.search(trail.html)

    assert owner.get(f"/activity/{record_id}?restored={contact['id']}").text().count("wiederhergestellt") == 0

    done = owner.post("/activity/restore", {"entityId": contact["id"], "back": f"/activity/{record_id}"})
    assert done.status == 303 and done.location == f"/console/activity/{record_id}?restored={contact['id']}"
    assert tenant.query("contacts.show", {"contact": contact["id"]}).status == 200
    after = owner.get(done.location.removeprefix("/console"))
    assert 'role="status"' in after.html and "Erika Mustermann ist wiederhergestellt" in after.text()
    assert not FORM.search(after.html)  # no longer deleted: no button

    def audited() -> bool:
        found = tenant.get(
            "audit.list", {"entityId": contact["id"], "operation": "contacts.restore", "limit": 1, "offset": 0}
        )["auditRecords"]
        assert found and found[0]["channel"] == "console", found
        return True

    eventually(audited, message="the restore audited as the owner's, through the console")


def test_a_viewer_sees_no_restore_and_cannot_post_one(tenant: Tenant) -> None:
    contact = tenant.contact(firstName="Erika", lastName="Mustermann")
    tenant.ok("contacts.delete", {"contact": contact["id"]})
    record_id = _deleted_record(tenant, contact["id"])
    viewer = invite(owner_of(tenant), "viewer@example.org", "viewer")
    page = viewer.get(f"/activity/{record_id}")
    assert page.status == 200 and not FORM.search(page.html)
    assert viewer.post("/activity/restore", {"entityId": contact["id"], "back": "/activity"}).status == 403
    assert tenant.query("contacts.show", {"contact": contact["id"]}).status != 200


def test_a_restore_goes_back_only_to_a_console_page_and_refuses_what_it_cannot_restore(tenant: Tenant) -> None:
    contact = tenant.contact(firstName="Erika", lastName="Mustermann")
    tenant.ok("contacts.delete", {"contact": contact["id"]})
    owner = owner_of(tenant)
    done = owner.post("/activity/restore", {"entityId": contact["id"], "back": "https://evil.example/"})
    assert done.status == 303 and done.location == f"/console/activity?restored={contact['id']}"
    assert owner.post("/activity/restore", {"entityId": "nonsense", "back": "/activity"}).status == 404
