"""Names and local time on the console's other pages (issue 37): the keys (list, a key's page, its
request log), a webhook (its page, the delivery log) and the sandboxes show times as every page
does (times.when: the person's zone, the language's format, UTC on hover), a key bound to a
person names the contact, a delivery names its entity; no page keeps a time format of its own."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any
from zoneinfo import ZoneInfo

from chalicelib import clock
from tests.client import Tenant
from tests.console_client import owner_of
from tests.eventually import eventually
from tests.receiver import Receiver

GERMAN_TIME = re.compile(r'<time datetime="[0-9T:\-]+Z" title="[^"]+ UTC">\d\d\.\d\d\.\d{4}, \d\d:\d\d</time>')
ENGLISH_TIME = re.compile(r'<time datetime="[0-9T:\-]+Z" title="[^"]+ UTC">\d{1,2} \w{3} \d{4}, \d\d:\d\d</time>')
OLD_FORMAT = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?( UTC)?")


def _no_old_format(html: str) -> None:
    """No time in the pages' former own formats (2026-05-01 09:30, ... UTC) outside a hover title."""
    visible = re.sub(r'title="[^"]*"', "", html)
    assert not OLD_FORMAT.search(visible), OLD_FORMAT.search(visible)


def test_the_key_pages_name_the_person_and_show_local_times(tenant: Tenant) -> None:
    person = tenant.contact(firstName="Erika", lastName="Mustermann")
    owner = owner_of(tenant)
    body: dict[str, Any] = {"agentName": "erika-assistant", "scopes": ["read"], "person": person["id"]}
    # an expiry at midnight UTC a month or more ahead, whatever day the test runs
    expires = (clock.now() + dt.timedelta(days=40)).replace(hour=0, minute=0, second=0, microsecond=0)
    key = tenant.ok("apikeys.create", {"apiKey": {**body, "expiresAt": clock.iso(expires)}})["apiKey"]
    assert tenant.query("info", key=key["key"]).status == 200

    def logged() -> bool:
        assert tenant.get("apikeys.requests.list", {"apiKey": key["id"], "limit": 1, "offset": 0})["requests"]
        return True

    eventually(logged, message="the key's call in its request log")
    owner.lang = "de"
    detail = owner.get(f"/keys/{key['id']}")
    assert detail.status == 200
    assert "Erika Mustermann" in detail.text() and person["id"] in detail.text()
    assert len(GERMAN_TIME.findall(detail.html)) >= 4  # created, last used, expires, the log's call
    # midnight UTC is one o'clock in Berlin (two in summer time)
    berlin = expires.astimezone(ZoneInfo("Europe/Berlin"))
    assert berlin.strftime("%d.%m.%Y, %H:%M") in detail.text()
    _no_old_format(detail.html)
    listing = owner.get("/keys")
    assert GERMAN_TIME.search(listing.html) and "Erika Mustermann" in listing.text()
    _no_old_format(listing.html)

    owner.lang = "en"
    english = owner.get(f"/keys/{key['id']}")
    assert ENGLISH_TIME.search(english.html) and f"{berlin.day} {berlin:%b %Y, %H:%M}" in english.text()
    assert "Erika Mustermann" in english.text()


def test_the_webhook_page_and_its_log_name_the_entity_and_show_local_times(tenant: Tenant, receiver: Receiver) -> None:
    owner = owner_of(tenant)
    hook = tenant.ok("webhooks.create", {"name": "Buchhaltung", "url": receiver.url, "events": ["contact.created"]})
    hook_id = hook["webhook"]["id"]
    contact = tenant.contact(firstName="Jürgen", lastName="Schäfer")

    def delivered() -> bool:
        found = tenant.get("webhooks.deliveries.list", {"webhook": hook_id, "limit": 5, "offset": 0})["deliveries"]
        assert found and found[0]["status"] == "delivered", found
        return True

    eventually(delivered, timeout=15, message="the contact's event delivered")
    owner.lang = "de"
    page = owner.get(f"/webhooks/{hook_id}")
    assert page.status == 200
    assert "Jürgen Schäfer" in page.text() and contact["id"] in page.text()
    assert len(GERMAN_TIME.findall(page.html)) >= 3  # created, updated, the delivery (and its attempt)
    _no_old_format(page.html)
    owner.lang = "en"
    assert ENGLISH_TIME.search(owner.get(f"/webhooks/{hook_id}").html)


def test_the_sandboxes_show_local_times(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    owner.lang = "de"
    assert owner.post("/sandboxes", {"name": "Probe", "seed": "empty"}).status == 303
    page = owner.get("/sandboxes")
    assert GERMAN_TIME.search(page.html), page.text()
    _no_old_format(page.html)
