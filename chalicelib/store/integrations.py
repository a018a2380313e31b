"""Vendor integrations: onboarded by the operator (pmctl), never self-registered.

An integration is an operator-level record, not under any tenant. Its partition also holds
one item per tenant it is connected to and one per key issued for it, so disabling it can
reach every key:

  integration   PK = integration#<id>   SK = "integration"    gsi1pk = "integrations" (list all)
  name claim    PK = integrationname#<casefolded name>  SK = "integrationName"  (names are unique)
  connection    PK = integration#<id>   SK = "tenant#<tenantId>"  gsi1pk = <tenant>#integrationConnection
                (holds the integration's name, contact, scopes and disabled: its audit record in the
                tenant's trail, events/changes.py)
  issued key    PK = integration#<id>   SK = "key#<keyId>"   (tenantId, agent, scopes)

Scopes: an integration is created with the scopes it may ever hold (`allowedScopes`); every
key issued for it must stay within them (`write` covers `write:<area>`, as for keys).
`destructive` and `admin` are never implied: an integration holds them only when they were
listed explicitly at creation. An integration key with `admin` can create further keys in its
tenant (within its own scopes, carrying its integration id); `disable` finds those too, because
it also sweeps the connected tenants' keys for the integration's id.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from chalicelib import clock, ids
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.errors import Conflict, Forbidden, NotFound, invalid_at
from chalicelib.scopes import KEY_SCOPES, holds
from chalicelib.store import keys
from chalicelib.store.entities import fetch_entities, fetch_many, get_item
from chalicelib.store.model import INDEXES, Item, Transaction, TransactionCancelled

INTEGRATION_SK = "integration"
NAME_SK = "integrationName"
LIST_PK = "integrations"
CONNECTION_TYPE = "integrationConnection"
ID_PREFIX = "int"  # an integration's id: int_<ulid> (the audit trail tells its records apart by it)
MAX_NAME_LENGTH = 100


def integration_pk(integration_id: str) -> str:
    return f"integration#{integration_id}"


def _name_pk(name: str) -> str:
    return f"integrationname#{name.casefold()}"


def connection_list_pk(tenant_id: str) -> str:
    """Index partition of the integrations connected to one tenant (tenant id leads)."""
    return f"{tenant_id}#{CONNECTION_TYPE}"


def _stamp(operation: str) -> dict[str, Any]:
    return {**keys.OPERATOR, "operation": operation}


def _ctx(tenant_id: str, integration_id: str, scopes: list[str], operation: str) -> CallContext:
    """The call context pmctl acts under in a tenant: the operator, on behalf of the integration."""
    return CallContext(
        tenant_id=tenant_id,
        key_id="",
        agent_name=keys.OPERATOR_AGENT,
        scopes=frozenset(scopes),
        integration_id=integration_id,
        operation=operation,
        channel=keys.OPERATOR_CHANNEL,
    )


def _scopes(scopes: list[str], path: str) -> list[str]:
    if not scopes:
        raise invalid_at(path, "name at least one scope")
    unknown = [s for s in scopes if s not in KEY_SCOPES]
    if unknown:
        raise invalid_at(path, f"unknown scope {', '.join(unknown)}; known: {', '.join(KEY_SCOPES)}")
    return sorted(set(scopes))


def wire(item: Item) -> dict[str, Any]:
    data = item.data_dict()
    return {
        "id": item.id,
        "name": data["name"],
        "contact": data.get("contact"),
        "allowedScopes": list(data.get("allowedScopes", [])),
        "disabled": bool(data.get("disabled")),
        "disabledAt": data.get("disabledAt"),
        "createdAt": item.createdAt,
        "updatedAt": item.updatedAt,
    }


# --- integrations -----------------------------------------------------------------------


def create(name: str, contact: str, allowed_scopes: list[str]) -> dict[str, Any]:
    """A new, enabled integration. Names are unique among integrations, ignoring case."""
    name, contact = name.strip(), contact.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        raise invalid_at("name", f"1 to {MAX_NAME_LENGTH} characters")
    if not contact:
        raise invalid_at("contact", "name a contact (e-mail or person) at the vendor")
    scopes = _scopes(allowed_scopes, "allowedScopes")
    integration_id = ids.new_id(ID_PREFIX)
    now = clock.now_iso()
    stamp = _stamp("pmctl.integrations.create")
    item = Item(
        integration_pk(integration_id),
        INTEGRATION_SK,
        type="integration",
        id=integration_id,
        data={"name": name, "contact": contact, "allowedScopes": scopes, "disabled": False},
        createdAt=now,
        updatedAt=now,
        changedBy=stamp,
        gsi1pk=LIST_PK,
        gsi1sk=integration_id,
    )
    claim = Item(
        _name_pk(name),
        NAME_SK,
        type="integrationName",
        id=integration_id,
        data={"name": name},
        createdAt=now,
        changedBy=stamp,
    )
    try:
        with Transaction() as tx:
            tx.save(claim, condition=Item.pk.does_not_exist(), label="name")
            tx.save(item, condition=Item.pk.does_not_exist())
    except TransactionCancelled as err:
        if "name" in err.failed:
            raise Conflict(
                f"An integration named {name!r} exists already (names ignore case).", code=codes.INTEGRATION_NAME_TAKEN
            ) from err
        raise Conflict(
            "Creating the integration collided with another write; retry.", code=codes.WRITE_CONFLICT
        ) from err
    return wire(item)


def _get_item(integration_id: str) -> Item:
    if ids.prefix_of(integration_id) != "int":
        raise NotFound(
            f"No integration {integration_id} (integration ids look like int_01J...).", code=codes.INTEGRATION_NOT_FOUND
        )
    try:
        return Item.get(integration_pk(integration_id), INTEGRATION_SK, consistent_read=True)
    except Item.DoesNotExist:
        raise NotFound(f"No integration {integration_id}.", code=codes.INTEGRATION_NOT_FOUND) from None


def get(integration_id: str) -> dict[str, Any] | None:
    try:
        return wire(_get_item(integration_id))
    except NotFound:
        return None


def list_all() -> list[dict[str, Any]]:
    """Every integration, in creation order."""
    pks = [hit.pk for hit in INDEXES[1].query(LIST_PK, attributes_to_get=["PK"])]
    return [wire(item) for item in fetch_many([(pk, INTEGRATION_SK) for pk in pks])]


def _enabled(integration_id: str) -> Item:
    item = _get_item(integration_id)
    if item.data_dict().get("disabled"):
        raise Forbidden(f"Integration {integration_id} is disabled.", code=codes.INTEGRATION_DISABLED)
    return item


_STILL_ENABLED = Item.pk.exists() & (Item.data["disabled"] == False)  # noqa: E712 - a condition expression, not a comparison


# --- tenants ------------------------------------------------------------------------------


def _seen_by_tenant(integration: Item, **changes: Any) -> dict[str, Any]:
    """What a connection holds of its integration: the tenant's audit trail shows it."""
    data = integration.data_dict()
    return {
        "name": data["name"],
        "contact": data.get("contact"),
        "allowedScopes": list(data.get("allowedScopes", [])),
        "disabled": False,
        **changes,
    }


