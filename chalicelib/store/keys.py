"""Tenants and API keys.

A key lives as two items written together: its record (PK <tenant>#<keyId>, listed per
tenant, never holding the secret) and its lookup item (PK keyhash#<sha256>), which holds
a copy of what authentication needs, so a request finds tenant and scopes in one GetItem.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import PutError
from pynamodb.expressions.condition import size

from chalicelib import clock, config, ids
from chalicelib import error_codes as codes
from chalicelib.addresses import address_hash
from chalicelib.context import CallContext
from chalicelib.entities import EntityType
from chalicelib.errors import Conflict, NotFound, invalid_at, not_found_at
from chalicelib.keyformat import new_secret, secret_hash
from chalicelib.log import logger
from chalicelib.scopes import ALL_SCOPES
from chalicelib.store import evictions, live_keys
from chalicelib.store.entities import (
    entity_pk,
    fetch_entities,
    filter_pk,
    get_item,
    index_keys,
    list_page,
    list_pk,
    matching_keys,
)
from chalicelib.store.key_lookups import LOOKUP_SK, lookup_pk
from chalicelib.store.model import ENTITY_SK, INDEXES, Item, Transaction, TransactionCancelled

TENANT_SK = "tenant"
TENANTS_INDEX = "tenants"  # gsi1 partition listing every tenant (for the operator)
# Indexed by integration: an integration's key lists only its integration's keys (list_keys).
API_KEY = EntityType(
    name="apiKey", plural="apiKeys", prefix="key", area="admin", aliasable=False, filters=("integrationId",)
)


def signup_guard_pk(email: str) -> str:
    return "signup#" + address_hash(email)


def address_in_use(email: str) -> bool:
    """Whether a tenant signed up with this address."""
    try:
        Item.get(signup_guard_pk(email), "signup", consistent_read=True)
    except Item.DoesNotExist:
        return False
    return True


TENANT_ID_PREFIX = "ten"
SANDBOX_PLAN = "sandbox"
SANDBOXES_OF = "{}#sandboxes"  # gsi2 partition of the sandboxes a tenant's people made in the console


def new_tenant_id() -> str:
    return ids.new_id(TENANT_ID_PREFIX)


def create_tenant(
    company_name: str,
    email: str,
    agent_name: str,
    trial: dt.timedelta,
    *,
    tenant_id: str,
    also: Callable[[Transaction, dict[str, Any]], None],
    refused_by: dict[str, Callable[[], Exception]],
    sandbox_seed: str | None = None,
    sandbox_parent: str | None = None,
    sandbox_state: str = "ready",
) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Tenant, its first key (every scope) and the secret, in one transaction with what `also`
    adds (the confirmed sign-up's own items, stamped as the tenant is); the trial ends `trial` after this moment. One
    tenant per e-mail address: a second answers 409. A refused condition of `also` raises
    what `refused_by` maps its label to. With `sandbox_seed` the tenant is a sandbox planted with that
    seed (sandbox/lifecycle.py): no trial, no plan, no sign-up address taken, keys `pm_sandbox_`."""
    moment = clock.now()
    now, trial_ends_at = clock.iso(moment), clock.iso(moment + trial)
    facts: dict[str, Any] = {"companyName": company_name, "email": email, "plan": "enterprise"}
    # a sandbox never expires and never becomes live; its address may own live tenants too
    sandbox = sandbox_seed is not None
    if sandbox:
        facts |= {"plan": SANDBOX_PLAN, "sandbox": True, "seed": sandbox_seed, "sandboxState": sandbox_state}
        facts |= {"parentTenantId": sandbox_parent} if sandbox_parent else {}
    else:
        facts["trialEndsAt"] = trial_ends_at
    # a console's sandboxes are listed under the tenant whose person made them (sandboxes_of)
    parent_index: dict[str, Any] = (
        {"gsi2pk": SANDBOXES_OF.format(sandbox_parent), "gsi2sk": tenant_id} if sandbox_parent else {}
    )
    tenant = Item(
        tenant_id,
        TENANT_SK,
        type="tenant",
        tenantId=tenant_id,
        id=tenant_id,
        data=facts,
        createdAt=now,
        updatedAt=now,
        gsi1pk=TENANTS_INDEX,
        gsi1sk=tenant_id,
        **parent_index,
    )
    guard = Item(signup_guard_pk(email), "signup", type="signupGuard", tenantId=tenant_id, createdAt=now)
    ctx = CallContext(
        tenant_id=tenant_id, key_id="", agent_name=agent_name, scopes=frozenset(), operation="signup.confirm"
    )
    expires_at = expiry(None)
    record, lookup, secret = _key_items(
        ctx, KeySpec(agent_name, list(ALL_SCOPES), expires_at=expires_at), sandbox=sandbox
    )
    # The audit's actor of a sign-up is its first key, for the tenant and for that key itself.
    stamp = {**ctx.stamp(), "keyId": record.id}
    tenant.changedBy = record.changedBy = stamp
    try:
        with Transaction() as tx:
            if not sandbox:
                tx.save(guard, condition=Item.pk.does_not_exist(), label="email")
            tx.save(tenant, condition=Item.pk.does_not_exist())
            tx.save(record, condition=Item.pk.does_not_exist())
            tx.save(lookup, condition=Item.pk.does_not_exist())
            _guard_write(tx, ctx, agent_name, record.id, None, expires_at)
            live_keys.first(tx, tenant_id, record.id, expires_at)
            also(tx, stamp)
    except TransactionCancelled as err:
        for label, error in refused_by.items():
            if label in err.failed:
                raise error() from err
        if "email" in err.failed:
            raise Conflict("A tenant with this e-mail address exists already.", code=codes.EMAIL_TAKEN) from err
        raise Conflict("Sign-up collided with another request; retry.", code=codes.WRITE_CONFLICT) from err
    return tenant_wire(tenant), key_wire(record), secret


