"""API keys of the tenant: create (the secret is shown once), list, disable.

Rotation has no endpoint: create a new key with the same agent name, point the agent
at it, then disable the old key."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import TYPE_CHECKING, Any

from chalicelib import account, clock, config
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.errors import Forbidden, invalid_at
from chalicelib.registry import operation
from chalicelib.scopes import KEY_SCOPES, holds
from chalicelib.store import keys, requests
from chalicelib.store.authors import UNTRUSTED_TEXT

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import (
        ApikeysCreateArgs,
        ApikeysDisableArgs,
        ApikeysListArgs,
        ApikeysRequestsListArgs,
        ApikeysShowArgs,
        ApikeysUsageArgs,
    )

AGENT_NAME = {
    "type": "string",
    "maxLength": 100,
    "pattern": r"^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,99}$",
    "description": "Name of the agent or integration that uses the key, e.g. `invoice-bot`.",
}
SCOPES = {
    **s.array(
        s.enum("A scope.", list(KEY_SCOPES)),
        "`read`, `write` or `write:<area>`, `destructive`, `admin`.",
        max_items=len(KEY_SCOPES),
    ),
    "minItems": 1,
}
# What a key reads of other parties' free text: asked at creation, shown by apikeys.show/list.
UNTRUSTED_TEXT_CHOICE = s.enum(
    "`show` (default): every text as written, each entity marked with `lastChangedBy`. "
    "`omit`: over MCP, free text last written by another integration, the operator or no "
    "key comes back as a placeholder naming who wrote it (REST answers stay as written).",
    list(UNTRUSTED_TEXT),
)
MAX_OBJECTS = 1000  # objects one key may be limited to
OBJECTS = {
    **s.array(
        s.ref("object", "An object (id or alias)."),
        f"Limit the key to these objects (1 to {MAX_OBJECTS}): it reads and writes only their entities "
        '(docs/concepts/keys-and-scopes.md, "Object-limited keys"). Left out: every object.',
        max_items=MAX_OBJECTS,
    ),
    "minItems": 1,
}
KEY_OUT = s.obj(
    {
        "id": s.string("Key id (not the secret)."),
        "agentName": s.string("The agent the key belongs to."),
        "scopes": s.array(s.string("Scope."), "Granted scopes.", max_items=len(KEY_SCOPES)),
        "binding": s.obj(
            {
                "type": s.enum("`person` or `company`.", ["person", "company"]),
                "contactId": s.string("The person (contact) for person-bound keys."),
            },
            required=["type"],
        ),
        "integrationId": {
            **s.string("Integration the key belongs to; null for the tenant's own keys."),
            "nullable": True,
        },
        "prefix": s.string("First characters of the secret, to recognise it."),
        "disabled": s.boolean("Disabled keys answer 401."),
        "expiresAt": {**s.timestamp("Expiry; null for none."), "nullable": True},
        "untrustedText": UNTRUSTED_TEXT_CHOICE,
        "lastUsedAt": {**s.timestamp("Last use (recorded at most once a minute)."), "nullable": True},
        "lastUsedIp": {**s.string("Source address of the last use."), "nullable": True},
        "createdBy": {
            **s.string(
                "Who created the key: the id of the key that did (`key_...`), or of the person who did in the "
                "console (`mem_...`); null for a sign-up's first key and the operator's keys."
            ),
            "nullable": True,
        },
        "objects": {
            **s.array(
                s.string("Object id."),
                "The objects an object-limited key reads and writes (ids); null: every object.",
                max_items=MAX_OBJECTS,
            ),
            "nullable": True,
        },
        "oauthGrantId": {
            **s.string(
                "The OAuth grant (`grt_...`) whose access token the key is: an agent host connected by OAuth and a "
                "person approved it in the console. Such a key lives an hour, a refresh replaces it, and it is "
                "forgotten a week after its expiry (its audit records stay). Null for keys made otherwise."
            ),
            "nullable": True,
        },
        "audience": {
            **s.enum(
                "An OAuth access token's audience (RFC 8707): the face its grant was for, `mcp` (the MCP server) or "
                "`rest` (the REST interface); the other face refuses it (401 `wrong_audience`). Null for other keys.",
                ["mcp", "rest"],
            ),
            "nullable": True,
        },
        "createdAt": s.timestamp("Created."),
        "updatedAt": s.timestamp("Last changed."),
        "key": s.string("The secret. Only in the answer of the call that created the key: store it now."),
    },
    required=["id", "agentName", "scopes", "binding", "disabled", "createdAt"],
)


@operation(
    name="apikeys.create",
    kind="command",
    summary="Create an API key for an agent; the secret is returned once.",
    docs=f"""Creates a key bound to the company (default) or, with `person`, to a staff member (a contact).
