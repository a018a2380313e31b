"""Sign-up (two steps: a code by mail, then its confirmation), version, and what a key can learn
about itself: info, tenant, status, openapi.spec."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib import __version__, config, mail, mail_texts, openapi, paths, throttle
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.registry import operation
from chalicelib.resources.apikeys import AGENT_NAME, KEY_OUT
from chalicelib.scopes import SCOPE_ADMIN, holds
from chalicelib.store import deadletters, entities, integrations, keys, signups

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import (
        InfoArgs,
        OpenapiSpecArgs,
        SignupArgs,
        SignupConfirmArgs,
        StatusArgs,
        TenantArgs,
        VersionArgs,
    )

TENANT_OUT = s.obj(
    {
        "id": s.string("Tenant id."),
        "companyName": s.string("Company name."),
        "email": s.email(
            "Contact e-mail of the account (the address it signed up with): a person's, so answered only to "
            "the account's own keys holding `admin`, never to other keys or an integration's."
        ),
        "plan": s.string("Plan: `enterprise` (also during the trial), or `sandbox` for a sandbox."),
        "trialEndsAt": {
            **s.timestamp(
                "End of the free trial: from then on every call answers 403 `trial_ended` until a plan is active; "
                "null on a paid plan."
            ),
            "nullable": True,
        },
        "sandbox": s.boolean(
            "A sandbox: made-up data to try things on (its keys start `pm_sandbox_`), never live, never expiring."
        ),
        "throttle": {
            "type": "object",
            "description": "The account's own safety-throttle settings, when the operator set any: "
            "`perKey` {rate, burst} and `operations` {<operation>: {rate, burst}}.",
        },
        "createdAt": s.timestamp("Sign-up time."),
        "updatedAt": s.timestamp("Last change."),
    },
    required=["id", "companyName", "plan", "sandbox", "createdAt"],
)


SIGNUP_ANSWER = s.obj(
    {
        "confirmation": s.obj(
            {
                "sentTo": s.email("Where the code went."),
                "expiresInMinutes": s.integer("How long the code is valid."),
                "next": s.string("What to do with the code."),
            },
            required=["sentTo", "expiresInMinutes", "next"],
        )
    },
    required=["confirmation"],
)


@operation(
    name="signup",
    kind="command",
    surface="platform",
    authenticated=False,
    summary="Sign up a property-management company, step 1 of 2: mails a confirmation code to the address.",
    docs=(
        f"Starts a sign-up: a confirmation code goes to `email` (valid {config.SIGNUP_CODE_MINUTES} minutes, "
        f"{config.CODE_ATTEMPTS} tries). Nothing exists until the code is confirmed with `signup.confirm`, "
        f"which creates the tenant with the full enterprise tier (REST and MCP) for {config.TRIAL_DAYS} days "
        f"and its first API key. The answer is the same whatever the address: when it belongs to an account "
        f"already, the mail says so instead of carrying a code. While the code is valid, another sign-up of "
        f"the same address changes nothing and mails nothing: the code already mailed (and the company it "
        f"confirms) still counts; once it has expired or used up its tries, a sign-up starts afresh. Limits: "
        f"{config.SIGNUP_LIMIT} sign-ups an hour per source address; {config.ADDRESS_LIMIT} an hour per e-mail "
        f"address and source address, and {config.ADDRESS_TOTAL_LIMIT} per e-mail address from all sources, "
        f"which a source that confirmed the address before passes (429 `throttled`). Locally (`make serve`) "
        f"the mail lands in the outbox: printed by `make serve`, kept in `.local/outbox/`, shown by `pmctl "
        f"--local outbox` and at `/console/outbox`. Vendors cannot sign up here; the operator onboards them."
    ),
    args=s.obj(
        {
            "companyName": s.string("Company name, e.g. Hausverwaltung Muster GmbH.", max_length=300, minLength=1),
            "email": s.email("The address the code goes to; it becomes the owner's sign-in address for the console."),
            "agentName": AGENT_NAME,
            "name": s.string("The owner's name, shown in the console.", max_length=200),
        },
        required=["companyName", "email", "agentName"],
    ),
    result=SIGNUP_ANSWER,
    scope="admin",
    example={"companyName": "Hausverwaltung Muster GmbH", "email": "it@muster-hv.de", "agentName": "setup"},
)
def signup(ctx: CallContext, args: SignupArgs) -> dict[str, Any]:
    email = args["email"]
    throttle.take_for_address(email, "signup", ctx.source_ip)
    started = signups.start(args["companyName"], email, args["agentName"], args.get("name") or "")
    if started.taken:
        mail.send(email, *mail_texts.address_in_use(email))
    elif started.code is not None:  # else the code mailed before is live and stays the one to use
        mail.send(email, *mail_texts.signup_code(email, started.code, args["companyName"]))
    return {
        "confirmation": {
            "sentTo": email,
            "expiresInMinutes": config.SIGNUP_CODE_MINUTES,
            "next": f"POST {paths.PLATFORM}/command/signup.confirm with the address and the code from the mail.",
        }
    }


@operation(
    name="signup.confirm",
    kind="command",
    surface="platform",
    authenticated=False,
    summary="Sign up, step 2 of 2: confirm the address with the mailed code; creates the tenant and its first key.",
    docs=(
        f"Creates the tenant on a {config.TRIAL_DAYS}-day enterprise trial, its owner (who signs in to the "
        f"console with this address) and its first API key, which holds every scope (`read`, `write`, "
        f"`destructive`, `admin`). The secret is in `apiKey.key`, shown this once. A code works once, for "
        f"{config.SIGNUP_CODE_MINUTES} minutes; after {config.CODE_ATTEMPTS} wrong tries the sign-up is void: "
        f"sign up again."
    ),
    args=s.obj(
        {
            "email": s.email("The address signed up with."),
            "code": s.string("The code from the mail, e.g. `K7QM-2XPA` (case and dash do not matter).", max_length=20),
        },
        required=["email", "code"],
    ),
    result=s.obj({"tenant": TENANT_OUT, "apiKey": KEY_OUT}, required=["tenant", "apiKey"]),
    scope="admin",
    secrets=("apiKey.key",),
    errors=(codes.CONFIRMATION_FAILED, codes.EMAIL_TAKEN),
    example={"email": "it@muster-hv.de", "code": "K7QM-2XPA"},
)
def signup_confirm(ctx: CallContext, args: SignupConfirmArgs) -> dict[str, Any]:
    tenant, key, secret = signups.confirm(args["email"], args["code"])
    throttle.remember_confirmed(args["email"], ctx.source_ip)  # the mailbox's reader sits there
    return {"tenant": tenant, "apiKey": {**key, "key": secret}}


@operation(
    name="version",
    kind="query",
    surface="platform",
    authenticated=False,
    summary="The service version.",
    docs="Answers without a key.",
    args=s.obj({}),
    result=s.obj(
        {
            "version": s.string("Service version."),
            "apiVersions": s.array(s.string("Version."), "Interface versions served."),
        },
        required=["version"],
    ),
    scope="read",
    idempotent=True,
)
def version(ctx: CallContext, args: VersionArgs) -> dict[str, Any]:
    return {"version": __version__, "apiVersions": [paths.V2.lstrip("/"), paths.PLATFORM.lstrip("/")]}


@operation(
    name="info",
    kind="query",
    summary="Who am I: tenant, integration, and the calling key's agent, binding and scopes.",
    docs="Use it to check a key: which tenant it acts for, under which agent name, with which scopes, and "
    "for a key limited to objects, which (`objects`; null: every object).",
    args=s.obj({}),
    result=s.obj(
        {
            "tenant": TENANT_OUT,
            "integration": {
                **s.obj({"id": s.string("Integration id."), "name": s.string("Integration name.")}),
                "nullable": True,
                "description": "The vendor integration of the key; null for the tenant's own keys.",
            },
            "key": s.obj(
                {
                    "id": s.string("Key id."),
                    "agentName": s.string("Agent."),
                    "binding": KEY_OUT["properties"]["binding"],
                    "scopes": s.array(s.string("Scope."), "Scopes."),
                    "objects": KEY_OUT["properties"]["objects"],
                },
                required=["id", "agentName", "binding", "scopes"],
            ),
        },
        required=["tenant", "integration", "key"],
    ),
    scope="read",
    idempotent=True,
)
def info(ctx: CallContext, args: InfoArgs) -> dict[str, Any]:
    tenant = _tenant_seen_by(ctx)
    integration = None
    if ctx.integration_id:
        record = integrations.get(ctx.integration_id)
        integration = {"id": ctx.integration_id, "name": record["name"] if record else ctx.integration_id}
    key: dict[str, Any] = {
        "id": ctx.key_id,
        "agentName": ctx.agent_name,
        "binding": ctx.binding,
        "scopes": sorted(ctx.scopes),
        "objects": sorted(ctx.objects) if ctx.objects is not None else None,
    }
    return {"tenant": tenant, "integration": integration, "key": key}


@operation(
    name="tenant",
    kind="query",
    summary="The current tenant's data: company, plan and trial end.",
    docs="The tenant is the one the calling key belongs to.",
    args=s.obj({}),
    result=s.obj({"tenant": TENANT_OUT}, required=["tenant"]),
    scope="read",
    idempotent=True,
)
def tenant(ctx: CallContext, args: TenantArgs) -> dict[str, Any]:
    return {"tenant": _tenant_seen_by(ctx)}


def _tenant_seen_by(ctx: CallContext) -> dict[str, Any]:
    """The tenant as this key may see it: its address is a person's, the account's to see."""
    wire = keys.tenant_wire(keys.get_tenant(ctx.tenant_id))
    if ctx.integration_id or not holds(ctx.scopes, SCOPE_ADMIN):
        wire.pop("email", None)
    return wire


CHECK = s.obj({"ok": s.boolean("Reachable and ready."), "detail": s.string("What was seen.")}, required=["ok"])


@operation(
    name="status",
    kind="query",
    summary="Health of the service's dependencies: the table, the change stream and the queues.",
    docs="`status` is `ok` when every check passes, else `degraded`; "
    "the answer is 200 either way, so the checks can be read. "
    "`changeStream` is degraded while stream records wait in its dead-letter store or queue "
    "(audit records or webhook events not made yet); "
    "`webhookDeliveries` while delivery messages wait in their dead-letter queue "
    "(deliveries the worker itself kept failing on; a receiver's failures never land there).",
    args=s.obj({}),
    result=s.obj(
        {
            "status": s.enum("Overall state.", ["ok", "degraded"]),
            "version": s.string("Service version."),
            "checks": {"type": "object", "additionalProperties": CHECK},
        },
        required=["status", "checks"],
    ),
    scope="read",
    idempotent=True,
)
def status(ctx: CallContext, args: StatusArgs) -> dict[str, Any]:
    checks = {"table": _check_table(), "changeStream": _check_stream_dead_letters()}
    deliveries = config.delivery_queue_url()
    if deliveries:
        checks["webhookDeliveries"] = _check_queue(deliveries, dead_letters=config.delivery_dead_letter_url())
    queue = config.upload_queue_url()
    if queue:
        checks["uploadQueue"] = _check_queue(queue)
    dead = config.upload_dead_letter_url()
    if dead:
        checks["uploadDeadLetters"] = _check_queue(dead, must_be_empty=True)
    healthy = all(c["ok"] for c in checks.values())
    return {"status": "ok" if healthy else "degraded", "version": __version__, "checks": checks}


def _check_table() -> dict[str, Any]:
    try:
        state = entities.table_status()
    except Exception as err:  # noqa: BLE001 - a health check reports, it does not fail
        return {"ok": False, "detail": f"unreachable: {type(err).__name__}"}
    return {"ok": state == "ACTIVE", "detail": f"table {state}"}


def _check_stream_dead_letters() -> dict[str, Any]:
    """Stream records that kept failing: locally in the table's dead-letter store (with the
    records, for replay), in the cloud described on the stream's on-failure queue."""
    try:
        waiting = len(deadletters.pending())
        queue = config.stream_dead_letter_url()
        waiting += _depth(queue) if queue else 0
    except Exception as err:  # noqa: BLE001 - a health check reports, it does not fail
        return {"ok": False, "detail": f"unreachable: {type(err).__name__}"}
    return {"ok": waiting == 0, "detail": f"{waiting} failed records in the dead-letter store"}