def connect(integration_id: str, tenant_id: str) -> dict[str, Any]:
    """Connect the integration to a tenant, so keys can be issued for it there. Connecting
    again changes nothing and answers the existing connection."""
    keys.get_tenant(tenant_id)
    integration = _enabled(integration_id)
    now = clock.now_iso()
    item = Item(
        integration_pk(integration_id),
        f"tenant#{tenant_id}",
        type=CONNECTION_TYPE,
        tenantId=tenant_id,
        id=integration_id,
        data=_seen_by_tenant(integration),
        createdAt=now,
        updatedAt=now,
        changedBy=_stamp("pmctl.integrations.connect"),
        gsi1pk=connection_list_pk(tenant_id),
        gsi1sk=integration_id,
    )
    try:
        with Transaction() as tx:
            tx.condition_check(
                integration_pk(integration_id), INTEGRATION_SK, condition=_STILL_ENABLED, label="integration"
            )
            tx.save(item, condition=Item.pk.does_not_exist(), label="connection")
    except TransactionCancelled as err:
        if "integration" in err.failed:
            raise Forbidden(f"Integration {integration_id} is disabled.", code=codes.INTEGRATION_DISABLED) from err
        if "connection" in err.failed:
            existing = _connection(integration_id, tenant_id)
            if existing is not None:
                return existing
        raise Conflict("Connecting collided with another write; retry.", code=codes.WRITE_CONFLICT) from err
    return _connection_wire(item)