A key can only grant scopes its creator holds. The answer carries the secret in `apiKey.key` once; only
its hash is stored. The secret reads `pm_live_` or `pm_test_`, 30 random characters and a 6-character
checksum: secret scanners recognise the prefix, and a mistyped key is refused without a lookup.

**One agent, one key.** Every key belongs to one agent name and is traced to it (audit trail, request log).
An agent holds one active key; a second exists only while rotating, a third is refused (409 `agent_has_keys`).

**At most {config.MAX_LIVE_KEYS} live keys per tenant** (unless the service is set otherwise), every kind
together: the tenant's own keys, its integrations' and the sign-up's first. Disabled and expired keys do not
count. Past it, a create is refused (409 `key_limit_reached`, with `maxLiveKeys` and `liveKeys`, how many
it holds): disable a key the tenant no longer needs first. A rotation needs a free place too.

**Rotation** (there is no rotate endpoint): 1. create a new key with the same `agentName`; 2. point the agent
at the new key; 3. disable the old key with `apikeys.disable`. Both keys work between steps 1 and 3.

**Objects**: `objects` (ids or aliases of objects, up to 1,000) limits the key to those objects: it reads and
writes only their entities (units, contracts, documents, linked contacts, ...; docs/concepts/keys-and-scopes.md);
everything else answers 404 as if it did not exist and is left out of lists and totals, and a command that would
create or move something outside them is refused (403 `outside_key_objects`). An unknown object answers 404 at
`apiKey.objects[i]`. A key limited to objects creates only keys limited to some of its own (403
`scope_escalation`).

**Expiry**: `expiresAt` is optional; without it a key expires {config.DEFAULT_KEY_DAYS} days after creation, and
it can be at most {config.MAX_KEY_DAYS} days ahead. An expired key answers 401 `key_expired`; rotate before.

**Untrusted text** (for agents): text one party writes (a vendor's integration filling a contact's notes) reaches
another party's agent, and may be written to steer it. Every entity says who last changed it (`lastChangedBy`).
With `untrustedText: "omit"` the key reads over MCP, in place of each free-text field (names, notes, titles,
descriptions, addresses: strings that are no enum, date, e-mail address, reference or number) that another
party last wrote, a placeholder such as `[text omitted: written by agent 'sync' of integration int_... via rest]`.
Another party is any author but the key's own side: for the tenant's keys its own keys and people, for an
integration's key that integration's keys. Who wrote a field is kept per field, so a later change of another
field does not make the text the tenant's; audit states (`audit.list`, `audit.show`) keep only the text its own
side wrote in that change. REST answers and the console show the text as written.

