"""The console's API keys (issue 19): a new key's secret is shown once and never again, disabling,
the guided rotation end to end (checked over REST), readable refusals, the request log, and
that keys of another tenant stay out of reach."""

from __future__ import annotations

import re
import uuid
from typing import Any

from tests.client import Tenant, from_source
from tests.console_client import Page, Person, invite, owner_of

KEY_LINK = re.compile(r'href="/console/keys/(key_[0-9A-Z]{26})"')


def _create(owner: Person, **form: Any) -> Page:
    fields: dict[str, Any] = {"agentName": "invoice-bot", "binding": "company", "scopes": ["read"], "expiry": ""}
    return owner.post("/keys", {**fields, **form})


def _key_id(page: Page) -> str:
    found = KEY_LINK.search(page.html)
    assert found, page.text()
    return found.group(1)


def _rest_key(tenant: Tenant, agent: str, scopes: list[str]) -> dict[str, Any]:
    body = tenant.ok("apikeys.create", {"apiKey": {"agentName": agent, "scopes": scopes}})
    return dict(body["apiKey"])


def _keys(tenant: Tenant) -> dict[str, dict[str, Any]]:
    listed = tenant.get("apikeys.list", {"limit": 100, "offset": 0})["apiKeys"]
    return {key["id"]: key for key in listed}


