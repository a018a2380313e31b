"""The console's webhook pages, without a browser: create with events grouped by entity type
(the signing secret shown once, the authorization header never), a test's outcome, the delivery
log and a retry, disable/enable, delete then restore, a refused URL explained at its field, and
roles (a viewer reads but cannot change)."""

from __future__ import annotations

import re
import uuid
from typing import Any

from tests.client import Tenant
from tests.console_client import Page, Person, invite, owner_of
from tests.eventually import eventually
from tests.receiver import Receiver, closed_port

AUTH = "Bearer do-not-show-me-0815"


def _create(owner: Person, url: str, events: list[str], **extra: str) -> tuple[Page, str]:
    """Creates a webhook through the form; answers the page and the new webhook's id."""
    owner.get("/webhooks/new")
    form: list[tuple[str, Any]] = [("name", "Buchhaltung"), ("url", url), *(("events", e) for e in events)]
    form += list(extra.items())
    page = owner.post("/webhooks", form)
    assert page.status == 201, page.text()
    found = re.search(r'href="/console/webhooks/(whk_[A-Za-z0-9]+)"', page.html)
    assert found, page.html
    return page, found.group(1)


def test_the_form_groups_the_event_catalogue_by_entity_type(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    form = owner.get("/webhooks/new")
    assert form.status == 200
    catalogue = tenant.get("webhooks.eventTypes")["eventTypes"]
    entities = {event["entityType"] for event in catalogue}
    assert form.html.count("<fieldset>") == len(entities) + 1  # one per entity type, and "all events"
    contact = re.search(r"<legend>Contacts <span[^>]*>contact</span></legend>(.*?)</fieldset>", form.html, re.S)
    assert contact, form.html
    assert re.findall(r'value="(contact\.[a-z]+)"', contact.group(1)) == [
        "contact.created",
        "contact.updated",
        "contact.deleted",
        "contact.restored",
    ]
    assert re.findall(r"<label for=\"ev-contact-[a-z]+\">([a-z]+)</label>", contact.group(1)) == [
        "created",
        "updated",
        "deleted",
        "restored",
    ]


def test_create_shows_the_secret_once_and_never_the_authorization_header(tenant: Tenant, receiver: Receiver) -> None:
    owner = owner_of(tenant)
    created, hook_id = _create(
        owner, receiver.url, ["contact.created", "contact.updated", "unit.deleted"], authorizationHeader=AUTH
    )
    assert created.secret and created.secret.startswith("whsec_")
    assert AUTH not in created.html

    detail = owner.get(f"/webhooks/{hook_id}")
    text = detail.text()
    assert "Contacts: created, updated" in text and "Units: deleted" in text
    assert "Authorization header set (the value is not shown)" in text
    assert created.secret not in detail.html and AUTH not in detail.html

    listed = owner.get("/webhooks")
    assert "Buchhaltung" in listed.text() and "3 event types" in listed.text() and receiver.url in listed.text()
    assert re.search(r"Active\s*</td>\s*<td>set</td>", listed.html), listed.html
    assert AUTH not in listed.html and created.secret not in listed.html

    stored = tenant.get("webhooks.show", {"webhook": hook_id})["webhook"]
    assert sorted(stored["events"]) == ["contact.created", "contact.updated", "unit.deleted"]
    assert stored["authorizationHeaderSet"] is True


def test_a_bad_url_is_explained_at_its_field_and_the_form_kept(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    owner.get("/webhooks/new")
    page = owner.post(
        "/webhooks",
        [
            ("name", "Ticketsystem"),
            ("url", "ftp://example.org/hook"),
            ("events", "contact.created"),
            ("authorizationHeader", AUTH),
        ],
    )
    assert page.status == 400
    text = page.text()
    assert "Receiver URL: must be a complete https URL" in text  # the summary names the field by its label
    assert re.search(r'<input id="f-url"[^>]*aria-invalid="true"[^>]*aria-describedby="f-url-error', page.html)
    assert 'value="Ticketsystem"' in page.html and 'value="ftp://example.org/hook"' in page.html
    assert re.search(r'value="contact.created" checked', page.html)
    assert AUTH not in page.html and "Please enter it once more" in text  # write-only, even after a refusal
    assert tenant.get("webhooks.list", {"limit": 10, "offset": 0})["webhooks"] == []

    owner.lang = "de"
    german = owner.post("/webhooks", {"name": "Ticketsystem", "url": "https://example.org/hook"}).text()
    assert "Bitte wählen Sie mindestens ein Ereignis." in german


def test_a_test_shows_the_receivers_answer_or_why_it_failed(tenant: Tenant, receiver: Receiver) -> None:
    owner = owner_of(tenant)
    _, hook_id = _create(owner, receiver.url, ["contact.created"])
    sent = owner.post(f"/webhooks/{hook_id}/test")
    assert sent.status == 303 and sent.location.startswith(f"/console/webhooks/{hook_id}?")
    shown = owner.get(sent.location.removeprefix("/console")).text()
    assert "Test succeeded: the receiver answered 200" in shown
    assert receiver.delivered()[-1].event["type"] == "webhook.ping"

    _, down_id = _create(owner, f"http://127.0.0.1:{closed_port()}/hook", ["contact.created"])
    failed = owner.post(f"/webhooks/{down_id}/test")
    refused = owner.get(failed.location.removeprefix("/console"))
    assert re.search(r"role=\"alert\".*Test failed: the connection was refused\.", refused.html, re.S), refused.text()


def test_the_delivery_log_shows_attempts_and_a_retry_delivers(tenant: Tenant, receiver: Receiver) -> None:
    receiver.always = 500
    owner = owner_of(tenant)
    _, hook_id = _create(owner, receiver.url, ["contact.created"])
    tenant.contact(lastName="Protokoll")
    eventually(lambda: len(receiver.requests) >= 1, timeout=15, message="a refused attempt")

    def logged_with_500() -> str:
        page = owner.get(f"/webhooks/{hook_id}")
        row = re.search(r"<tr>\s*<td><span class=\"mono\">contact.created</span>.*?</tr>", page.html, re.S)
        assert row and re.search(r"<td>500</td>", row.group(0)), page.text()
        return row.group(0)

    row = eventually(logged_with_500, message="the refused attempt in the log")
    assert "an error at the receiver" in row
    delivery = re.search(r'name="delivery" value="(evt_[A-Za-z0-9]+)"', row)
    assert delivery

    receiver.always = None
    retried = owner.post(f"/webhooks/{hook_id}/retry", {"delivery": delivery.group(1)})
    assert retried.status == 303 and "done=retried" in retried.location
    assert "tried again" in owner.get(retried.location.removeprefix("/console")).text()

    def delivered() -> bool:
        text = owner.get(f"/webhooks/{hook_id}").text()
        assert "contact.created" in text and " delivered " in text, text
        return True

    eventually(delivered, timeout=15, message="the retried delivery logged as delivered")


def test_disable_and_enable(tenant: Tenant, receiver: Receiver) -> None:
    owner = owner_of(tenant)
    _, hook_id = _create(owner, receiver.url, ["contact.created"])
    off = owner.post(f"/webhooks/{hook_id}/disable")
    assert off.status == 303
    page = owner.get(off.location.removeprefix("/console"))
    assert "The webhook is disabled." in page.text() and f"/webhooks/{hook_id}/enable" in page.html
    assert tenant.get("webhooks.show", {"webhook": hook_id})["webhook"]["enabled"] is False
    assert re.search(r"Disabled\s*</td>", owner.get("/webhooks").html)

    on = owner.post(f"/webhooks/{hook_id}/enable")
    page = owner.get(on.location.removeprefix("/console"))
    assert "The webhook is enabled." in page.text() and f"/webhooks/{hook_id}/disable" in page.html
    assert tenant.get("webhooks.show", {"webhook": hook_id})["webhook"]["enabled"] is True


def test_delete_then_restore_from_the_notice(tenant: Tenant, receiver: Receiver) -> None:
    owner = owner_of(tenant)
    _, hook_id = _create(owner, receiver.url, ["contact.created"])
    gone = owner.post(f"/webhooks/{hook_id}/delete")
    assert gone.status == 303 and gone.location == f"/console/webhooks?deleted={hook_id}"
    listed = owner.get(gone.location.removeprefix("/console"))
    assert f"Webhook {hook_id} was deleted." in listed.text()
    assert f'action="/console/webhooks/{hook_id}/restore"' in listed.html and "Restore" in listed.text()
    assert "No webhooks have been set up yet." in listed.text()  # invisible to reads
    assert owner.get(f"/webhooks/{hook_id}").status == 404

    back = owner.post(f"/webhooks/{hook_id}/restore")
    assert back.status == 303 and back.location == f"/console/webhooks/{hook_id}?done=restored"
    page = owner.get(back.location.removeprefix("/console"))
    assert page.status == 200 and "The webhook was restored." in page.text() and "Buchhaltung" in page.text()
    assert tenant.get("webhooks.show", {"webhook": hook_id})["webhook"]["id"] == hook_id


def test_a_viewer_reads_but_every_change_is_refused(tenant: Tenant, receiver: Receiver) -> None:
    owner = owner_of(tenant)
    _, hook_id = _create(owner, receiver.url, ["contact.created"])
    viewer = invite(owner, f"viewer-{uuid.uuid4().hex[:8]}@example.org", "viewer")
    detail = viewer.get(f"/webhooks/{hook_id}")
    assert detail.status == 200 and "Buchhaltung" in detail.text()
    assert "/test" not in detail.html and "/delete" not in detail.html  # no buttons it may not use
    assert "/webhooks/new" not in viewer.get("/webhooks").html
    assert viewer.get("/webhooks/new").status == 403
    for action in ("test", "disable", "delete"):
        refused = viewer.post(f"/webhooks/{hook_id}/{action}")
        assert refused.status == 403 and "Your role does not allow this" in refused.text()
    assert viewer.post("/webhooks", {"name": "x", "url": receiver.url, "events": "contact.created"}).status == 403
    assert tenant.get("webhooks.show", {"webhook": hook_id})["webhook"]["enabled"] is True
    assert len(tenant.get("webhooks.list", {"limit": 10, "offset": 0})["webhooks"]) == 1


def test_another_companys_webhook_is_not_found(tenant: Tenant, other_tenant: Tenant, receiver: Receiver) -> None:
    _, hook_id = _create(owner_of(tenant), receiver.url, ["contact.created"])
    stranger = owner_of(other_tenant)
    for page in (stranger.get(f"/webhooks/{hook_id}"), stranger.post(f"/webhooks/{hook_id}/delete")):
        assert page.status == 404 and "There is no such webhook" in page.text()
        assert hook_id not in page.html  # not even repeated back
    assert tenant.get("webhooks.show", {"webhook": hook_id})["webhook"]["id"] == hook_id


# --- issue 37: the portal (edit, rotate, filter, resend, health; mend 7) ------------------------


def test_a_test_banner_typed_by_hand_shows_nothing(tenant: Tenant, receiver: Receiver) -> None:
    owner = owner_of(tenant)
    _, hook_id = _create(owner, receiver.url, ["contact.created"])
    for forged in ("tested=1&code=200&ms=12", "tested=evt_01FORGED0000000000000000", "tested=1"):
        page = owner.get(f"/webhooks/{hook_id}?{forged}")
        assert page.status == 200 and "Test succeeded" not in page.text() and "Test failed" not in page.text()
    assert receiver.requests == []  # nothing was sent
    # a real test's id on another webhook of the company shows nothing either
    _, other_id = _create(owner, receiver.url, ["contact.created"])
    sent = owner.post(f"/webhooks/{other_id}/test")
    tested = sent.location.split("tested=", 1)[1]
    assert "Test succeeded" not in owner.get(f"/webhooks/{hook_id}?tested={tested}").text()
    assert "Test succeeded: the receiver answered 200" in owner.get(sent.location.removeprefix("/console")).text()


def test_edit_changes_url_events_and_header_through_the_form(tenant: Tenant, receiver: Receiver) -> None:
    owner = owner_of(tenant)
    _, hook_id = _create(owner, receiver.url, ["contact.created"], authorizationHeader=AUTH)
    form = owner.get(f"/webhooks/{hook_id}/edit")
    assert form.status == 200 and 'value="contact.created" checked' in form.html and AUTH not in form.html
    assert "Remove the authorization header" in form.text()
    other = Receiver().start()
    try:
        saved = owner.post(
            f"/webhooks/{hook_id}/edit",
            [("name", "Fibu"), ("url", other.url), ("events", "unit.created"), ("events", "contact.updated")],
        )
        assert saved.status == 303 and "done=edited" in saved.location
        assert "The changes were saved." in owner.get(saved.location.removeprefix("/console")).text()
        stored = tenant.get("webhooks.show", {"webhook": hook_id})["webhook"]
        assert stored["name"] == "Fibu" and stored["url"] == other.url
        assert sorted(stored["events"]) == ["contact.updated", "unit.created"]
        assert stored["authorizationHeaderSet"] is True  # empty field: kept
        owner.post(
            f"/webhooks/{hook_id}/edit",
            [("name", "Fibu"), ("url", other.url), ("events", "unit.created"), ("removeAuthorization", "1")],
        )
        assert tenant.get("webhooks.show", {"webhook": hook_id})["webhook"]["authorizationHeaderSet"] is False
        bad = owner.post(
            f"/webhooks/{hook_id}/edit", [("name", "Fibu"), ("url", "ftp://x"), ("events", "unit.created")]
        )
        assert bad.status == 400 and 'aria-invalid="true"' in bad.html and "ftp://x" in bad.html
    finally:
        other.stop()


def test_rotate_shows_the_new_secret_once_and_both_sign(tenant: Tenant, receiver: Receiver) -> None:
    owner = owner_of(tenant)
    created, hook_id = _create(owner, receiver.url, ["contact.created"])
    rotated = owner.post(f"/webhooks/{hook_id}/rotate")
    assert rotated.status == 200 and rotated.secret and rotated.secret.startswith("whsec_")
    assert rotated.secret != created.secret
    detail = owner.get(f"/webhooks/{hook_id}")
    assert rotated.secret not in detail.html and "The previous secret also signs until" in detail.text()
    owner.post(f"/webhooks/{hook_id}/test")
    signatures = receiver.delivered()[-1].headers["webhook-signature"].split(" ")
    assert len(signatures) == 2


def test_the_log_filters_shows_attempt_details_and_resends_a_test(tenant: Tenant, receiver: Receiver) -> None:
    owner = owner_of(tenant)
    _, hook_id = _create(owner, receiver.url, ["contact.created"], authorizationHeader=AUTH)
    sent = owner.post(f"/webhooks/{hook_id}/test")
    test_id = sent.location.split("tested=", 1)[1]
    tenant.contact(lastName="Filter")
    eventually(lambda: len(receiver.requests) >= 2, timeout=15, message="the contact's delivery")
    pings = owner.get(f"/webhooks/{hook_id}?event=webhook.ping")
    assert test_id in pings.html and "contact.created</span>" not in pings.html
    assert "Resend" in pings.text() and "Attempt 1" in pings.text() and "webhook.ping" in pings.text()
    assert AUTH not in pings.html
    none = owner.get(f"/webhooks/{hook_id}?status=failed")
    assert "No deliveries match this filter." in none.text()
    junk = owner.get(f"/webhooks/{hook_id}?status=<script>&event=nope")
    assert junk.status == 200 and "<script>" not in junk.html
    resent = owner.post(f"/webhooks/{hook_id}/retry", {"delivery": test_id})
    assert resent.status == 303
    eventually(lambda: len(receiver.requests) >= 3, timeout=15, message="the resent test")
    assert receiver.requests[-1].event["id"] == test_id
    # the receiver holds the resent request before the sender settles its delivery: the badge follows
    eventually(lambda: "100% delivered" in owner.get("/webhooks").text(), timeout=15, message="the settled health")