**Audit**: the creation is an audit record (`audit.list` with the key's id as `entityId`): who created it,
agent, scopes, binding and `expiresAt` (expiry writes nothing, so this is its record); never the secret or its hash.""",
    args=s.obj(
        {
            "apiKey": s.obj(
                {
                    "agentName": AGENT_NAME,
                    "scopes": SCOPES,
                    "person": s.ref("contact", "Bind the key to this staff member instead of the company."),
                    "expiresAt": s.timestamp(
                        f"Expiry (UTC), in the future, at most {config.MAX_KEY_DAYS} days ahead; "
                        f"default {config.DEFAULT_KEY_DAYS} days."
                    ),
                    "untrustedText": UNTRUSTED_TEXT_CHOICE,
                    "objects": OBJECTS,
                },
                required=["agentName", "scopes"],
            )
        },
        required=["apiKey"],
    ),
    result=s.obj({"apiKey": KEY_OUT}, required=["apiKey"]),
    scope="admin",
    secrets=("apiKey.key",),
    errors=(
        codes.SCOPE_ESCALATION,
        codes.AGENT_HAS_KEYS,
        codes.KEY_LIMIT_REACHED,
    ),
    example={"apiKey": {"agentName": "invoice-bot", "scopes": ["read", "write:accounting"]}},
)
def create(ctx: CallContext, args: ApikeysCreateArgs) -> dict[str, Any]:
    spec = args["apiKey"]
    beyond = [scope for scope in spec["scopes"] if not holds(ctx.scopes, scope)]
    if beyond:
        raise Forbidden(
            f"A key cannot grant scopes its creator lacks: {', '.join(beyond)}.", code=codes.SCOPE_ESCALATION
        )
    _within_own_objects(ctx, spec.get("objects"))
    expires = spec.get("expiresAt")
    if expires:
        expires = _normalise_time(expires)
        if expires <= clock.now_iso():
            raise invalid_at("apiKey.expiresAt", "expiry must lie in the future")
    record, secret = keys.create_key(
        ctx,
        keys.KeySpec(
            spec["agentName"],
            list[str](spec["scopes"]),
            person_id=spec.get("person"),
            expires_at=expires,
            objects=spec.get("objects"),
            untrusted_text=spec.get("untrustedText"),
        ),
    )
    return {"apiKey": {**record, "key": secret}}


def _within_own_objects(ctx: CallContext, objects: list[str] | None) -> None:
    """An object-limited key creates keys limited to (some of) its own objects only: like a scope,
    a key cannot grant what its creator lacks."""
    if ctx.objects is None:
        return
    if objects is None:
        raise Forbidden(
            "A key limited to objects cannot create a key for every object; name some of its own in `objects`.",
            code=codes.SCOPE_ESCALATION,
        )
    beyond = sorted({object_id for object_id in objects if object_id not in ctx.objects})
    if beyond:
        raise Forbidden(
            f"A key cannot grant objects its creator is not limited to: {', '.join(beyond)}.",
            code=codes.SCOPE_ESCALATION,
        )


def _normalise_time(value: str) -> str:
    moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return clock.iso(moment)


@operation(
    name="apikeys.list",
    kind="query",
    summary="List the tenant's API keys (never their secrets).",
    docs="Lists every key of the tenant with agent, scopes, binding, state and last use, in creation order. "
    "An integration's key lists only its integration's keys.",
    args=s.obj(s.paging(), required=["limit", "offset"]),
    result=s.list_result("apiKeys", KEY_OUT),
    scope="admin",
    idempotent=True,
    example={"limit": 100, "offset": 0},
)
def list_keys(ctx: CallContext, args: ApikeysListArgs) -> dict[str, Any]:
    found, total, capped = keys.list_keys(ctx, args["limit"], args["offset"])
    return {"pagination": s.pagination(total, args["limit"], args["offset"], capped), "apiKeys": found}


KEY_ID = {**s.string("Id of the key (key_...)."), "pattern": r"^key_[0-9A-Z]{26}$"}


@operation(
    name="apikeys.show",
    kind="query",
    summary="One API key of the tenant (never its secret): agent, scopes, binding, state, expiry and last use.",
    docs="The key as `apikeys.list` shows it, read by its id. An integration's key sees only its integration's "
    "keys (another key answers 404, as a key of another tenant does).",
    args=s.obj({"apiKey": KEY_ID}, required=["apiKey"]),
    result=s.obj({"apiKey": KEY_OUT}, required=["apiKey"]),
    scope="admin",
    idempotent=True,
    example={"apiKey": "key_01J..."},
)
def show(ctx: CallContext, args: ApikeysShowArgs) -> dict[str, Any]:
    return {"apiKey": keys.key_wire(keys.get_key(ctx, args["apiKey"]))}


REQUEST_OUT = s.obj(
    {
        "at": s.timestamp("When the request arrived (UTC)."),
        "operation": s.string("The operation called (`mcp` for the MCP endpoint)."),
        "method": s.string("HTTP method."),
        "status": s.integer("HTTP status answered."),
        "durationMs": {"type": "number", "description": "Time the service took, in milliseconds."},
        "channel": s.enum("`rest` or `mcp`.", ["rest", "mcp"]),
        "requestId": s.string("Request id (also in the answer's X-Request-Id)."),
        "sourceIp": s.string("Source address."),
    },
    required=["at", "operation", "status"],
)


@operation(
    name="apikeys.requests.list",
    kind="query",
    summary="The request log of one API key, newest first: operation, status, duration, source address.",
    docs=f"""Every authenticated request is logged under its key for {config.REQUEST_LOG_DAYS} days: \
when, which operation
(REST) or `mcp`, the status answered, how long it took, from which address, through which channel. Use it to see
what an agent did and how it fared (for what it changed, `audit.list` with `keyId`). Requests refused before a
key was recognised (401) belong to no key and are not here.""",
    args=s.obj(
        {"apiKey": KEY_ID, **s.paging()},
        required=["apiKey", "limit", "offset"],
    ),
    result=s.list_result("requests", REQUEST_OUT),
    scope="admin",
    idempotent=True,
    example={"apiKey": "key_01J...", "limit": 100, "offset": 0},
)
def list_requests(ctx: CallContext, args: ApikeysRequestsListArgs) -> dict[str, Any]:
    keys.get_key(ctx, args["apiKey"])  # 404 for a key of another tenant (or integration)
    found, total, capped = requests.page(ctx.tenant_id, args["apiKey"], args["limit"], args["offset"])
    return {"pagination": s.pagination(total, args["limit"], args["offset"], capped), "requests": found}


USAGE_DAYS = config.REQUEST_LOG_DAYS  # the days apikeys.usage counts, today (UTC) included
USAGE_ENTRIES_PER_CALL = 1_000  # log entries apikeys.usage reads for the one call it counts as
MAX_OPERATIONS = 500  # operations one usage names at most (the registry's and `mcp`: fewer)

OPERATION_CALLS = s.obj(
    {
        "operation": s.string("The operation called (`mcp` for an MCP request as a whole)."),
        "calls": s.integer("How many calls."),
    },
    required=["operation", "calls"],
)
USAGE_OUT = s.obj(
    {
        "apiKey": s.string("The key (key_...)."),
        "from": s.timestamp(f"The first moment counted: 00:00 UTC of the first of the {USAGE_DAYS} days."),
        "to": s.timestamp("The last: when the answer was made."),
        "total": s.integer("Calls counted."),
        "complete": s.boolean(
            f"Whether every call from `from` on is counted; false when the log held more than "
            f"{config.USAGE_MAX_ENTRIES:,} entries since then (see `countedAfter`)."
        ),
        "countedAfter": {
            **s.timestamp(
                "When not complete: every call after this moment is counted, none at or before it "
                "(the days before it are left out, its own day counted from it on). Null when complete."
            ),
            "nullable": True,
        },
        "operations": s.array(OPERATION_CALLS, "Calls per operation over the days counted, most first.", max_items=500),
        "days": s.array(
            s.obj(
                {
                    "day": s.date("The day (UTC)."),
                    "calls": s.integer("Calls that day."),
                    "operations": s.array(OPERATION_CALLS, "Calls per operation that day, most first.", max_items=500),
                },
                required=["day", "calls", "operations"],
            ),
            f"Every day counted, oldest first, days without calls included: the {USAGE_DAYS} days, or when not "
            "complete those from `countedAfter`'s on.",
            max_items=USAGE_DAYS,
        ),
    },
    required=["apiKey", "from", "to", "total", "complete", "countedAfter", "operations", "days"],
)


@operation(
    name="apikeys.usage",
    kind="query",
    summary=f"One API key's calls per day and per operation over the last {USAGE_DAYS} days, from its request log.",
    docs=f"""How much an agent called, counted from its key's request log (`apikeys.requests.list`): the calls of
each of the last {USAGE_DAYS} days (UTC, today included), per operation (REST) or `mcp` (an MCP request as a whole),
and per operation over all of them; the calling key's own when `apiKey` is left out. Every authenticated request
counts, whatever it answered (4xx and 429 too); requests refused before a key was recognised (401) belong to no key.
An integration's key sees only its integration's keys (another key answers 404, as a key of another tenant does).
The answer is made from the log as it is: in the cloud a request reaches the log within seconds, so the newest calls
may be missing; a call is logged once it is answered, so a usage counts the usage calls before it, not itself.

**Bounded**: the log has no counters, so its entries are counted: at most {config.USAGE_MAX_ENTRIES:,} of them, the
newest first, in one read. A key that made more calls in the {USAGE_DAYS} days is counted in full from a moment on
(`complete` false, `countedAfter` that moment: every call after it counted, none at or before it; `days` then begins
on its day). The tenant's usage: call it for each key of `apikeys.list`.""",
    args=s.obj({"apiKey": {**KEY_ID, "description": "Id of the key (key_...); left out: the calling key."}}),
    result=s.obj({"usage": USAGE_OUT}, required=["usage"]),
    scope="admin",
    idempotent=True,
    weighed_by=f"each {USAGE_ENTRIES_PER_CALL:,} log entries it reads beyond the first {USAGE_ENTRIES_PER_CALL:,} "
    "count as one more",
    example={},  # the calling key's own usage
)
def usage(ctx: CallContext, args: ApikeysUsageArgs) -> dict[str, Any]:
    key_id = args.get("apiKey") or ctx.key_id
    keys.get_key(ctx, key_id)  # 404 for a key of another tenant (or integration)
    now = clock.now()
    first = (now - dt.timedelta(days=USAGE_DAYS - 1)).replace(hour=0, minute=0, second=0, microsecond=0)
    counted = requests.count(ctx.tenant_id, key_id, clock.iso(first), config.USAGE_MAX_ENTRIES)
    account.charge(ctx, (counted.read - 1) // USAGE_ENTRIES_PER_CALL)  # weighed_by above
    start = first.date() if counted.after is None else dt.date.fromisoformat(counted.after[:10])
    days = [start + dt.timedelta(days=n) for n in range((now.date() - start).days + 1)]
    per_day: dict[str, Counter[str]] = {day.isoformat(): Counter() for day in days}
    for (day, name), calls in counted.calls.items():
        per_day.setdefault(day, Counter())[name] += calls
    overall: Counter[str] = sum(per_day.values(), Counter())
    return {
        "usage": {
            "apiKey": key_id,
            "from": clock.iso(first),
            "to": clock.iso(now),
            "total": sum(overall.values()),
            "complete": counted.after is None,
            "countedAfter": counted.after,
            "operations": _by_calls(overall),
            "days": [
                {"day": day, "calls": sum(calls.values()), "operations": _by_calls(calls)}
                for day, calls in sorted(per_day.items())
            ],
        }
    }


def _by_calls(calls: Counter[str]) -> list[dict[str, Any]]:
    """Operations with their calls, most first (then by name)."""
    return [{"operation": name, "calls": n} for name, n in sorted(calls.items(), key=lambda kv: (-kv[1], kv[0]))]


@operation(
    name="apikeys.disable",
    kind="command",
    summary="Disable an API key; it answers 401 from then on.",
    docs="Disables the key for good (there is no enable). Disabling an already disabled key changes nothing. "
    "Warm service instances may accept the key for up to 10 seconds longer (their key cache). "
    "The disabling is an audit record of the key (`changedFields` `disabled`); "
    "`audit.revert` refuses it (`not_revertible`), so no revert enables a key.",
    args=s.obj(
        {"apiKey": {**s.string("Id of the key to disable (key_...)."), "pattern": r"^key_[0-9A-Z]{26}$"}},
        required=["apiKey"],
    ),
    result=s.obj({"apiKey": KEY_OUT}, required=["apiKey"]),
    scope="admin",
    destructive=True,
    idempotent=True,
    example={"apiKey": "key_01J..."},
)
def disable(ctx: CallContext, args: ApikeysDisableArgs) -> dict[str, Any]:
    return {"apiKey": keys.disable_key(ctx, args["apiKey"])}
