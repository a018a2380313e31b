"""The cap on a tenant's live keys: one register item per tenant lists its live keys with their
expiry (`{keyId: expiresAt}`). store/keys.py adds a key to it in the transaction that writes the
key, on the condition that the register holds fewer entries than the cap (DynamoDB's `size()` of
the map), so concurrent creates cannot pass the cap between them (one that overlaps another's
transaction on the register is refused as a transaction conflict, 503 with Retry-After, and
writes nothing); a disable removes the key in its own transaction. An expiry writes nothing, so
expired keys leave the register when the next write finds them. A tenant whose keys predate the
register gets one, counted from its key records, on its first key write."""

from __future__ import annotations

from collections.abc import Callable

from pynamodb.exceptions import PutError
from pynamodb.expressions.condition import size

from chalicelib import clock
from chalicelib.store.model import Item, Transaction

REGISTER_SK = "livekeys"
LABEL = "keycap"  # the transaction's label of the register's condition


def register_pk(tenant_id: str) -> str:
    return f"{tenant_id}#livekeys"


def _is_live(expires_at: str, now: str) -> bool:
    return not expires_at or expires_at > now


def _register(tenant_id: str, count_records: Callable[[], dict[str, str]]) -> dict[str, str]:
    """The register's live keys, the expired ones removed; created from the key records where
    the tenant has none yet."""
    pk = register_pk(tenant_id)
    try:
        item = Item.get(pk, REGISTER_SK, consistent_read=True)
    except Item.DoesNotExist:
        return _create(tenant_id, count_records) or _register(tenant_id, count_records)
    listed: dict[str, str] = dict(item.data_dict().get("keys") or {})
    now = clock.now_iso()
    expired = [key_id for key_id, expires_at in listed.items() if not _is_live(expires_at, now)]
    if expired:
        # an expired key never lives again (no write changes an expiry): removing it is always right
        Item(pk, REGISTER_SK).update(
            actions=[Item.data["keys"][key_id].remove() for key_id in expired], condition=Item.pk.exists()
        )
    return {key_id: expires_at for key_id, expires_at in listed.items() if key_id not in expired}


def _create(tenant_id: str, count_records: Callable[[], dict[str, str]]) -> dict[str, str] | None:
    """The register of a tenant whose keys predate it; None when another request made it first."""
    now = clock.now_iso()
    live = {key_id: expires_at for key_id, expires_at in count_records().items() if _is_live(expires_at, now)}
    try:
        _register_item(tenant_id, live).save(condition=Item.pk.does_not_exist())
    except PutError:
        return None
    return live


def _register_item(tenant_id: str, keys: dict[str, str]) -> Item:
    return Item(
        register_pk(tenant_id),
        REGISTER_SK,
        type="liveKeys",
        tenantId=tenant_id,
        data={"keys": keys},
        createdAt=clock.now_iso(),
    )


def first(tx: Transaction, tenant_id: str, key_id: str, expires_at: str) -> None:
    """A new tenant's register, holding its first key (sign-up). No condition of its own: the
    tenant's item, saved in the same transaction only where it does not exist, guards the id."""
    tx.save(_register_item(tenant_id, {key_id: expires_at}))


def held(tenant_id: str, count_records: Callable[[], dict[str, str]]) -> int:
    """How many live keys the tenant holds, from its register (made first where it has none,
    its expired keys removed). Call it before add or remove."""
    return len(_register(tenant_id, count_records))


def add(tx: Transaction, tenant_id: str, key_id: str, expires_at: str, cap: int) -> None:
    """Adds the key inside `tx`, on the condition that the register holds fewer than `cap`
    (refused under LABEL: another create took the last place since `held`)."""
    tx.update(
        Item(register_pk(tenant_id), REGISTER_SK),
        actions=[Item.data["keys"][key_id].set(expires_at)],
        condition=Item.pk.exists() & (size(Item.data["keys"]) < cap),
        label=LABEL,
    )


def remove(tx: Transaction, tenant_id: str, key_id: str) -> None:
    """Removes the key from the register inside `tx` (a disable; `held` made the register)."""
    tx.update(
        Item(register_pk(tenant_id), REGISTER_SK),
        actions=[Item.data["keys"][key_id].remove()],
        condition=Item.pk.exists(),  # never an item without its type, should the register be gone
    )
