"""Webhook subscriptions: where create, update, delete and restore events of the tenant's
entities are pushed. The signing secret and the optional Authorization header are kept in
a companion item (PK <tenant>#<webhook id>, SK "secret") that no read returns; the secret
is shown once, in the answer of webhooks.create."""

from __future__ import annotations

import base64
import ipaddress
import os
import secrets
import socket
from typing import Any
from urllib.parse import urlsplit

from chalicelib import ids
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES, EntityType, declare
from chalicelib.errors import invalid_at
from chalicelib.events import deliveries
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
    "disabledReason": s.string("Why deliveries were stopped (410 Gone, 5 days of failures); cleared by enabling it again.", max_length=1000),
    "disabledAt": s.timestamp("When deliveries were stopped."),
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
    if data["enabled"]:  # enabling again clears why it was stopped
        data.pop("disabledReason", None)
        data.pop("disabledAt", None)


def _check_url(url: str) -> None:
    """Scheme, credentials and literal addresses; names are checked again where it counts,
    after DNS resolution at each delivery (events/sender.py)."""
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise invalid_at("webhook.url", "must be an absolute https URL")
    if parts.username or parts.password:
        raise invalid_at("webhook.url", "credentials in the URL are not allowed; use authorizationHeader")
    host = parts.hostname.rstrip(".")
    address = _address(host)
    loopback = host == "localhost" or host.endswith(".localhost") or (address is not None and address.is_loopback)
    local_stage = os.environ.get("PM_ALLOW_LOOPBACK_WEBHOOKS") == "1"
    if loopback and not local_stage:
        raise invalid_at("webhook.url", "loopback receivers are only allowed in the local stage")
    if address is not None and not loopback and _not_public(address):
        raise invalid_at("webhook.url", "private, link-local, metadata and reserved addresses are not allowed")
    if parts.scheme == "http" and not (loopback and local_stage):
        raise invalid_at("webhook.url", "must use https")