def _depth(url: str) -> int:
    import boto3  # cold start: boto3 (~15 ms) loads on the first queue check

    attrs = boto3.client("sqs", region_name=config.region()).get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"]
    )
    return int(attrs["Attributes"]["ApproximateNumberOfMessages"])


def _check_queue(url: str, *, must_be_empty: bool = False, dead_letters: str | None = None) -> dict[str, Any]:
    """A queue's depth (a backlog is fine), and its dead-letter queue's (which must be empty)."""
    try:
        waiting = _depth(url)
        dead = _depth(dead_letters) if dead_letters else 0
    except Exception as err:  # noqa: BLE001
        return {"ok": False, "detail": f"unreachable: {type(err).__name__}"}
    detail = f"{waiting} messages waiting" + (f", {dead} in the dead-letter queue" if dead_letters else "")
    return {"ok": (waiting == 0 or not must_be_empty) and dead == 0, "detail": detail}


@operation(
    name="openapi.spec",
    kind="query",
    summary="OpenAPI 3.0 description of exactly the operations the calling key may use.",
    docs="A read-only key sees only queries; a key without `admin` does not see key management; a key limited to "
    "objects does not see the operations not open to such keys. Each operation "
    "carries its full documentation, the scopes it needs (`x-scopes`) and whether it is destructive (`x-destructive`). "
    "The answer is the OpenAPI document itself.",
    args=s.obj({}),
    result={
        "type": "object",
        "description": "An OpenAPI 3.0 document.",
        "properties": {"openapi": s.string("3.0.3"), "paths": {"type": "object"}},
        "required": ["openapi", "paths"],
    },
    scope="read",
    idempotent=True,
)
def openapi_spec(ctx: CallContext, args: OpenapiSpecArgs) -> dict[str, Any]:
    return openapi.build(ctx.scopes, object_limited=ctx.objects is not None)
