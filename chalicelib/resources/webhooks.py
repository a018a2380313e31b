"""Webhook subscriptions: where create, update, delete and restore events of the tenant's
entities are pushed. The signing secret and the optional Authorization header are kept in
a companion item (PK <tenant>#<webhook id>, SK "secret") that no read returns; the secret
is shown once, in the answer of webhooks.create."""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING, Any

from chalicelib import account, clock, config, ids, relative_time
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import (
    declare_lifecycle,
    declare_list,
    declare_show,
    declare_update,
)
from chalicelib.entities import ENTITY_TYPES, EntityType, declare
from chalicelib.errors import Conflict, NotFound, invalid_at
from chalicelib.events import deliveries, feed, hearing, recover, sender, subscriptions, targets
from chalicelib.registry import operation
from chalicelib.scopes import hearable_areas
from chalicelib.store import entities as store
from chalicelib.store import webhooks as webhook_store

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import (
        WebhooksCreateArgs,
        WebhooksDeliveriesListArgs,
        WebhooksDeliveriesRecoverArgs,
        WebhooksDeliveriesRetryArgs,
        WebhooksEventTypesArgs,
        WebhooksSecretRotateArgs,
        WebhooksTestArgs,
    )

ACTIONS = ("created", "updated", "deleted", "restored")


def event_types() -> list[str]:
    """Every event type, derived from the entity catalogue: <entityType>.<action>."""
    return [f"{name}.{action}" for name in sorted(ENTITY_TYPES) for action in ACTIONS]


s.VALUE_LISTS["subscribedEvents"] = lambda: ["*", *event_types()]

FIELDS: dict[str, Any] = {
    "name": s.string("A name for people: what receives the events.", max_length=200),
    # no `format: uri` beside the pattern and the rules in words (schemas.email says why); checked
    # beyond the schema (events/targets.py: scheme, port, public addresses), so no free text
    "url": s.checked(
        s.string(
            "The receiver: an absolute https URL on port 443 or 8443 whose name resolves to public addresses, "
            "without credentials, whitespace or control characters "
            "(the local stage also accepts http and loopback receivers on any port).",
            max_length=2000,
        )
    ),
    "events": {
        **s.array(
            s.known_values(
                s.checked(s.string("An event type from webhooks.eventTypes, or `*` for all.", max_length=100)),
                "subscribedEvents",
            ),
            "The event types to deliver.",
            max_items=500,
        ),
        "minItems": 1,
    },
    "enabled": s.boolean("Deliveries stop while false. Default true."),
    "description": s.text("Notes."),
    "authorizationHeaderSet": s.boolean(
        "Whether an Authorization header is sent with each delivery (the value is never shown)."
    ),
    "disabledReason": s.string(
        "Why deliveries were stopped (410 Gone, 5 days of failures); cleared by enabling it again.", max_length=1000
    ),
    "disabledAt": s.timestamp("When deliveries were stopped."),
    "secretRotatedAt": s.timestamp("When the signing secret was last rotated (webhooks.secret.rotate)."),
    "previousSecretUntil": s.timestamp(
        "After a rotation: until when the replaced secret still signs beside the new one (both signatures are "
        "sent in `webhook-signature`)."
    ),
    "skipOwnChanges": s.boolean(
        "When true, no event is sent for changes made by the webhook's own side (`ownChangesOf`): the keys of "
        "the integration whose key created it, or, for a tenant's own key, that key; a two-way sync then hears "
        "no echo of its own writes. Default false."
    ),
    "ownChangesOf": {
        **s.obj(
            {
                # ids the service set from the creating key: no one's words
                "integrationId": {
                    **s.checked(s.string("The integration whose keys' changes are its own.")),
                    "nullable": True,
                },
                "keyId": {
                    **s.checked(s.string("The key whose changes are its own (a webhook of no integration).")),
                    "nullable": True,
                },
            },
            description="Whose changes are the webhook's own (set from the key that created it).",
        ),
        "nullable": True,
    },
    "areas": {
        **s.array(
            s.checked(s.string("An area (`contacts`, `units`, ...).")),  # set from the key: no one's words
            "The areas whose events this webhook hears: those the key that created it may read (`webhooks`, the "
            "account's own records, only for an admin key). `*` subscribes to every event type of these areas.",
            max_items=50,
        ),
        "nullable": True,
    },
    "objects": {
        **s.array(
            s.checked(s.string("Object id.")),  # ids the service set from the key: no one's words
            "The objects this webhook's events are limited to: those of the key limited to objects that created "
            "it (its events are those of the entities within them); absent for a webhook of every object.",
            max_items=1000,
        ),
        "nullable": True,
    },
}
FIELDS = s.labelled(
    FIELDS,
    {
        "name": ("Name", "Name"),
        "url": ("URL", "URL"),
        "events": ("Ereignisse", "Events"),
        "enabled": ("Aktiv", "Enabled"),
        "description": ("Beschreibung", "Description"),
        "authorizationHeaderSet": ("Authorization-Header gesetzt", "Authorization header set"),
        "disabledReason": ("Grund der Deaktivierung", "Reason for disabling"),
        "disabledAt": ("Deaktiviert am", "Disabled at"),
        "secretRotatedAt": ("Geheimnis erneuert am", "Secret rotated at"),
        "previousSecretUntil": ("Altes Geheimnis gültig bis", "Previous secret valid until"),
        "skipOwnChanges": ("Eigene Änderungen auslassen", "Skip own changes"),
        "ownChangesOf": ("Eigene Änderungen von", "Own changes of"),
        "integrationId": ("Integration", "Integration"),
        "keyId": ("API-Schlüssel", "API key"),
        "objects": ("Objekte", "Objects"),
        "areas": ("Bereiche", "Areas"),
    },
)


