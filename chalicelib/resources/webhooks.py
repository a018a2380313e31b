"""Webhook subscriptions: where create, update, delete and restore events of the tenant's
entities are pushed. The signing secret and the optional Authorization header are kept in
a companion item (PK <tenant>#<webhook id>, SK "secret") that no read returns; the secret
is shown once, in the answer of webhooks.create."""

from __future__ import annotations

import base64
import ipaddress
import os
import secrets
from typing import Any
from urllib.parse import urlsplit

from chalicelib import ids
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES, EntityType, declare
from chalicelib.errors import invalid_at
from chalicelib.registry import operation
from chalicelib.resources.common import declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.store import entities as store
from chalicelib.store.model import Item

ACTIONS = ("created", "updated", "deleted", "restored")
SECRET_SK = "secret"


def event_types() -> list[str]:
    """Every event type, derived from the entity catalogue: <entityType>.<action>."""
    return [f"{name}.{action}" for name in sorted(ENTITY_TYPES) for action in ACTIONS]


FIELDS: dict[str, Any] = {
    "name": s.string("A name for people: what receives the events.", max_length=200),
    "url": {**s.string("The receiver: an https URL (http only for loopback receivers in the local stage).", max_length=2000), "format": "uri"},
    "events": {
        **s.array(s.string("An event type from webhooks.eventTypes, or `*` for all.", max_length=100), "The event types to deliver.", max_items=500),
        "minItems": 1,
    },
    "enabled": s.boolean("Deliveries stop while false. Default true."),
    "description": s.text("Notes."),
    "authorizationHeaderSet": s.boolean("Whether an Authorization header is sent with each delivery (the value is never shown)."),
}


def _check(data: dict[str, Any], webhook_id: str | None) -> None:
    url = data.get("url")
    if url:
        _check_url(url)
    known = set(event_types())
    for i, event in enumerate(data.get("events", [])):
        if event != "*" and event not in known:
            raise invalid_at(f"webhook.events[{i}]", f"unknown event type {event!r}; see webhooks.eventTypes")
    data.setdefault("enabled", True)


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise invalid_at("webhook.url", "must be an absolute https URL")
    if parts.username or parts.password:
        raise invalid_at("webhook.url", "credentials in the URL are not allowed; use authorizationHeader")
    loopback = parts.hostname in ("localhost",) or _is_ip(parts.hostname, lambda ip: ip.is_loopback)
    local_stage = os.environ.get("PM_ALLOW_LOOPBACK_WEBHOOKS") == "1"
    if loopback and not local_stage:
        raise invalid_at("webhook.url", "loopback receivers are only allowed in the local stage")
    if parts.scheme == "http" and not (loopback and local_stage):
        raise invalid_at("webhook.url", "must use https")
    if _is_ip(parts.hostname, lambda ip: ip.is_private or ip.is_link_local or ip.is_multicast or ip.is_reserved) and not loopback:
        raise invalid_at("webhook.url", "private, link-local and reserved addresses are not allowed")


def _is_ip(host: str, test: Any) -> bool:
    try:
        return bool(test(ipaddress.ip_address(host.strip("[]"))))
    except ValueError:
        return False


WEBHOOK = declare(
    EntityType(name="webhook", plural="webhooks", prefix="whk", area="webhooks", fields=FIELDS, readonly=("authorizationHeaderSet",), check=_check)
)

DOC = """A webhook subscribes a receiver URL to event types (`contact.created`, `unit.updated`, ...; the list is
`webhooks.eventTypes`, `*` subscribes to all). Each delivery is an HTTP POST with a JSON body
`{"id", "type", "timestamp", "tenantId", "data"}`, signed per the Standard Webhooks specification
(`webhook-id`, `webhook-timestamp`, `webhook-signature` headers, HMAC-SHA256 with the webhook's secret) and,
when set, carrying the configured `Authorization` header. The secret (`whsec_...`) is returned once, by
webhooks.create; the Authorization header is never returned (`authorizationHeaderSet` tells whether one is set)."""