def _connection_wire(item: Item) -> dict[str, Any]:
    return {"integrationId": item.id, "tenantId": item.tenantId, "connectedAt": item.createdAt}


def _connection(integration_id: str, tenant_id: str) -> dict[str, Any] | None:
    try:
        return _connection_wire(Item.get(integration_pk(integration_id), f"tenant#{tenant_id}", consistent_read=True))
    except Item.DoesNotExist:
        return None


def connected_tenants(integration_id: str) -> list[dict[str, Any]]:
    """The tenants the integration is connected to, in tenant-id order."""
    items = Item.query(integration_pk(integration_id), Item.sk.startswith("tenant#"), consistent_read=True)
    return [_connection_wire(item) for item in items]


def integrations_of_tenant(tenant_id: str) -> list[str]:
    """Ids of the integrations connected to a tenant."""
    return [
        hit.pk.removeprefix("integration#")
        for hit in INDEXES[1].query(connection_list_pk(tenant_id), attributes_to_get=["PK"])
    ]


# --- keys ---------------------------------------------------------------------------------


def _expiry(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        moment = dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise invalid_at("expiresAt", "an ISO 8601 time, e.g. 2027-01-31T00:00:00Z") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    expires = clock.iso(moment)
    if expires <= clock.now_iso():
        raise invalid_at("expiresAt", "expiry must lie in the future")
    return expires


def issue_key(
    integration_id: str, tenant_id: str, agent_name: str, scopes: list[str], expires_at: str | None = None
) -> tuple[dict[str, Any], str]:
    """A key of `tenant_id` for the integration's agent, within the integration's allowed
    scopes; answers the key record and its secret (shown once, stored only as a hash)."""
    integration = _enabled(integration_id)
    wanted = _scopes(scopes, "scopes")
    expires = _expiry(expires_at)
    if _connection(integration_id, tenant_id) is None:
        keys.get_tenant(tenant_id)  # an unknown tenant answers 404 rather than "not connected"
        raise Forbidden(
            f"Integration {integration_id} is not connected to tenant {tenant_id}; "
            "connect it first (pmctl integrations connect).",
            code=codes.INTEGRATION_NOT_CONNECTED,
        )
    allowed = frozenset(integration.data_dict().get("allowedScopes", []))
    beyond = [s for s in wanted if not holds(allowed, s)]
    if beyond:
        raise Forbidden(
            f"Integration {integration_id} may not hold {', '.join(beyond)}; "
            f"its allowed scopes are {', '.join(sorted(allowed))}.",
            code=codes.SCOPE_ESCALATION,
        )
    ctx = _ctx(tenant_id, integration_id, wanted, "pmctl.keys.issue")
    record, secret = keys.create_key(ctx, keys.KeySpec(agent_name, wanted, expires_at=expires))
    link = Item(
        integration_pk(integration_id),
        f"key#{record['id']}",
        type="integrationKey",
        tenantId=tenant_id,
        id=record["id"],
        data={"agentName": agent_name, "scopes": wanted},
        createdAt=record["createdAt"],
        changedBy=ctx.stamp(),
    )
    try:
        # Written only while the integration is still enabled: a disable that ran meanwhile
        # either sees this link, or this write fails and the new key is disabled here.
        with Transaction() as tx:
            tx.condition_check(
                integration_pk(integration_id), INTEGRATION_SK, condition=_STILL_ENABLED, label="integration"
            )
            tx.save(link)
    except TransactionCancelled as err:
        keys.disable_key(_ctx(tenant_id, integration_id, [], "pmctl.keys.issue"), record["id"])
        raise Forbidden(
            f"Integration {integration_id} was disabled while the key was issued; the key is disabled.",
            code=codes.INTEGRATION_DISABLED,
        ) from err
    except Exception:
        # throttled or unavailable (store/faults.py): a key without its link would escape a
        # later disable of the integration, so it must not stay usable
        keys.disable_key(_ctx(tenant_id, integration_id, [], "pmctl.keys.issue"), record["id"])
        raise
    return record, secret


def issued_keys(integration_id: str) -> list[dict[str, Any]]:
    """The keys issued for the integration through pmctl, oldest first."""
    items = Item.query(integration_pk(integration_id), Item.sk.startswith("key#"), consistent_read=True)
    found = [{"keyId": i.id, "tenantId": i.tenantId, **i.data_dict(), "issuedAt": i.createdAt} for i in items]
    return sorted(found, key=lambda k: k["keyId"])


def _keys_carrying(integration_id: str, tenant_id: str) -> list[str]:
    """Ids of the tenant's keys that carry the integration id (also those its own admin keys made)."""
    pks = [hit.pk for hit in INDEXES[1].query(f"{tenant_id}#{keys.API_KEY.name}", attributes_to_get=["PK"])]
    return [
        item.id for item in fetch_entities(pks) if item.id and item.data_dict().get("integrationId") == integration_id
    ]


def _disable_connections(integration: Item, stamp: Any) -> None:
    """Mark every connection disabled: each connected tenant's audit trail records it. Run on
    every disable, so a sweep cut short completes on the next one."""
    disabled_at = integration.data_dict().get("disabledAt") or clock.now_iso()
    for connection in Item.query(integration.pk, Item.sk.startswith("tenant#"), consistent_read=True):
        if connection.data_dict().get("disabled"):
            continue
        seen = _seen_by_tenant(integration, disabled=True, disabledAt=disabled_at)
        connection.update(
            actions=[Item.data.set(seen), Item.updatedAt.set(clock.now_iso()), stamp, Item.version.add(1)],
            condition=Item.pk.exists(),
        )


def disable(integration_id: str) -> dict[str, Any]:
    """Disable the integration for good and every key that carries its id, in every tenant.
    The keys answer 401 at once here and within the key cache (10 s) on other instances.
    Disabling again changes nothing but sweeps the keys once more."""
    item = _get_item(integration_id)
    stamp = Item.changedBy.set(_stamp("pmctl.integrations.disable"))
    if not item.data_dict().get("disabled"):
        now = clock.now_iso()
        item.update(
            actions=[
                Item.data["disabled"].set(True),
                Item.data["disabledAt"].set(now),
                Item.updatedAt.set(now),
                stamp,
                Item.version.add(1),
            ],
            condition=Item.pk.exists(),
        )
    _disable_connections(_get_item(integration_id), stamp)
    targets: dict[str, str] = {k["keyId"]: k["tenantId"] for k in issued_keys(integration_id)}
    for connection in connected_tenants(integration_id):
        for key_id in _keys_carrying(integration_id, connection["tenantId"]):
            targets.setdefault(key_id, connection["tenantId"])
    disabled = []
    for key_id, tenant_id in sorted(targets.items()):
        try:
            before = get_item(
                _ctx(tenant_id, integration_id, [], "pmctl.integrations.disable"), keys.API_KEY, key_id, path="apiKey"
            )
        except NotFound:
            continue
        if before.data_dict().get("disabled"):
            continue
        keys.disable_key(_ctx(tenant_id, integration_id, [], "pmctl.integrations.disable"), key_id)
        disabled.append(key_id)
    return {"integration": wire(_get_item(integration_id)), "keysDisabled": disabled}
