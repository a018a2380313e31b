"""A webhook's two companion items, beside its entity item in its partition (no read of the
entity returns them, and the stream handler passes them by: their SK is not "entity"):

  secret   PK <tenant>#<webhook id>  SK "secret"   the signing secret and the optional
           Authorization header (shown once, by webhooks.create; never again); after a
           rotation (webhooks.secret.rotate) also the secret it replaced, `previousSecret`,
           which keeps signing beside the new one until `previousSecretUntil` (ISO time)
  health   PK <tenant>#<webhook id>  SK "health"   how its receiver is doing, for the
           delivery worker: the leases of attempts in flight (at most MAX_IN_FLIGHT, each
           with an expiry, so a worker that died frees its lease by itself), when it began
           failing, and until when it rests (events/webhook_health.py decides).

Disabling a webhook (410 Gone, five days of failures) is a write to its entity item, also here;
so are the reads of webhook entities that have no call context: which of a tenant's webhooks
are live (the delivery side, the limit on webhooks) and where a delivery goes."""

from __future__ import annotations

import base64
import secrets
from typing import Any

from pynamodb.exceptions import PutError, UpdateError

from chalicelib import clock
from chalicelib.store.entities import entity_pk, list_pk
from chalicelib.store.model import ENTITY_SK, INDEXES, Item

SECRET_SK = "secret"
HEALTH_SK = "health"
MAX_IN_FLIGHT = 4  # attempts in flight per webhook: lease slots on its health item
WEBHOOK_TYPE = "webhook"  # the entity type's name (resources/webhooks.py declares it)


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def live_webhook_keys(tenant_id: str, *, limit: int | None = None) -> list[str]:
    """Keys (PK) of the tenant's live webhooks (the type's list index), at most `limit`."""
    hits = INDEXES[1].query(list_pk(tenant_id, WEBHOOK_TYPE), attributes_to_get=["PK"], limit=limit)
    return [hit.pk for hit in hits]


def secret_item(tenant_id: str, webhook_id: str, secret: str, authorization: str | None) -> Item:
    """The companion written with the webhook (store.create's `companions`)."""
    data = {"secret": secret, **({"authorizationHeader": authorization} if authorization else {})}
    return Item(
        entity_pk(tenant_id, webhook_id), SECRET_SK, type="webhookSecret", tenantId=tenant_id, id=webhook_id, data=data
    )


def signing_secrets(stored: dict[str, Any]) -> list[str]:
    """The secrets a delivery is signed with now: the current one, and the one it replaced
    while the rotation's overlap lasts (from then on that one signs nothing)."""
    signing = [stored["secret"]]
    previous, until = stored.get("previousSecret"), stored.get("previousSecretUntil")
    if previous and until and clock.now() < clock.parse(until):
        signing.append(previous)
    return signing


def rotate_secret(tenant_id: str, webhook_id: str, new: str, overlap_until: str) -> bool:
    """Make `new` the signing secret; the current one keeps signing until `overlap_until`. A
    secret replaced earlier and still in its overlap stops at once (two secrets sign at most).
    Conditioned on the secret read: False when another rotation came in between (nothing
    written)."""
    try:
        current = secrets_of(tenant_id, webhook_id)["secret"]
    except Item.DoesNotExist:
        return False
    field = Item.data["secret"]
    try:
        Item(entity_pk(tenant_id, webhook_id), SECRET_SK).update(
            actions=[
                field.set(new),
                Item.data["previousSecret"].set(current),
                Item.data["previousSecretUntil"].set(overlap_until),
            ],
            condition=Item.pk.exists() & (field == current),
        )
    except UpdateError as err:
        if err.cause_response_code == "ConditionalCheckFailedException":
            return False
        raise
    return True


def set_authorization(tenant_id: str, webhook_id: str, header: str | None) -> None:
    action = Item.data["authorizationHeader"].set(header) if header else Item.data["authorizationHeader"].remove()
    Item(entity_pk(tenant_id, webhook_id), SECRET_SK).update(actions=[action], condition=Item.pk.exists())