def _address(host: str) -> Any:
    """The IP address a host names literally, in any notation a resolver accepts
    (`2130706433`, `0x7f.1`, `0177.0.0.1` are 127.0.0.1); None for a name."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except (OSError, ValueError):
        return None


def _not_public(ip: Any) -> bool:
    """Whether an address is no place to send events to (private, shared, link-local and with
    it the cloud metadata service, multicast, reserved, unspecified; loopback too)."""
    return bool(not ip.is_global or ip.is_private or ip.is_link_local or ip.is_multicast or ip.is_reserved or ip.is_unspecified or ip.is_loopback)


WEBHOOK = declare(
    EntityType(
        name="webhook",
        plural="webhooks",
        prefix="whk",
        area="webhooks",
        fields=FIELDS,
        readonly=("authorizationHeaderSet", "disabledReason", "disabledAt"),
        check=_check,
    )
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
    deliveries.forget_subscriptions(ctx.tenant_id)
    return {"webhook": {**store.to_wire(ctx, item), "secret": secret}}


def _update_guard(ctx: CallContext, item: Item, payload: dict[str, Any]) -> None:
    """Moves a new Authorization header into the secret item before the entity changes."""
    deliveries.forget_subscriptions(ctx.tenant_id)
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


DELIVERY = s.obj(
    {
        "id": s.string("The event id (`webhook-id` header): the receiver's deduplication key."),
        "eventType": s.string("Event type."),
        "status": s.enum("`pending` (due or waiting for a retry), `delivered`, `failed` (gave up).", ["pending", "delivered", "failed"]),
        "attempts": s.integer("Attempts so far."),
        "nextAttemptAt": {**s.timestamp("When the next attempt is due (pending)."), "nullable": True},
        "lastAttemptAt": {**s.timestamp("Last attempt."), "nullable": True},
        "lastStatusCode": {**s.integer("HTTP status of the last attempt."), "nullable": True},
        "lastError": {**s.string("What went wrong last."), "nullable": True},
        "lastDurationMs": {"type": "number", "nullable": True, "description": "Duration of the last attempt in ms."},
        "deliveredAt": {**s.timestamp("When it was delivered."), "nullable": True},
        "createdAt": s.timestamp("When the event was queued."),
    },
    required=["id", "eventType", "status", "attempts"],
)
DELIVERY_DOC = """Deliveries: each subscribed event is POSTed to the webhook's URL at once and, if the receiver does not
answer 2xx, again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (a `Retry-After` longer than the next
delay is honoured); then it is marked `failed`. Events of one entity arrive in order: a later event waits
while an earlier one is pending. A receiver answering 410 Gone disables the webhook, as do 5 days of
failures; `webhooks.show` then tells why (`disabledReason`). Delivery is at least once: deduplicate by the
`id` (also the `webhook-id` header)."""


@operation(
    name="webhooks.deliveries.list",
    kind="query",
    summary="The webhook's delivery log, newest first: status, attempts, response code and time.",
    docs=DELIVERY_DOC,
    args=s.obj({"webhook": s.ref("webhook", "The webhook."), **s.paging()}, required=["webhook", "limit", "offset"]),
    result=s.list_result("deliveries", DELIVERY),
    scope="read",
    idempotent=True,
    example={"webhook": "<id or alias>", "limit": 100, "offset": 0},
)
def list_deliveries(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    from chalicelib.events import deliveries

    store.get_item(ctx, WEBHOOK, args["webhook"], path="webhook")
    found = deliveries.log(ctx.tenant_id, args["webhook"])
    page = found[args["offset"] : args["offset"] + args["limit"]]
    return {"pagination": {"total": len(found), "limit": args["limit"], "offset": args["offset"]}, "deliveries": page}


@operation(
    name="webhooks.deliveries.retry",
    kind="command",
    summary="Send a delivery again now (also one that gave up).",
    docs=DELIVERY_DOC,
    args=s.obj({"webhook": s.ref("webhook", "The webhook."), "delivery": s.string("The delivery's event id (evt_...).")}, required=["webhook", "delivery"]),
    result=s.obj({"delivery": DELIVERY}, required=["delivery"]),
    scope="write:webhooks",
    example={"webhook": "<id or alias>", "delivery": "evt_01K..."},
)
def retry_delivery(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    from chalicelib.errors import NotFound
    from chalicelib.events import deliveries

    store.get_item(ctx, WEBHOOK, args["webhook"], path="webhook")
    try:
        item = deliveries.retry_now(ctx.tenant_id, args["webhook"], args["delivery"])
    except Item.DoesNotExist:
        raise NotFound(f"No delivery {args['delivery']} for this webhook.", errors=[{"path": "delivery", "message": "unknown delivery"}]) from None
    return {"delivery": deliveries.wire(item)}


@operation(
    name="webhooks.test",
    kind="command",
    summary="Send a signed `webhook.ping` event to the webhook now and report what the receiver answered.",
    docs="Sends at once, outside the queue, with the same signature and headers as every delivery, and answers the "
    "receiver's status code and the time it took. Use it to check a new receiver.",
    args=s.obj({"webhook": s.ref("webhook", "The webhook to ping.")}, required=["webhook"]),
    result=s.obj(
        {
            "ping": s.obj(
                {
                    "id": s.string("Event id of the ping."),
                    "statusCode": {**s.integer("Receiver's HTTP status."), "nullable": True},
                    "error": {**s.string("What went wrong."), "nullable": True},
                    "durationMs": {"type": "number", "description": "Round trip in ms."},
                },
                required=["id", "durationMs"],
            )
        },
        required=["ping"],
    ),
    scope="write:webhooks",
    example={"webhook": "<id or alias>"},
)
def ping(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    import json

    from chalicelib import clock
    from chalicelib.events import sender

    hook = store.get_item(ctx, WEBHOOK, args["webhook"], path="webhook").data_dict()
    event_id = "evt_" + ids.ulid()
    body = {"id": event_id, "type": "webhook.ping", "timestamp": clock.now_iso(), "tenantId": ctx.tenant_id, "data": {"webhookId": args["webhook"]}}
    secret = sender.secrets_of(ctx.tenant_id, args["webhook"])
    outcome = sender.send(hook["url"], json.dumps(body), event_id, secret["secret"], secret.get("authorizationHeader"))
    return {"ping": {"id": event_id, "statusCode": outcome.get("statusCode"), "error": outcome.get("error"), "durationMs": outcome.get("durationMs", 0)}}