def get_tenant(tenant_id: str) -> Item:
    try:
        return Item.get(tenant_id, TENANT_SK)
    except Item.DoesNotExist:
        raise NotFound("Tenant not found.") from None


def tenant_wire(item: Item) -> dict[str, Any]:
    data = item.data_dict()
    wire = {key: data.get(key) for key in ("companyName", "email", "plan", "trialEndsAt")}
    wire["sandbox"] = bool(data.get("sandbox"))
    if data.get("throttle"):
        wire["throttle"] = data["throttle"]
    return {"id": item.id, **wire, "createdAt": item.createdAt, "updatedAt": item.updatedAt}


@dataclass(frozen=True)
class KeySpec:
    """What a new key is: its agent and scopes, and optionally its person (contact id), expiry
    (None: the default lifetime), objects (ids: a key limited to them) and untrusted-text choice."""

    agent_name: str
    scopes: list[str]
    person_id: str | None = None
    expires_at: str | None = None
    objects: list[str] | None = None
    untrusted_text: str | None = None
    oauth_grant_id: str | None = None  # the grant whose access token the key is (mcp/oauth_provider.py)
    audience: str | None = None  # an access token's face (resource_metadata.Face): refused on the other
    forget_at: dt.datetime | None = None  # when the table's TTL may remove the key (a grant's, a while after expiry)


