"""Webhook subscriptions: secrets shown once, headers never, events from the catalogue,
URLs that cannot point into private networks."""

from __future__ import annotations

import pytest

from tests.client import Tenant

HOOK = {"name": "CRM", "url": "https://crm.example.org/hooks", "events": ["contact.created", "contact.updated"]}


def test_event_types_come_from_the_entity_catalogue(tenant: Tenant) -> None:
    names = {e["name"] for e in tenant.get("webhooks.eventTypes")["eventTypes"]}
    for entity in ("contact", "object", "unit", "contract", "document", "webhook"):
        assert {f"{entity}.created", f"{entity}.updated", f"{entity}.deleted", f"{entity}.restored"} <= names
    assert not any(n.startswith("apiKey.") for n in names)


def test_secret_is_shown_once_and_the_authorization_header_never(tenant: Tenant) -> None:
    created = tenant.ok("webhooks.create", {**HOOK, "authorizationHeader": "Bearer very-secret"})
    hook = created["webhook"]
    assert hook["secret"].startswith("whsec_") and hook["authorizationHeaderSet"] is True and hook["enabled"] is True
    assert "very-secret" not in str(created)
    shown = tenant.query("webhooks.show", {"webhook": hook["id"]})
    listed = tenant.query("webhooks.list", {"limit": 10, "offset": 0})
    for answer in (shown, listed):
        assert answer.status == 200
        assert hook["secret"] not in answer.raw.decode() and "very-secret" not in answer.raw.decode()
    assert "secret" not in shown.body["webhook"]


def test_authorization_header_can_be_changed_and_cleared(tenant: Tenant) -> None:
    hook = tenant.ok("webhooks.create", HOOK)["webhook"]
    assert hook["authorizationHeaderSet"] is False
    changed = tenant.ok("webhooks.update", {"webhook": {"id": hook["id"], "authorizationHeader": "Basic eDp5"}})[
        "webhook"
    ]
    assert changed["authorizationHeaderSet"] is True and "eDp5" not in str(changed)
    cleared = tenant.ok("webhooks.update", {"webhook": {"id": hook["id"], "authorizationHeader": None}})["webhook"]
    assert cleared["authorizationHeaderSet"] is False


def test_unknown_event_type_is_400(tenant: Tenant) -> None:
    answer = tenant.command("webhooks.create", {**HOOK, "events": ["contact.created", "contact.exploded"]})
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "webhook.events[1]"
    assert tenant.command("webhooks.create", {**HOOK, "events": ["*"]}).status == 200


@pytest.mark.parametrize(
    "url",
    [
        "http://crm.example.org/hooks",
        "ftp://crm.example.org/",
        "https://10.0.0.5/hook",
        "https://169.254.169.254/latest",
        "https://user:pw@crm.example.org/",
    ],
)
def test_unsafe_urls_are_400(tenant: Tenant, url: str) -> None:
    answer = tenant.command("webhooks.create", {**HOOK, "url": url})
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "webhook.url"


def test_loopback_receivers_only_in_the_local_stage(tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    local = {**HOOK, "url": "http://127.0.0.1:9999/hook"}
    assert tenant.command("webhooks.create", local).status == 200
    monkeypatch.setenv("PM_ALLOW_LOOPBACK_WEBHOOKS", "0")
    assert tenant.command("webhooks.create", local).status == 400


def test_webhook_lifecycle(tenant: Tenant) -> None:
    hook = tenant.ok("webhooks.create", HOOK)["webhook"]
    tenant.ok("aliases.upsert", {"entries": [{"alias": "crm-hook", "id": hook["id"], "type": "webhook"}]})
    assert tenant.get("webhooks.show", {"webhook": "crm-hook"})["webhook"]["name"] == "CRM"
    assert (
        tenant.ok("webhooks.update", {"webhook": {"id": "crm-hook", "enabled": False}})["webhook"]["enabled"] is False
    )
    tenant.ok("webhooks.delete", {"webhook": "crm-hook"})
    assert tenant.query("webhooks.show", {"webhook": hook["id"]}).status == 404
    assert tenant.get("webhooks.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 0
    tenant.ok("webhooks.restore", {"webhook": "crm-hook"})
    assert tenant.get("webhooks.show", {"webhook": hook["id"]})["webhook"]["id"] == hook["id"]


def test_webhooks_need_their_scope(tenant: Tenant) -> None:
    other = tenant.new_key(["read", "write:contacts"], agent="crm")
    assert tenant.command("webhooks.create", HOOK, key=other).status == 403


@pytest.mark.parametrize(
    ("command", "field", "payload"),
    [
        ("webhooks.update", "url", {}),
        ("webhooks.update", "events", {}),
        ("contacts.update", "personType", {"personType": "natural", "lastName": "Feld"}),
    ],
)
def test_an_update_cannot_clear_a_field_every_entity_has(
    tenant: Tenant, command: str, field: str, payload: dict[str, str]
) -> None:
    """Found by the stateful fuzzer: `null` cleared a webhook's URL, and a ping of it then failed
    with a 500. Null clears an optional field only; a field its create requires stays."""
    arg = command.split(".")[0][:-1]
    if arg == "webhook":
        made = tenant.ok("webhooks.create", HOOK)
    else:
        made = tenant.ok("contacts.create", {"contact": payload})
    entity = made[arg]
    answer = tenant.command(command, {arg: {"id": entity["id"], field: None}})
    assert answer.status == 400 and answer.body["code"] == "validation_failed", answer.body
    assert f"{arg}.{field}" in answer.body["detail"], answer.body
    assert tenant.ok(command, {arg: {"id": entity["id"], "description" if arg == "webhook" else "firstName": None}})
    if arg == "webhook":
        ping = tenant.ok("webhooks.test", {"webhook": entity["id"]})["ping"]
        assert ping["error"] is not None  # the receiver is unreachable: an outcome, not a 500