def _check(data: dict[str, Any], webhook_id: str | None) -> None:
    url = data.get("url")
    if url:
        problem = targets.url_problem(url)
        if problem:
            raise invalid_at("webhook.url", problem)
    known = set(event_types())
    for i, event in enumerate(data.get("events", [])):
        if event != "*" and event not in known:
            raise invalid_at(f"webhook.events[{i}]", f"unknown event type {event!r}; see webhooks.eventTypes")
    data.setdefault("enabled", True)
    if data["enabled"]:  # enabling again clears why it was stopped
        data.pop("disabledReason", None)
        data.pop("disabledAt", None)


LIMIT_ERROR = (codes.WEBHOOK_LIMIT_REACHED, f"the tenant has {config.MAX_WEBHOOKS} webhooks already; delete one first.")


def _within_limit(ctx: CallContext) -> None:
    """A tenant holds at most MAX_WEBHOOKS live webhooks (checked before a create or a
    restore; two at the same moment may pass together, by one)."""
    live = webhook_store.live_webhook_keys(ctx.tenant_id, limit=config.MAX_WEBHOOKS + 1)
    if len(live) >= config.MAX_WEBHOOKS:
        raise Conflict(
            f"A tenant holds at most {config.MAX_WEBHOOKS} webhooks; delete one first.",
            code=codes.WEBHOOK_LIMIT_REACHED,
        )


WEBHOOK = declare(
    EntityType(
        name="webhook",
        plural="webhooks",
        prefix="whk",
        area="webhooks",
        fields=FIELDS,
        required=("name", "url", "events"),
        readonly=(
            "authorizationHeaderSet",
            "disabledReason",
            "disabledAt",
            "areas",
            "objects",
            "ownChangesOf",
            "secretRotatedAt",
            "previousSecretUntil",
        ),
        check=_check,
        restore_guard=_within_limit,
    )
)

DOC = """A webhook subscribes a receiver URL to event types (`contact.created`, `unit.updated`, ...; the list is
`webhooks.eventTypes`, `*` subscribes to all). Each delivery is an HTTP POST with a JSON body
`{"id", "type", "timestamp", "tenantId", "actor", "changedFields", "data"}` (`actor`: `keyId`, `agentName`,
`integrationId`, `channel` of who made the change; `changedFields`: the fields whose value changed; `data`:
the entity after the change, or before a deletion) and, for an update, `previous` (the changed fields'
earlier values). With `skipOwnChanges` the webhook hears nothing of the changes of its own side (the keys of
the integration that created it, or the creating key), so a two-way sync hears no echo. The same changes,
with the same ids, are on the change feed (changes.list). Signed per the Standard Webhooks specification
(`webhook-id`, `webhook-timestamp`, `webhook-signature` headers, HMAC-SHA256 with the webhook's secret) and,
when set, carrying the configured `Authorization` header. The secret (`whsec_...`) is returned once, by
webhooks.create (and a new one by webhooks.secret.rotate); the Authorization header is never returned
(`authorizationHeaderSet` tells whether one is set)."""