AUTH_HEADER = s.string("Optional value of the Authorization header sent with every delivery, e.g. `Bearer abc`. Write-only.", max_length=4000)


def _secret_item(ctx: CallContext, webhook_id: str, secret: str | None, authorization: str | None) -> Item:
    data = {k: v for k, v in {"secret": secret, "authorizationHeader": authorization}.items() if v is not None}
    return Item(store.entity_pk(ctx.tenant_id, webhook_id), SECRET_SK, type="webhookSecret", tenantId=ctx.tenant_id, id=webhook_id, data=data)


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


@operation(
    name="webhooks.create",
    kind="command",
    summary="Subscribe a receiver URL to event types; the signing secret is returned once.",
    docs=DOC,
    args=s.obj(
        {
            "name": FIELDS["name"],
            "url": FIELDS["url"],
            "events": FIELDS["events"],
            "authorizationHeader": AUTH_HEADER,
            "enabled": FIELDS["enabled"],
            "description": FIELDS["description"],
        },
        required=["name", "url", "events"],
    ),
    result=s.obj(
        {
            "webhook": {
                **s.entity_output({**FIELDS, "secret": s.string("The signing secret, `whsec_...`: shown only here. Store it now.")}, "The created webhook.")
            }
        },
        required=["webhook"],
    ),
    scope="write:webhooks",
    example={
        "name": "CRM sync",
        "url": "https://crm.example.org/hooks/pm",
        "events": ["contact.created", "contact.updated"],
        "authorizationHeader": "Bearer abc123",
    },
)
def create(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    data = {k: v for k, v in args.items() if k != "authorizationHeader"}
    data["authorizationHeaderSet"] = bool(args.get("authorizationHeader"))
    secret = new_secret()
    webhook_id = ids.new_id(WEBHOOK.prefix)  # the companion secret item is keyed by it
    companion = _secret_item(ctx, webhook_id, secret, args.get("authorizationHeader"))
    item = store.create(ctx, WEBHOOK, data, path="webhook", companions=(companion,), entity_id=webhook_id)
    return {"webhook": {**store.to_wire(ctx, item), "secret": secret}}


def _update_guard(ctx: CallContext, item: Item, payload: dict[str, Any]) -> None:
    """Moves a new Authorization header into the secret item before the entity changes."""
    if "authorizationHeader" not in payload:
        return
    header = payload.pop("authorizationHeader")
    pk = store.entity_pk(ctx.tenant_id, item.id or "")
    action = Item.data["authorizationHeader"].set(header) if header else Item.data["authorizationHeader"].remove()
    Item(pk, SECRET_SK).update(actions=[action], condition=Item.pk.exists())
    payload["authorizationHeaderSet"] = bool(header)


declare_list(WEBHOOK, "webhooks.list", DOC)
declare_show(WEBHOOK, "webhooks.show", "webhook", DOC)
declare_update(WEBHOOK, "webhooks.update", "webhook", DOC, example={"enabled": False}, guard=_update_guard, write_only={"authorizationHeader": AUTH_HEADER})
declare_lifecycle(WEBHOOK, "webhooks", "webhook")


@operation(
    name="webhooks.eventTypes",
    kind="query",
    summary="The machine-readable list of current event types.",
    docs="Every entity type has `<entityType>.created`, `.updated`, `.deleted` and `.restored`. The catalogue grows with the "
    "service: read it at runtime rather than hard-coding it.",
    args=s.obj({}),
    result=s.obj(
        {
            "eventTypes": s.array(
                s.obj(
                    {"name": s.string("Event type."), "entityType": s.string("Entity type."), "action": s.enum("What happened.", list(ACTIONS))},
                    required=["name", "entityType", "action"],
                ),
                "Event types.",
                max_items=1000,
            )
        },
        required=["eventTypes"],
    ),
    scope="read",
    idempotent=True,
)
def list_event_types(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"eventTypes": [{"name": name, "entityType": name.rsplit(".", 1)[0], "action": name.rsplit(".", 1)[1]} for name in event_types()]}