def _key_items(ctx: CallContext, spec: KeySpec, *, sandbox: bool) -> tuple[Item, Item, str]:
    agent_name, scopes, objects, untrusted_text = spec.agent_name, spec.scopes, spec.objects, spec.untrusted_text
    key_id = ids.new_id("key")
    secret = new_secret(sandbox=sandbox)
    now = clock.now_iso()
    facts: dict[str, Any] = {
        "tenantId": ctx.tenant_id,
        "keyId": key_id,
        "agentName": agent_name,
        "scopes": sorted(set(scopes)),
        "integrationId": ctx.integration_id,
        "personId": spec.person_id,
        "disabled": False,
        "expiresAt": spec.expires_at,
        "untrustedText": untrusted_text if untrusted_text != "show" else None,  # stored when not the default
        "objects": sorted(set(objects)) if objects is not None else None,
        "oauthGrantId": spec.oauth_grant_id,
        "audience": spec.audience,
    }
    lookup_key = lookup_pk(secret_hash(secret))
    # The record keeps the lookup item's key (a hash, not the secret) so disable() can reach it.
    record_data = {**facts, "prefix": secret[:12], "createdByKeyId": ctx.key_id or None, "lookupPk": lookup_key}
    common: dict[str, Any] = {
        "type": API_KEY.name,
        "tenantId": ctx.tenant_id,
        "id": key_id,
        "createdAt": now,
        "updatedAt": now,
        "changedBy": ctx.stamp(),
        **({"expiresAt": spec.forget_at} if spec.forget_at else {}),
    }
    indexes = {
        name: value
        for name, value in index_keys(ctx.tenant_id, API_KEY, key_id, record_data, now).items()
        if value is not None
    }
    record = Item(entity_pk(ctx.tenant_id, key_id), ENTITY_SK, data=_compact(record_data), **indexes, **common)
    lookup = Item(lookup_key, LOOKUP_SK, data=_compact(facts), **common)
    return record, lookup, secret