def test_a_new_key_shows_its_secret_once_and_never_again(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    form = owner.get("/keys/new")
    assert form.status == 200
    assert "Create and change data in every area" in form.text()  # scopes explained in plain words

    created = _create(owner, agentName="invoice-bot", scopes=["read", "write:accounting"])
    assert created.status == 200, created.text()
    secret = created.secret
    assert secret and secret.startswith("pm_"), created.text()
    assert 'class="copy"' in created.html and "shown this one time only" in created.text()
    assert tenant.query("info", key=secret).status == 200

    key_id = _key_id(created)
    key = _keys(tenant)[key_id]
    assert key["agentName"] == "invoice-bot" and key["scopes"] == ["read", "write:accounting"]
    assert key["binding"] == {"type": "company"}

    listing = owner.get("/keys")
    detail = owner.get(f"/keys/{key_id}")
    for page in (listing, detail):
        assert page.status == 200
        assert secret not in page.html and page.secret is None
    assert "invoice-bot" in listing.text() and "Write: Accounting" in listing.text()
    assert key_id in detail.text() and "active" in detail.text()


def test_a_key_bound_to_a_person_with_an_expiry(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    person = tenant.contact(firstName="Erika", lastName="Muster")
    created = _create(owner, agentName="erika-assistant", binding="person", person=person["id"], expiry="2099-01-01")
    assert created.status == 400  # at most 730 days ahead
    assert "at most 730 days ahead" in created.text() and created.secret is None

    created = _create(owner, agentName="erika-assistant", binding="person", person=person["id"])
    assert created.status == 200, created.text()
    key = _keys(tenant)[_key_id(created)]
    assert key["binding"] == {"type": "person", "contactId": person["id"]}
    shown = owner.get(f"/keys/{key['id']}").text()
    assert f"Person: Erika Muster {person['id']}" in shown  # the contact by name, the id as secondary text


def test_a_key_that_leaves_out_other_parties_text_for_agents(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    form = owner.get("/keys/new")
    assert 'name="untrustedText" value="omit"' in form.html
    assert "placeholder naming who wrote it" in form.text()  # what the choice does, in plain words

    created = _create(owner, agentName="careful-bot", untrustedText="omit")
    assert created.status == 200, created.text()
    key = _keys(tenant)[_key_id(created)]
    assert key["untrustedText"] == "omit"
    assert "Other parties' text left out (MCP)" in owner.get(f"/keys/{key['id']}").text()

    rotated = owner.post(f"/keys/{key['id']}/rotate")  # the new key keeps the choice
    new_id = re.search(r'name="rotatedTo" value="(key_[0-9A-Z]{26})"', rotated.html)
    assert new_id, rotated.html
    assert _keys(tenant)[new_id.group(1)]["untrustedText"] == "omit"

    plain = _create(owner, agentName="plain-bot")
    assert _keys(tenant)[_key_id(plain)]["untrustedText"] == "show"
    assert "Other parties' text shown, marked with its author" in owner.get(f"/keys/{_key_id(plain)}").text()


def test_disabling_a_key(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    key = _rest_key(tenant, "temp-bot", ["read"])
    assert tenant.query("info", key=key["key"]).status == 200

    done = owner.post(f"/keys/{key['id']}/disable")
    assert done.status == 303 and done.location == f"/console/keys/{key['id']}?done=disabled"
    page = owner.get(f"/keys/{key['id']}?done=disabled")
    assert "The key is disabled" in page.text() and 'role="status"' in page.html
    assert "Disable key" not in page.text() and "Rotate key" not in page.text()

    answer = tenant.query("info", key=key["key"])
    assert answer.status == 401 and answer.body["code"] == "key_disabled"
    assert _keys(tenant)[key["id"]]["disabled"] is True


def test_rotation_end_to_end(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    person = tenant.contact(lastName="Schmidt")
    created = _create(
        owner, agentName="rotating-bot", binding="person", person=person["id"], scopes=["read", "write:contacts"]
    )
    old_id, old_secret = _key_id(created), created.secret
    assert old_secret

    explained = owner.get(f"/keys/{old_id}/rotate")
    assert explained.status == 200
    assert "Until then both keys work" in explained.text()

    rotated = owner.post(f"/keys/{old_id}/rotate")
    assert rotated.status == 200, rotated.text()
    new_secret = rotated.secret
    assert new_secret and new_secret != old_secret
    assert "Disable the old key now" in rotated.text()
    new_id = re.search(r'name="rotatedTo" value="(key_[0-9A-Z]{26})"', rotated.html)
    assert new_id, rotated.html
    new = _keys(tenant)[new_id.group(1)]
    assert new["agentName"] == "rotating-bot" and new["scopes"] == ["read", "write:contacts"]
    assert new["binding"] == {"type": "person", "contactId": person["id"]}

    # Between the steps both keys work.
    assert tenant.query("info", key=old_secret).status == 200
    assert tenant.query("info", key=new_secret).status == 200

    finished = owner.post(f"/keys/{old_id}/disable", {"rotatedTo": new["id"]})
    assert finished.status == 303 and finished.location == f"/console/keys/{new['id']}?done=rotated"
    assert "The old key is disabled" in owner.get(f"/keys/{new['id']}?done=rotated").text()
    assert tenant.query("info", key=old_secret).status == 401
    assert tenant.query("info", key=new_secret).status == 200
    assert new_secret not in owner.get(f"/keys/{new['id']}").html


def test_a_third_key_for_an_agent_is_explained(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    key = _rest_key(tenant, "busy-bot", ["read"])
    assert owner.post(f"/keys/{key['id']}/rotate").status == 200
    again = owner.post(f"/keys/{key['id']}/rotate")
    assert again.status == 409
    assert "This agent has an active key already" in again.text() and again.secret is None


def test_validation_errors_read_plainly_and_keep_the_form(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    refused = owner.post("/keys", {"agentName": "!nope", "binding": "company", "expiry": ""})
    assert refused.status == 400
    text = refused.text()
    assert "Agent name: please use only letters" in text
    assert "Permissions: please choose at least one permission" in text
    assert 'role="alert"' in refused.html and 'value="!nope"' in refused.html
    assert refused.secret is None

    no_person = _create(owner, binding="person", person="")
    assert no_person.status == 400 and "please enter the contact id or alias" in no_person.text()
    unknown = _create(owner, binding="person", person="nobody-alias")
    assert unknown.status == 404 and "there is no contact with this id or alias" in unknown.text()
    past = _create(owner, expiry="2001-01-01")
    assert past.status == 400 and "please choose a day after today" in past.text()

    owner.lang = "de"
    german = owner.post("/keys", {"agentName": "", "scopes": ["read"]})
    assert german.status == 400
    assert "Bitte verwenden Sie nur Buchstaben" in german.text()


def test_the_request_log_shows_calls_made_with_the_key(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    key = _rest_key(tenant, "log-bot", ["read"])
    assert tenant.query("contacts", {"limit": 5, "offset": 0}, key=key["key"]).status == 200
    for _ in range(26):
        assert tenant.query("info", key=key["key"]).status == 200
    assert tenant.command("contacts.create", {"contact": {"lastName": "X"}}, key=key["key"]).status == 403

    first = owner.get(f"/keys/{key['id']}")
    assert first.status == 200
    text = first.text()
    assert "contacts.create" in text and "403" in text and "POST" in text  # newest first
    assert "Entries 1–25 of 28" in text
    second = owner.get(f"/keys/{key['id']}?offset=25")
    assert "Entries 26–28 of 28" in second.text()
    assert "contacts " in second.text() and "contacts.create" not in second.text()

    quiet = _rest_key(tenant, "quiet-bot", ["read"])
    assert "No requests yet." in owner.get(f"/keys/{quiet['id']}").text()


def test_keys_of_another_tenant_are_out_of_reach(tenant: Tenant, other_tenant: Tenant) -> None:
    owner = owner_of(tenant)
    foreign = _rest_key(other_tenant, "foreign-bot", ["read"])
    assert owner.get(f"/keys/{foreign['id']}").status == 404
    assert owner.get(f"/keys/{foreign['id']}/rotate").status == 404
    assert owner.post(f"/keys/{foreign['id']}/rotate").status == 404
    assert owner.post(f"/keys/{foreign['id']}/disable").status == 404
    assert other_tenant.query("info", key=foreign["key"]).status == 200
    assert "foreign-bot" not in owner.get("/keys").text()
    assert owner.get("/keys/not-a-key").status == 404


def test_a_viewer_sees_the_keys_read_only_and_changes_none(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    key = _rest_key(tenant, "guarded-bot", ["read"])
    with from_source("198.51.100.7"):
        assert tenant.query("info", key=key["key"]).status == 200  # a call with a source address in the log
    viewer = invite(owner, f"viewer-{uuid.uuid4().hex[:10]}@example.org", "viewer")

    listed = viewer.get("/keys")
    assert listed.status == 200, listed.text()  # was 403, though a viewer "sees everything"
    assert "guarded-bot" in listed.text() and "As a viewer you see the keys but change none" in listed.text()
    assert 'href="/console/keys/new"' not in listed.html and "<form" not in listed.html.split("</header>")[1]

    detail = viewer.get(f"/keys/{key['id']}")
    assert detail.status == 200, detail.text()
    assert "guarded-bot" in detail.text() and "info" in detail.text()  # its facts and its request log
    assert "/disable" not in detail.html and "/rotate" not in detail.html
    assert "Source addresses are shown to owners and admins only." in detail.text()
    assert "198.51.100.7" not in detail.html and "Last used from address" not in detail.text()
    assert key["key"] not in detail.html and key["key"] not in listed.html
    assert "198.51.100.7" in owner.get(f"/keys/{key['id']}").html  # what the viewer does not see

    assert viewer.get("/keys/new").status == 403
    assert viewer.get(f"/keys/{key['id']}/rotate").status == 403
    assert viewer.post(f"/keys/{key['id']}/disable").status == 403
    assert viewer.post(f"/keys/{key['id']}/rotate").status == 403
    assert viewer.post("/keys", {"agentName": "sneaky", "scopes": ["read"]}).status == 403
    assert tenant.query("info", key=key["key"]).status == 200
    assert "sneaky" not in {k["agentName"] for k in _keys(tenant).values()}


def test_a_key_limited_to_objects_from_the_form_keeps_them_when_rotated(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    first = tenant.ok("objects.create", {"object": {"name": "WEG Erste", "type": "weg"}})["object"]
    second = tenant.ok("objects.create", {"object": {"name": "WEG Zweite", "type": "weg"}})["object"]
    tenant.alias("weg-zweite", second["id"], "object")
    form = owner.get("/keys/new")
    assert 'name="objects"' in form.html and "every object" in form.text()

    unknown = _create(owner, agentName="meter-bot", objects=f"{first['id']}\nno-such-weg")
    assert unknown.status == 404 and "“no-such-weg”" in unknown.text(), unknown.text()
    assert "no-such-weg" in unknown.html  # the form keeps what was typed

    created = _create(owner, agentName="meter-bot", objects=f"{first['id']}, weg-zweite")
    assert created.status == 200, created.text()
    key_id = _key_id(created)
    assert _keys(tenant)[key_id]["objects"] == sorted([first["id"], second["id"]])
    detail = owner.get(f"/keys/{key_id}").text()
    assert first["id"] in detail and second["id"] in detail and "Objects" in detail
    assert "Every object" in owner.get(f"/keys/{_rest_key(tenant, 'wide-bot', ['read'])['id']}").text()

    rotated = owner.post(f"/keys/{key_id}/rotate")
    assert rotated.status == 200, rotated.text()
    new_id = re.search(r'name="rotatedTo" value="(key_[0-9A-Z]{26})"', rotated.html)
    assert new_id and _keys(tenant)[new_id.group(1)]["objects"] == sorted([first["id"], second["id"]])
