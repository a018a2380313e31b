"""API keys of the tenant: create (the secret is shown once), list, disable.

Rotation has no endpoint: create a new key with the same agent name, point the agent
at it, then disable the old key."""

from __future__ import annotations

from typing import Any

from chalicelib import clock
from chalicelib import schemas as s
from chalicelib.auth import KEY_SCOPES, has_scope
from chalicelib.context import CallContext
from chalicelib.errors import Forbidden, invalid_at
from chalicelib.registry import operation
from chalicelib.store import keys

AGENT_NAME = {
    "type": "string",
    "pattern": r"^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,99}$",
    "description": "Name of the agent or integration that uses the key, e.g. `invoice-bot`.",
}
SCOPES = {
    **s.array(s.enum("A scope.", list(KEY_SCOPES)), "`read`, `write` or `write:<area>`, `destructive`, `admin`.", max_items=len(KEY_SCOPES)),
    "minItems": 1,
}
KEY_OUT = s.obj(
    {
        "id": s.string("Key id (not the secret)."),
        "agentName": s.string("The agent the key belongs to."),
        "scopes": s.array(s.string("Scope."), "Granted scopes.", max_items=len(KEY_SCOPES)),
        "binding": s.obj(
            {"type": s.enum("`person` or `company`.", ["person", "company"]), "contactId": s.string("The person (contact) for person-bound keys.")},
            required=["type"],
        ),
        "integrationId": {**s.string("Integration the key belongs to; null for the tenant's own keys."), "nullable": True},
        "prefix": s.string("First characters of the secret, to recognise it."),
        "disabled": s.boolean("Disabled keys answer 401."),
        "expiresAt": {**s.timestamp("Expiry; null for none."), "nullable": True},
        "lastUsedAt": {**s.timestamp("Last use (recorded at most once a minute)."), "nullable": True},
        "lastUsedIp": {**s.string("Source address of the last use."), "nullable": True},
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
    docs="""Creates a key bound to the company (default) or, with `person`, to a staff member (a contact).
A key can only grant scopes its creator holds. The answer carries the secret in `apiKey.key` once; only
its hash is stored. Rotation: create a new key with the same `agentName`, point the agent at it, then
disable the old key with `apikeys.disable`.""",
    args=s.obj(
        {
            "apiKey": s.obj(
                {
                    "agentName": AGENT_NAME,
                    "scopes": SCOPES,
                    "person": s.ref("contact", "Bind the key to this staff member instead of the company."),
                    "expiresAt": s.timestamp("Optional expiry (UTC), in the future."),
                },
                required=["agentName", "scopes"],
            )
        },
        required=["apiKey"],
    ),
    result=s.obj({"apiKey": KEY_OUT}, required=["apiKey"]),
    scope="admin",
    errors=("403 `scope_escalation`: the key asks for a scope its creator does not hold.",),
    example={"apiKey": {"agentName": "invoice-bot", "scopes": ["read", "write:accounting"]}},
)
def create(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    spec = args["apiKey"]
    beyond = [scope for scope in spec["scopes"] if not has_scope(ctx.scopes, scope)]
    if beyond:
        raise Forbidden(f"A key cannot grant scopes its creator lacks: {', '.join(beyond)}.", code="scope_escalation")
    expires = spec.get("expiresAt")
    if expires:
        expires = _normalise_time(expires)
        if expires <= clock.now_iso():
            raise invalid_at("apiKey.expiresAt", "expiry must lie in the future")
    record, secret = keys.create_key(ctx, spec["agentName"], spec["scopes"], spec.get("person"), expires)
    return {"apiKey": {**record, "key": secret}}


def _normalise_time(value: str) -> str:
    import datetime as dt

    moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return clock.iso(moment)


@operation(
    name="apikeys.list",
    kind="query",
    summary="List the tenant's API keys (never their secrets).",
    docs="Lists every key of the tenant with agent, scopes, binding, state and last use, in creation order.",
    args=s.obj(s.paging(), required=["limit", "offset"]),
    result=s.list_result("apiKeys", KEY_OUT),
    scope="admin",
    idempotent=True,
    example={"limit": 100, "offset": 0},
)
def list_keys(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    found, total = keys.list_keys(ctx, args["limit"], args["offset"])
    return {"pagination": {"total": total, "limit": args["limit"], "offset": args["offset"]}, "apiKeys": found}


@operation(
    name="apikeys.disable",
    kind="command",
    summary="Disable an API key; it answers 401 from then on.",
    docs="Disables the key for good (there is no enable). Disabling an already disabled key changes nothing. "
    "Warm service instances may accept the key for up to 10 seconds longer (their key cache).",
    args=s.obj({"apiKey": {**s.string("Id of the key to disable (key_...)."), "pattern": r"^key_[0-9A-Z]{26}$"}}, required=["apiKey"]),
    result=s.obj({"apiKey": KEY_OUT}, required=["apiKey"]),
    scope="admin",
    destructive=True,
    idempotent=True,
    example={"apiKey": "key_01J..."},
)
def disable(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    return {"apiKey": keys.disable_key(ctx, args["apiKey"])}