AUTH_HEADER = s.string(
    "Optional value of the Authorization header sent with every delivery, e.g. `Bearer abc`. Write-only.",
    max_length=4000,
)


@operation(
    name="webhooks.create",
    kind="command",
    summary="Subscribe a receiver URL to event types; the signing secret is returned once.",
    docs=DOC,
    args=s.obj(
        s.nonempty(
            {
                "name": FIELDS["name"],
                "url": FIELDS["url"],
                "events": FIELDS["events"],
                "authorizationHeader": AUTH_HEADER,
                "enabled": FIELDS["enabled"],
                "description": FIELDS["description"],
                "skipOwnChanges": FIELDS["skipOwnChanges"],
            },
            WEBHOOK.required,
        ),
        required=list(WEBHOOK.required),
    ),
    result=s.obj(
        {
            "webhook": {
                **s.entity_output(
                    {**FIELDS, "secret": s.string("The signing secret, `whsec_...`: shown only here. Store it now.")},
                    "The created webhook.",
                )
            }
        },
        required=["webhook"],
    ),
    scope="write:webhooks",
    secrets=("webhook.secret",),
    errors=(LIMIT_ERROR,),
    example={
        "name": "CRM sync",
        "url": "https://crm.example.org/hooks/pm",
        "events": ["contact.created", "contact.updated"],
        "authorizationHeader": "Bearer abc123",
    },
)
def create(ctx: CallContext, args: WebhooksCreateArgs) -> dict[str, Any]:
    data = {k: v for k, v in args.items() if k != "authorizationHeader"}
    data["authorizationHeaderSet"] = bool(args.get("authorizationHeader"))
    areas = hearable_areas(ctx.scopes)  # it hears what its key may read (events/hearing.py)
    hearing.refuse_unheard(args.get("events", []), areas)
    data["areas"] = sorted(areas)
    if ctx.objects is not None:  # a key limited to objects subscribes to the events of its objects only
        data["objects"] = sorted(ctx.objects)
    # whose changes are its own (skipOwnChanges): its integration's, else the creating key's
    data["ownChangesOf"] = (
        {"integrationId": ctx.integration_id} if ctx.integration_id else {"keyId": ctx.key_id or None}
    )
    _within_limit(ctx)
    secret = webhook_store.new_secret()
    webhook_id = ids.new_id(WEBHOOK.prefix)  # the companion secret item is keyed by it
    companion = webhook_store.secret_item(ctx.tenant_id, webhook_id, secret, args.get("authorizationHeader"))
    item = store.create(ctx, WEBHOOK, data, path="webhook", companions=(companion,), entity_id=webhook_id)
    subscriptions.forget(ctx.tenant_id)
    return {"webhook": {**store.to_wire(ctx, item), "secret": secret}}


def _update_guard(ctx: CallContext, item: store.StoredEntity, payload: dict[str, Any]) -> None:
    """Keeps what the webhook hears within the areas of the key that made it and of the key that
    changes it (neither widens it: a wider webhook is a new one); moves a new Authorization header
    into the secret item before the entity changes."""
    subscriptions.forget(ctx.tenant_id)
    if "events" in payload:
        stored = item.data_dict().get("areas")
        areas = hearable_areas(ctx.scopes) & (hearing.LEGACY_AREAS if stored is None else frozenset(stored))
        hearing.refuse_unheard(payload["events"] or [], areas)
        if stored is None:  # a webhook of before areas: from now on those it was last confirmed with
            payload["areas"] = sorted(areas)
    if "authorizationHeader" not in payload:
        return
    header = payload.pop("authorizationHeader")
    webhook_store.set_authorization(ctx.tenant_id, item.id or "", header)
    payload["authorizationHeaderSet"] = bool(header)