def _compact(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


# --- one agent, one key (two while rotating) ------------------------------------------------
# A guard item per (tenant, integration, agent name) lists the agent's live keys with their
# expiry. A new key for an agent that has one live key is the rotation path; a third is refused
# until the old one is disabled (or has expired). Writes check the guard's version, so two
# concurrent creates cannot both pass.

MAX_KEYS_PER_AGENT = 2


def _guard_pk(tenant_id: str, integration_key: str, agent_name: str) -> str:
    return f"{tenant_id}#agent#{integration_key}#{agent_name.casefold()}"


def _live(keys_of_agent: dict[str, Any]) -> dict[str, Any]:
    now = clock.now_iso()
    return {key_id: expires for key_id, expires in keys_of_agent.items() if not expires or expires > now}


def live_keys_of_agent(ctx: CallContext, agent_name: str) -> list[str]:
    """The ids of the agent's live keys in the caller's tenant and integration (its guard's)."""
    try:
        guard = Item.get(_guard_pk(ctx.tenant_id, ctx.integration_key, agent_name), "agent", consistent_read=True)
    except Item.DoesNotExist:
        return []
    return sorted(_live(guard.data_dict().get("keys", {})))


def _guard_write(
    tx: Transaction, ctx: CallContext, agent_name: str, key_id: str | None, remove: str | None, expires_at: str | None
) -> None:
    """Adds `key_id` to (or removes `remove` from) the agent's guard inside `tx`."""
    pk = _guard_pk(ctx.tenant_id, ctx.integration_key, agent_name)
    try:
        guard: Item | None = Item.get(pk, "agent", consistent_read=True)
    except Item.DoesNotExist:
        guard = None
    current = _live(guard.data_dict().get("keys", {})) if guard is not None else {}
    if remove is not None:
        current.pop(remove, None)
    if key_id is not None:
        if len(current) >= MAX_KEYS_PER_AGENT:
            raise Conflict(
                f"The agent {agent_name!r} has {len(current)} active keys already ({', '.join(sorted(current))}). "
                "An agent has one key; a second exists only while rotating: disable the old key "
                "(apikeys.disable), then create the new one.",
                code=codes.AGENT_HAS_KEYS,
            )
        current[key_id] = expires_at or ""
    now = clock.now_iso()
    if guard is None:
        fresh = Item(
            pk,
            "agent",
            type="agentGuard",
            tenantId=ctx.tenant_id,
            data={"agentName": agent_name, "keys": current},
            createdAt=now,
            updatedAt=now,
        )
        tx.save(fresh, condition=Item.pk.does_not_exist(), label="agent")
    else:
        tx.update(
            guard,
            actions=[Item.data["keys"].set(current), Item.updatedAt.set(now), Item.version.add(1)],
            condition=Item.version == guard.version,
            label="agent",
        )


def expiry(requested: str | None) -> str:
    """The key's expiry: the requested one (at most MAX_KEY_DAYS ahead), else DEFAULT_KEY_DAYS."""
    now = clock.now()
    latest = clock.iso(now + dt.timedelta(days=config.MAX_KEY_DAYS))
    if requested is None:
        return clock.iso(now + dt.timedelta(days=config.DEFAULT_KEY_DAYS))
    if requested > latest:
        raise invalid_at(
            "apiKey.expiresAt",
            f"at most {config.MAX_KEY_DAYS} days ahead (until {latest}); rotate keys before they expire",
        )
    return requested


# --- a tenant's live keys, capped (store/live_keys.py) ----------------------------------------


def key_records(tenant_id: str) -> list[dict[str, Any]]:
    """The data of every key record of the tenant, disabled ones included (the index, then a
    BatchGetItem per 100)."""
    pks = [hit.pk for hit in INDEXES[1].query(list_pk(tenant_id, API_KEY.name), attributes_to_get=["PK"])]
    return [item.data_dict() for item in fetch_entities(pks)]


def _live_key_records(tenant_id: str) -> dict[str, str]:
    """Every key of the tenant that is not disabled, with its expiry ("" for none): the count
    of a tenant whose keys predate its register of live keys."""
    return {data["keyId"]: data.get("expiresAt") or "" for data in key_records(tenant_id) if not data.get("disabled")}


def live_key_count(tenant_id: str) -> int:
    return live_keys.held(tenant_id, lambda: _live_key_records(tenant_id))


def _key_limit(cap: int, held: int) -> Conflict:
    return Conflict(
        f"The tenant holds {held} live keys; a tenant may hold at most {cap} live keys. Disable a key it no "
        "longer needs (apikeys.disable; disabled and expired keys do not count), then create the new one.",
        code=codes.KEY_LIMIT_REACHED,
        extra={"maxLiveKeys": cap, "liveKeys": held},
    )


def create_key(ctx: CallContext, spec: KeySpec) -> tuple[dict[str, Any], str]:
    """A key for `spec.agent_name` in the caller's tenant and integration. Without an expiry it
    takes the default lifetime; an agent with one live key gets a second (rotation), not a third;
    a tenant holding config.max_live_keys() live keys gets none (409 key_limit_reached).
    `spec.objects` (ids of live objects, else 404 at `apiKey.objects[i]`) limits the key to them."""
    expires_at = expiry(spec.expires_at)
    spec = dataclasses.replace(spec, expires_at=expires_at)
    agent_name, person_id = spec.agent_name, spec.person_id
    if spec.objects is not None:
        _check_objects(ctx, spec.objects)
    cap = config.max_live_keys()
    held = live_key_count(ctx.tenant_id)
    if held >= cap:
        raise _key_limit(cap, held)
    sandbox = bool(get_tenant(ctx.tenant_id).data_dict().get("sandbox"))  # its keys say so: pm_sandbox_
    record, lookup, secret = _key_items(ctx, spec, sandbox=sandbox)
    try:
        with Transaction() as tx:
            tx.save(record, condition=Item.pk.does_not_exist())
            tx.save(lookup, condition=Item.pk.does_not_exist())
            _guard_write(tx, ctx, agent_name, record.id, None, expires_at)
            live_keys.add(tx, ctx.tenant_id, record.id, expires_at, cap)
            if person_id:  # a person-bound key needs its person: a live contact of this tenant
                live = Item.pk.exists() & Item.deletedAt.does_not_exist() & (Item.type == "contact")
                tx.condition_check(entity_pk(ctx.tenant_id, person_id), ENTITY_SK, condition=live, label="person")
    except TransactionCancelled as err:
        if "person" in err.failed:
            raise not_found_at("apiKey.person", f"No contact with id {person_id} in this tenant.") from err
        if live_keys.LABEL in err.failed:  # another create took the last place meanwhile
            raise _key_limit(cap, cap) from err
        raise Conflict(
            "Creating the key collided with another request for this agent; retry.", code=codes.WRITE_CONFLICT
        ) from err
    return key_wire(record), secret


def _check_objects(ctx: CallContext, objects: list[str]) -> None:
    """Each of an object-limited key's objects is a live object of the tenant (one BatchGetItem
    per 100; a transaction's ConditionChecks would hold 100 at most, and a key names up to 1,000)."""
    live = {
        item.id
        for item in fetch_entities([entity_pk(ctx.tenant_id, object_id) for object_id in dict.fromkeys(objects)])
        if item.type == "object" and item.tenantId == ctx.tenant_id
    }
    for index, object_id in enumerate(objects):
        if object_id not in live:
            raise not_found_at(f"apiKey.objects[{index}]", f"No object with id {object_id} in this tenant.")


def get_key(ctx: CallContext, key_id: str) -> Item:
    """A key record of the caller's tenant; an integration's key reaches only its integration's keys."""
    record = get_item(ctx, API_KEY, key_id, path="apiKey")
    if ctx.integration_id and record.data_dict().get("integrationId") != ctx.integration_id:
        raise not_found_at("apiKey", f"No apiKey with id {key_id} in this tenant.")
    return record


def disable_key(ctx: CallContext, key_id: str) -> dict[str, Any]:
    record = get_key(ctx, key_id)
    data = record.data_dict()
    if data.get("disabled"):
        return key_wire(record)
    now = clock.now_iso()
    data["disabled"] = True
    owner = CallContext(
        tenant_id=ctx.tenant_id,
        key_id=ctx.key_id,
        agent_name=ctx.agent_name,
        scopes=ctx.scopes,
        integration_id=data.get("integrationId"),
    )
    live_key_count(ctx.tenant_id)  # a tenant whose keys predate the register gets one first
    try:
        with Transaction() as tx:
            tx.update(
                record,
                actions=[
                    Item.data["disabled"].set(True),
                    Item.updatedAt.set(now),
                    Item.changedBy.set(ctx.stamp()),
                    Item.version.add(1),
                ],
                condition=Item.pk.exists(),
            )
            tx.update(
                Item(data["lookupPk"], LOOKUP_SK), actions=[Item.data["disabled"].set(True)], condition=Item.pk.exists()
            )
            _guard_write(tx, owner, data["agentName"], None, key_id, None)
            live_keys.remove(tx, ctx.tenant_id, key_id)
    except TransactionCancelled as err:
        raise Conflict(
            "Disabling the key collided with another change of this agent's keys; retry.", code=codes.WRITE_CONFLICT
        ) from err
    evictions.key_changed(key_id)
    record.data = data
    record.updatedAt = now
    return key_wire(record)


def list_keys(ctx: CallContext, limit: int, offset: int) -> tuple[list[dict[str, Any]], int, bool]:
    """The tenant's keys; for an integration's key, its integration's keys only (as get_key)."""
    items, total, capped = list_page(ctx, API_KEY, {"integrationId": ctx.integration_id}, limit, offset)
    return [key_wire(item) for item in items], total, capped


def integration_key_ids(tenant_id: str, integration_id: str) -> frozenset[str]:
    """Ids of the tenant's keys carrying this integration (issued for it, or made by its keys):
    the keys list_keys shows that integration's keys. Read from the index alone."""
    slot = API_KEY.filters.index("integrationId") + 2  # gsi1 lists the type, gsi2.. its filters
    pks, _ = matching_keys(INDEXES[slot], filter_pk(tenant_id, API_KEY, "integrationId", integration_id), None, {})
    return frozenset(pk.removeprefix(entity_pk(tenant_id, "")) for pk in pks)


def record_use(tenant_id: str, key_id: str, when: str, source_ip: str | None) -> None:
    actions = [Item.data["lastUsedAt"].set(when)]
    if source_ip:
        actions.append(Item.data["lastUsedIp"].set(source_ip))
    try:
        Item(entity_pk(tenant_id, key_id), ENTITY_SK).update(actions=actions, condition=Item.pk.exists())
    except Exception:  # noqa: BLE001 - bookkeeping must never fail the request it rides on
        logger.warning("could not record key use", extra={"keyId": key_id})


def key_wire(item: Item) -> dict[str, Any]:
    data = item.data_dict()
    binding = {"type": "person", "contactId": data["personId"]} if data.get("personId") else {"type": "company"}
    return {
        "id": item.id,
        "agentName": data["agentName"],
        "scopes": list(data["scopes"]),
        "binding": binding,
        "integrationId": data.get("integrationId"),
        "prefix": data.get("prefix"),
        "disabled": bool(data.get("disabled")),
        "expiresAt": data.get("expiresAt"),
        "untrustedText": data.get("untrustedText") or "show",
        "lastUsedAt": data.get("lastUsedAt"),
        "lastUsedIp": data.get("lastUsedIp"),
        "createdBy": data.get("createdByKeyId"),
        "objects": data.get("objects"),
        "oauthGrantId": data.get("oauthGrantId"),
        "audience": data.get("audience"),
        "createdAt": item.createdAt,
        "updatedAt": item.updatedAt,
    }


# --- the operator's changes to a tenant's account (pmctl) --------------------------------------


# Who changes an account from the ops CLI (plan, throttle, integrations and their keys), as the
# audit trail names it: no key, the operator's channel.
OPERATOR_AGENT, OPERATOR_CHANNEL = "operator (pmctl)", "operator"
OPERATOR = {"agentName": OPERATOR_AGENT, "channel": OPERATOR_CHANNEL}


def _update_tenant(tenant_id: str, actions: list[Any], operation: str) -> dict[str, Any]:
    tenant = get_tenant(tenant_id)
    stamp = Item.changedBy.set({**OPERATOR, "operation": operation})
    tenant.update(
        actions=[*actions, Item.updatedAt.set(clock.now_iso()), Item.version.add(1), stamp], condition=Item.pk.exists()
    )
    evictions.tenant_changed(tenant_id)
    return tenant_wire(get_tenant(tenant_id))


def set_plan(tenant_id: str, plan: str, trial_ends_at: str | None) -> dict[str, Any]:
    """The tenant's plan; `trial_ends_at` None ends the trial's limit (a paid plan). A sandbox has
    none: it cannot become live (its data is made up, its keys say pm_sandbox_)."""
    if get_tenant(tenant_id).data_dict().get("sandbox"):
        raise Conflict("A sandbox has no plan and cannot become live.", code=codes.SANDBOX_NOT_LIVE)
    actions = [Item.data["plan"].set(plan)]
    actions.append(Item.data["trialEndsAt"].set(trial_ends_at) if trial_ends_at else Item.data["trialEndsAt"].remove())
    return _update_tenant(tenant_id, actions, "tenants.plan")


def sandbox_seed(tenant_id: str) -> str:
    """The seed a sandbox was planted with (404 for a tenant that is no sandbox, or a closed one)."""
    item = get_tenant(tenant_id)
    data = item.data_dict()
    if not data.get("sandbox") or item.deletedAt:
        raise NotFound(f"No sandbox {tenant_id}.")
    return str(data.get("seed") or "demo")


def set_sandbox_state(tenant_id: str, state: str, detail: str | None = None) -> None:
    """Where a sandbox's planting or reset stands (`planting`, `resetting`, `ready`, `failed` with
    what failed): the console shows it. Bookkeeping of the worker, no change of the account."""
    data: Any = Item.data
    actions = [data["sandboxState"].set(state)]
    actions.append(data["sandboxDetail"].set(detail) if detail else data["sandboxDetail"].remove())
    get_tenant(tenant_id).update(actions=actions, condition=Item.pk.exists())


def sandboxes_of(parent_tenant_id: str) -> list[dict[str, Any]]:
    """The live sandboxes made from a tenant's console, oldest first (tenant_wire + their state)."""
    hits = INDEXES[2].query(SANDBOXES_OF.format(parent_tenant_id), attributes_to_get=["PK"])
    found = Item.batch_get([(hit.pk, TENANT_SK) for hit in hits])
    return sorted(
        (
            {**tenant_wire(item), "sandboxState": item.data_dict().get("sandboxState", "ready")}
            for item in found
            if not item.deletedAt
        ),
        key=lambda t: t["id"],
    )


# The cap on a company's sandboxes: one register item per company lists its live sandboxes
# ({tenantId: createdAt}); a sandbox is added in the transaction that creates it, on the condition
# that the register holds fewer than the cap (so concurrent creates cannot pass it between them),
# and removed in the one that closes it. A company whose sandboxes predate the register gets one,
# counted from its listed sandboxes, when it next creates one.
SANDBOX_REGISTER_SK = "sandboxes"
SANDBOX_CAP = "sandboxcap"  # the transaction's label of the register's condition


def _sandbox_register_pk(parent_tenant_id: str) -> str:
    return f"{parent_tenant_id}#sandboxregister"


def sandbox_count(parent_tenant_id: str) -> int:
    """How many live sandboxes the company holds, from its register (made first where it has none)."""
    pk = _sandbox_register_pk(parent_tenant_id)
    try:
        return len(Item.get(pk, SANDBOX_REGISTER_SK, consistent_read=True).data_dict().get("sandboxes") or {})
    except Item.DoesNotExist:
        pass
    live = {sandbox["id"]: sandbox["createdAt"] for sandbox in sandboxes_of(parent_tenant_id)}
    register = Item(
        pk,
        SANDBOX_REGISTER_SK,
        type="sandboxRegister",
        tenantId=parent_tenant_id,
        data={"sandboxes": live},
        createdAt=clock.now_iso(),
    )
    try:
        register.save(condition=Item.pk.does_not_exist())
    except PutError:
        return sandbox_count(parent_tenant_id)  # another request made it first
    return len(live)


def hold_sandbox(tx: Transaction, parent_tenant_id: str, tenant_id: str, cap: int) -> None:
    """Adds the new sandbox to its company's register inside `tx` (sandbox_count made it), on the
    condition that it holds fewer than `cap` (refused under SANDBOX_CAP)."""
    tx.update(
        Item(_sandbox_register_pk(parent_tenant_id), SANDBOX_REGISTER_SK),
        actions=[Item.data["sandboxes"][tenant_id].set(clock.now_iso())],
        condition=Item.pk.exists() & (size(Item.data["sandboxes"]) < cap),
        label=SANDBOX_CAP,
    )


def close_sandbox(tenant_id: str, changed_by: dict[str, Any]) -> None:
    """A deleted sandbox: marked deleted, off the operator's list and off its company's register
    (its keys, members and webhooks are ended by the caller: sandbox/lifecycle.py)."""
    sandbox_seed(tenant_id)
    tenant = get_tenant(tenant_id)
    parent = tenant.data_dict().get("parentTenantId")
    stamp = Item.changedBy.set(changed_by)
    with Transaction() as tx:
        tx.update(
            tenant,
            actions=[
                Item.deletedAt.set(clock.now_iso()),
                Item.updatedAt.set(clock.now_iso()),
                Item.gsi1pk.remove(),
                Item.gsi1sk.remove(),
                Item.gsi2pk.remove(),
                Item.gsi2sk.remove(),
                Item.version.add(1),
                stamp,
            ],
            condition=Item.pk.exists() & Item.deletedAt.does_not_exist(),
        )
        if parent and _has_register(parent):
            tx.update(
                Item(_sandbox_register_pk(parent), SANDBOX_REGISTER_SK),
                actions=[Item.data["sandboxes"][tenant_id].remove()],
                condition=Item.pk.exists(),
            )
    evictions.tenant_changed(tenant_id)


def _has_register(parent_tenant_id: str) -> bool:
    try:
        Item.get(_sandbox_register_pk(parent_tenant_id), SANDBOX_REGISTER_SK, consistent_read=True)
    except Item.DoesNotExist:
        return False
    return True


def set_throttle(tenant_id: str, throttle: dict[str, Any] | None) -> dict[str, Any]:
    """The tenant's throttle settings (`perKey`, `operations`); None returns to the defaults."""
    return _update_tenant(
        tenant_id,
        [Item.data["throttle"].set(throttle) if throttle else Item.data["throttle"].remove()],
        "tenants.throttle",
    )