def secrets_of(tenant_id: str, webhook_id: str) -> dict[str, Any]:
    """`secret` and, when set, `authorizationHeader` (and a rotation's `previousSecret` and
    `previousSecretUntil`: signing_secrets() says which secrets sign)."""
    return Item.get(entity_pk(tenant_id, webhook_id), SECRET_SK, consistent_read=True).data_dict()


def delivery_target(tenant_id: str, webhook_id: str) -> dict[str, Any] | None:
    """`url`, `secret`, `signing` (signing_secrets) and, when set, `authorizationHeader` of a live,
    enabled webhook (consistent reads); None otherwise: missing, deleted, disabled, or without its
    secret item."""
    try:
        hook = Item.get(entity_pk(tenant_id, webhook_id), ENTITY_SK, consistent_read=True)
        data = hook.data_dict()
        if hook.deletedAt or not data.get("enabled", True):
            return None
        stored = secrets_of(tenant_id, webhook_id)
        return {"url": data["url"], **stored, "signing": signing_secrets(stored)}
    except Item.DoesNotExist:
        return None


def health(tenant_id: str, webhook_id: str) -> dict[str, Any]:
    """The health facts; the item is made on first use (its map must exist to be updated)."""
    try:
        return Item.get(entity_pk(tenant_id, webhook_id), HEALTH_SK, consistent_read=True).data_dict()
    except Item.DoesNotExist:
        pass
    try:
        _health_item(tenant_id, webhook_id).save(condition=Item.pk.does_not_exist())
    except PutError as err:
        if err.cause_response_code != "ConditionalCheckFailedException":
            raise
    return {}


def _health_item(tenant_id: str, webhook_id: str) -> Item:
    return Item(
        entity_pk(tenant_id, webhook_id), HEALTH_SK, type="webhookHealth", tenantId=tenant_id, id=webhook_id, data={}
    )


def lease_slot(slot: int) -> str:
    return f"lease{slot}"


def claim_lease(tenant_id: str, webhook_id: str, slot: int, now: float, until: float) -> dict[str, Any] | None:
    """Take lease `slot` until `until` (epoch seconds) if it is free (never taken, or run out)
    and the webhook does not rest; answer the health facts after the claim, or None if it was
    refused (the slot is held, the webhook rests, or its health item is not made yet)."""
    field, rest = Item.data[lease_slot(slot)], Item.data["restUntil"]
    item = _health_item(tenant_id, webhook_id)
    try:
        item.update(
            actions=[field.set(until)],
            condition=Item.pk.exists()
            & (field.does_not_exist() | (field < now))
            & (rest.does_not_exist() | (rest < now)),
        )
    except UpdateError as err:
        if err.cause_response_code == "ConditionalCheckFailedException":
            return None
        raise
    return item.data_dict()


def record(
    tenant_id: str,
    webhook_id: str,
    *,
    release: int | None,
    set_fields: dict[str, Any],
    remove_fields: tuple[str, ...] = (),
    keep_first: dict[str, Any] | None = None,
) -> None:
    """Give back a lease and note how the receiver did, in one write (the item exists: health()
    made it before the lease was claimed). `keep_first` fields are set only where unset."""
    actions: list[Any] = [Item.data[k].set(v) for k, v in set_fields.items()]
    actions += [Item.data[k].set(Item.data[k] | v) for k, v in (keep_first or {}).items()]
    actions += [
        Item.data[k].remove() for k in (*remove_fields, *([lease_slot(release)] if release is not None else []))
    ]
    if actions:
        _health_item(tenant_id, webhook_id).update(actions=actions, condition=Item.pk.exists())


def disable(tenant_id: str, webhook_id: str, reason: str) -> None:
    """Stop a webhook's deliveries and say why (the tenant sees it on webhooks.show; the change
    reaches the stream like any other, so subscribers' caches drop it)."""
    hook = Item(entity_pk(tenant_id, webhook_id), ENTITY_SK)
    actions = [
        Item.data["enabled"].set(False),
        Item.data["disabledReason"].set(reason),
        Item.data["disabledAt"].set(clock.now_iso()),
        Item.version.add(1),
    ]
    try:
        hook.update(actions=actions, condition=Item.pk.exists())
    except UpdateError as err:
        if err.cause_response_code != "ConditionalCheckFailedException":
            raise
        # the webhook is gone: nothing to disable