declare_list(WEBHOOK, name="webhooks.list", docs=DOC)
declare_show(WEBHOOK, name="webhooks.show", arg="webhook", docs=DOC)
declare_update(
    WEBHOOK,
    name="webhooks.update",
    arg="webhook",
    docs=DOC,
    example={"enabled": False},
    guard=_update_guard,
    write_only={"authorizationHeader": AUTH_HEADER},
)
declare_lifecycle(WEBHOOK, prefix="webhooks", arg="webhook", restore_errors=(LIMIT_ERROR,))


@operation(
    name="webhooks.eventTypes",
    kind="query",
    summary="The machine-readable list of current event types.",
    docs="Every entity type has `<entityType>.created`, `.updated`, `.deleted` and `.restored`. "
    "The catalogue grows with the service: read it at runtime rather than hard-coding it.",
    args=s.obj({}),
    result=s.obj(
        {
            "eventTypes": s.array(
                s.obj(
                    {
                        "name": s.string("Event type."),
                        "entityType": s.string("Entity type."),
                        "action": s.enum("What happened.", list(ACTIONS)),
                    },
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
def list_event_types(ctx: CallContext, args: WebhooksEventTypesArgs) -> dict[str, Any]:
    return {
        "eventTypes": [
            {"name": name, "entityType": name.rsplit(".", 1)[0], "action": name.rsplit(".", 1)[1]}
            for name in event_types()
        ]
    }


DELIVERY = s.obj(
    {
        "id": s.string(
            "The delivery's id: its event's id, or `<event id>~<recovery>` for a redelivery of "
            "webhooks.deliveries.recover."
        ),
        "eventId": s.string("The event id (`webhook-id` header): the receiver's deduplication key."),
        "eventType": s.string("Event type."),
        "status": s.enum(
            "`pending` (due or waiting for a retry), `delivered`, `failed` (gave up), `superseded` (a recovery "
            "sends the event again under a delivery of its own).",
            ["pending", "delivered", "failed", "superseded"],
        ),
        "attempts": s.integer("Attempts so far."),
        "nextAttemptAt": {**s.timestamp("When the next attempt is due (pending)."), "nullable": True},
        "lastAttemptAt": {**s.timestamp("Last attempt."), "nullable": True},
        "lastStatusCode": {**s.integer("HTTP status of the last attempt."), "nullable": True},
        "lastError": {
            **s.string("Why the last attempt failed, coarsely: " + ", ".join(f"`{r}`" for r in sender.REASONS) + "."),
            "nullable": True,
        },
        "lastDurationMs": {"type": "number", "nullable": True, "description": "Duration of the last attempt in ms."},
        "deliveredAt": {**s.timestamp("When it was delivered."), "nullable": True},
        "test": s.boolean("Whether it is a test's `webhook.ping` (webhooks.test); retry resends it."),
        "requestBody": {
            **s.string(
                "The JSON body sent (the same with every attempt). Request headers (the Authorization header, "
                "the signature) are never kept.",
                max_length=400_000,
                one_line=False,
            ),
            "nullable": True,
        },
        "attemptLog": s.array(
            s.obj(
                {
                    "number": s.integer("The attempt's number (1 is the first)."),
                    "at": s.timestamp("When it was made."),
                    "statusCode": s.integer("The receiver's HTTP status; absent when none came."),
                    "error": s.enum("Why it failed, coarsely; absent on success.", list(sender.REASONS)),
                    "durationMs": {"type": "number", "description": "How long it took, in ms."},
                    "response": s.string(
                        f"The first {config.WEBHOOK_RESPONSE_BYTES} bytes of the receiver's answer body as text "
                        "(a value of the webhook's secrets or Authorization header it echoes is `[redacted]`); "
                        "absent when it was empty.",
                        max_length=4 * config.WEBHOOK_RESPONSE_BYTES,
                        one_line=False,
                    ),
                },
                required=["number", "at", "durationMs"],
            ),
            f"The attempts, oldest first (the latest {config.WEBHOOK_ATTEMPTS_KEPT}).",
            max_items=config.WEBHOOK_ATTEMPTS_KEPT,
        ),
        "createdAt": s.timestamp("When the event was queued."),
    },
    required=["id", "eventType", "status", "attempts"],
)
STATUSES = ["pending", "delivered", "failed", "superseded"]
HEALTH = s.obj(
    {
        "window": s.integer(
            f"How many of the latest deliveries were counted: those tried at least once, at most "
            f"{config.WEBHOOK_HEALTH_WINDOW}."
        ),
        "delivered": s.integer("Of them, delivered."),
        "failed": s.integer("Of them, failed or waiting for a retry."),
        "successRate": {"type": "number", "nullable": True, "description": "delivered / window; null while none."},
    },
    required=["window", "delivered", "failed", "successRate"],
    description="The webhook's recent success rate (of its whole log, whatever the filters).",
)
DELIVERY_DOC = f"""Deliveries: each subscribed event is POSTed to the webhook's URL at once \
(within a second of the change) and,
if the receiver does not answer 2xx within {sender.TIMEOUT_SECONDS:.0f} s, \
again after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h;
then it is marked `failed`. A `Retry-After` (seconds) can lengthen the next wait up to 1 hour, never further. \
Events of one
entity arrive in order: a later event waits while an earlier one is pending; other entities' events do not wait. While a
receiver fails, its webhook rests between attempts (as long as it has been failing, 5 s to 1 h), and at most
{webhook_store.MAX_IN_FLIGHT} attempts per webhook are in flight at once. \
A receiver answering 410 Gone disables the webhook at
once, as do 5 days of failures without a success; `webhooks.show` then tells why (`disabledReason`). Redirects are not
followed. Delivery is at least once: deduplicate by the `id` (also the `webhook-id` header). The log keeps each delivery
{config.WEBHOOK_LOG_DAYS} days; a tenant holds at most {config.MAX_WEBHOOKS} webhooks."""


@operation(
    name="webhooks.deliveries.list",
    kind="query",
    summary="The webhook's delivery log, newest first: each attempt's response code, answer and time, "
    "filterable by status and event type.",
    docs=DELIVERY_DOC
    + f"""

Each delivery carries the body sent (`requestBody`) and its attempts (`attemptLog`: when, the status code, the
first {config.WEBHOOK_RESPONSE_BYTES} bytes of the answer, the duration); no request header is kept. Tests
(webhooks.test) are in the log too (`test`: true). `status` and `eventType` narrow the page and its total;
`health` is the recent success rate of the whole log.""",
    args=s.obj(
        {
            "webhook": s.ref("webhook", "The webhook."),
            "status": s.enum("Only deliveries in this state.", STATUSES),
            "eventType": s.checked(
                s.string("Only deliveries of this event type (`contact.updated`, `webhook.ping`).", max_length=100)
            ),
            **s.paging(),
        },
        required=["webhook", "limit", "offset"],
    ),
    result=s.obj(
        {
            "pagination": s.PAGINATION,
            "deliveries": s.array(DELIVERY, "One page of deliveries.", max_items=1000),
            "health": HEALTH,
        },
        required=["pagination", "deliveries", "health"],
    ),
    scope="read:webhooks",
    idempotent=True,
    example={"webhook": "<id or alias>", "limit": 100, "offset": 0},
)
def list_deliveries(ctx: CallContext, args: WebhooksDeliveriesListArgs) -> dict[str, Any]:
    hook = store.get_item(ctx, WEBHOOK, args["webhook"], path="webhook")
    webhook_id = hook.id or ""
    page, total, capped = deliveries.log(
        ctx.tenant_id,
        webhook_id,
        args["limit"],
        args["offset"],
        status=args.get("status"),
        event_type=args.get("eventType"),
    )
    return {
        "pagination": s.pagination(total, args["limit"], args["offset"], capped),
        "deliveries": page,
        "health": deliveries.health(ctx.tenant_id, webhook_id),
    }


@operation(
    name="webhooks.deliveries.retry",
    kind="command",
    summary="Send a delivery again now (also one that gave up, and a test's ping).",
    docs=DELIVERY_DOC,
    args=s.obj(
        {"webhook": s.ref("webhook", "The webhook."), "delivery": s.string("The delivery's event id (evt_...).")},
        required=["webhook", "delivery"],
    ),
    result=s.obj({"delivery": DELIVERY}, required=["delivery"]),
    scope="write:webhooks",
    example={"webhook": "<id or alias>", "delivery": "evt_01K..."},
)
def retry_delivery(ctx: CallContext, args: WebhooksDeliveriesRetryArgs) -> dict[str, Any]:
    hook = store.get_item(ctx, WEBHOOK, args["webhook"], path="webhook")
    delivery = deliveries.retry_now(ctx.tenant_id, hook.id or "", args["delivery"])
    if delivery is None:
        raise NotFound(
            f"No delivery {args['delivery']} for this webhook.",
            errors=[{"path": "delivery", "message": "unknown delivery"}],
        )
    return {"delivery": deliveries.wire(delivery)}


@operation(
    name="webhooks.deliveries.recover",
    kind="command",
    summary="Send a webhook every event it would have heard since a time again (after its receiver was down).",
    docs=f"""Every event this webhook subscribes to since `since` (within the change feed's {feed.RETENTION_DAYS}
days), read back from the change feed (changes.list) and queued again in commit order: each entity's events
arrive in the order they happened. Each event keeps its id (a receiver that deduplicates by it drops what
it had) and carries `"redelivery": true`; its delivery record is written anew. At most
{recover.RECOVER_LIMIT:,} events a call: past it the answer says `capped` and `until`, the time of the last event
queued: call again with `since` = `until`. Only events from the webhook's creation on: it never heard earlier ones.
A disabled webhook is refused (409 `webhook_disabled`): enable it first. One recovery of a webhook runs at a time:
until every event it queued is settled (delivered, or failed at the end of its retry schedule) another answers
409 `recovery_running` with the running one's `since`, `until`, `queued` and `settled`; a webhook is recovered at
most {config.RECOVERIES_PER_DAY} times a day (UTC; then 429 `recovery_limit_reached` with `Retry-After`).""",
    args=s.obj(
        {
            "webhook": s.ref("webhook", "The webhook."),
            "since": s.timestamp(f"Events from this time on (within {feed.RETENTION_DAYS} days)."),
        },
        required=["webhook", "since"],
    ),
    result=s.obj(
        {
            "recovered": s.integer("How many events were queued again."),
            "capped": s.boolean(f"Whether it stopped at {recover.RECOVER_LIMIT:,}."),
            "until": s.timestamp("When capped: the time of the last event queued."),
        },
        required=["recovered", "capped"],
    ),
    scope="write:webhooks",
    errors=(codes.WEBHOOK_DISABLED, codes.SINCE_OUT_OF_RETENTION, codes.RECOVERY_RUNNING, codes.RECOVERY_LIMIT_REACHED),
    weighed_by="each event it queues beyond the first counts as one more",
    example={"webhook": "<id or alias>", "since": relative_time.ago(2, "hour")},
)
def recover_deliveries(ctx: CallContext, args: WebhooksDeliveriesRecoverArgs) -> dict[str, Any]:
    hook = store.get_item(ctx, WEBHOOK, args["webhook"], path="webhook")
    if not hook.data_dict().get("enabled", True):
        raise Conflict(f"Webhook {hook.id} is disabled; enable it first.", code=codes.WEBHOOK_DISABLED)
    feed.check_since(args["since"])
    subscriptions.forget(ctx.tenant_id)  # its current subscription, not one cached a moment ago
    answer = recover.recover(ctx.tenant_id, hook.id or "", args["since"])
    account.charge(ctx, int(answer["recovered"]) - 1)  # weighed_by above
    return answer


@operation(
    name="webhooks.test",
    kind="command",
    summary="Send a signed `webhook.ping` event to the webhook now and report what the receiver answered.",
    docs="Sends at once, outside the queue, with the same signature, headers and rules as every delivery, "
    "and answers the receiver's status code, a coarse reason when it failed (`error`: "
    + ", ".join(f"`{r}`" for r in sender.REASONS)
    + ") and the time it took. Use it to check a new receiver. It never reports addresses or error texts. "
    "The test is logged as a delivery of its own (`webhook.ping`, `test`: true, the answer's first bytes in its "
    "`attemptLog`): webhooks.deliveries.list shows it, webhooks.deliveries.retry resends it.",
    args=s.obj({"webhook": s.ref("webhook", "The webhook to ping.")}, required=["webhook"]),
    result=s.obj(
        {
            "ping": s.obj(
                {
                    "id": s.string("Event id of the ping."),
                    "statusCode": {**s.integer("Receiver's HTTP status."), "nullable": True},
                    "error": {**s.enum("Why it failed, coarsely.", list(sender.REASONS)), "nullable": True},
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
def ping(ctx: CallContext, args: WebhooksTestArgs) -> dict[str, Any]:
    hook = store.get_item(ctx, WEBHOOK, args["webhook"], path="webhook")
    webhook_id = hook.id or ""
    event_id = "evt_" + ids.ulid()
    body = sender.ping_body(event_id, ctx.tenant_id, webhook_id, clock.now_iso())
    payload = json.dumps(body, separators=(",", ":"))
    secret = webhook_store.secrets_of(ctx.tenant_id, webhook_id)
    outcome = sender.send(
        hook.data_dict()["url"],
        payload,
        event_id,
        webhook_store.signing_secrets(secret),
        secret.get("authorizationHeader"),
    )
    deliveries.record_test(ctx.tenant_id, webhook_id, body, payload, outcome)
    return {
        "ping": {
            "id": event_id,
            "statusCode": outcome.status_code,
            "error": outcome.reason,
            "durationMs": outcome.duration_ms,
        }
    }


@operation(
    name="webhooks.secret.rotate",
    kind="command",
    summary="Replace the webhook's signing secret; the old one keeps signing for an overlap. "
    "The new one is shown once.",
    docs=f"""Makes a new signing secret (`whsec_...`), returned once in this answer. For
{config.WEBHOOK_SECRET_OVERLAP_HOURS} hours (until `previousSecretUntil`) every delivery carries two signatures in
`webhook-signature`, space-separated as the Standard Webhooks specification allows: one by the new secret, one by
the old; a receiver verifying with either accepts it, so it can switch at its own pace. After the overlap only
the new secret signs. A secret replaced earlier that is still in its overlap stops signing at once (at most two
sign). Two rotations at the same moment: one wins, the other answers 409 `stale_version`.""",
    args=s.obj({"webhook": s.ref("webhook", "The webhook whose secret is replaced.")}, required=["webhook"]),
    result=s.obj(
        {
            "webhook": s.obj(
                {
                    "id": s.string("The webhook's id."),
                    "secret": s.string("The new signing secret, `whsec_...`: shown only here. Store it now."),
                    "secretRotatedAt": FIELDS["secretRotatedAt"],
                    "previousSecretUntil": FIELDS["previousSecretUntil"],
                },
                required=["id", "secret", "secretRotatedAt", "previousSecretUntil"],
            )
        },
        required=["webhook"],
    ),
    scope="write:webhooks",
    secrets=("webhook.secret",),
    errors=(codes.STALE_VERSION,),
    example={"webhook": "<id or alias>"},
)
def rotate_secret(ctx: CallContext, args: WebhooksSecretRotateArgs) -> dict[str, Any]:
    hook = store.get_item(ctx, WEBHOOK, args["webhook"], path="webhook")
    webhook_id = hook.id or ""
    secret = webhook_store.new_secret()
    now = clock.now()
    until = clock.iso(now + dt.timedelta(hours=config.WEBHOOK_SECRET_OVERLAP_HOURS))
    if not webhook_store.rotate_secret(ctx.tenant_id, webhook_id, secret, until):
        raise Conflict(f"The secret of webhook {webhook_id} changed meanwhile; try again.", code=codes.STALE_VERSION)
    # the entity notes the rotation: the audit trail and webhooks.show tell when, and until when both sign
    stamp = {"secretRotatedAt": clock.iso(now), "previousSecretUntil": until}
    store.update(ctx, WEBHOOK, webhook_id, stamp, expected_version=None, path="webhook")
    subscriptions.forget(ctx.tenant_id)
    return {"webhook": {"id": webhook_id, "secret": secret, **stamp}}
