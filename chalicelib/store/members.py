"""The people of a tenant who use the console: one item per (e-mail address, tenant), so that
sign-in finds a person's tenants with one Query by address, and a tenant lists its members on
gsi1. The owner who signed up is the first member; owners invite the others.

A member's `epoch` counts "sign out everywhere": a session is valid only while it carries the
member's current epoch (store/sessions.py), so one write ends every session of the person."""

from __future__ import annotations

from typing import Any

from chalicelib import clock, ids
from chalicelib import error_codes as codes
from chalicelib.addresses import address_hash
from chalicelib.errors import Conflict
from chalicelib.store.model import Item, Transaction, TransactionCancelled

ROLES = ("owner", "admin", "viewer")
TYPE = "member"


def _pk(email: str) -> str:
    return f"member#{address_hash(email)}"


def _list_pk(tenant_id: str) -> str:
    return f"{tenant_id}#{TYPE}"


Stamp = dict[str, Any]  # who changes a member (CallContext.stamp()): the audit trail names them


def new_item(
    tenant_id: str, email: str, name: str, role: str, *, status: str, invited_by: str | None, changed_by: Stamp
) -> Item:
    now = clock.now_iso()
    member_id = ids.new_id("mem")
    return Item(
        _pk(email),
        tenant_id,
        type=TYPE,
        tenantId=tenant_id,
        id=member_id,
        data={"email": email.strip(), "name": name, "role": role, "status": status, "epoch": 0}
        | ({"invitedBy": invited_by} if invited_by else {}),
        createdAt=now,
        updatedAt=now,
        changedBy=changed_by,
        gsi1pk=_list_pk(tenant_id),
        gsi1sk=member_id,
    )


def add_owner(tx: Transaction, tenant_id: str, email: str, name: str, changed_by: Stamp) -> None:
    """The person who signed up, inside the sign-up's transaction."""
    tx.save(new_item(tenant_id, email, name, "owner", status="active", invited_by=None, changed_by=changed_by))


def wire(item: Item) -> dict[str, Any]:
    data = item.data_dict()
    return {
        "id": item.id,
        "email": data["email"],
        "name": data.get("name") or "",
        "role": data["role"],
        "status": data.get("status", "active"),
        "createdAt": item.createdAt,
    }


def get(email: str, tenant_id: str) -> Item | None:
    """The member, unless removed."""
    try:
        item = Item.get(_pk(email), tenant_id, consistent_read=True)
    except Item.DoesNotExist:
        return None
    return None if item.deletedAt else item


def memberships(email: str) -> list[Item]:
    """Every tenant the address is a member of (a person may serve several companies)."""
    return [item for item in Item.query(_pk(email), limit=20) if not item.deletedAt]


MAX_MEMBERS = 200  # a company's console users; a list of them is one index page and one batch read


def of_tenant(tenant_id: str) -> list[Item]:
    """The tenant's members (the index holds keys only: the items are read in one batch)."""
    keys = [(hit.pk, hit.sk) for hit in Item.gsi1.query(_list_pk(tenant_id), limit=MAX_MEMBERS)]
    return list(Item.batch_get(keys)) if keys else []


def invite(tenant_id: str, email: str, name: str, role: str, changed_by: Stamp) -> Item:
    """A new member (or one removed before, invited again)."""
    item = new_item(
        tenant_id, email, name, role, status="invited", invited_by=changed_by["keyId"], changed_by=changed_by
    )
    try:
        with Transaction() as tx:
            tx.save(item, condition=Item.pk.does_not_exist() | Item.deletedAt.exists(), label="member")
    except TransactionCancelled as err:
        raise Conflict("This address is a member of the company already.", code=codes.MEMBER_EXISTS) from err
    return item


def _change(item: Item, actions: list[Any], changed_by: Stamp) -> None:
    item.update(
        actions=[*actions, Item.updatedAt.set(clock.now_iso()), Item.changedBy.set(changed_by)],
        condition=Item.pk.exists() & Item.deletedAt.does_not_exist(),
    )


def activate(item: Item, changed_by: Stamp) -> None:
    """An invited person signed in for the first time."""
    if item.data_dict().get("status") != "active":
        _change(item, [Item.data["status"].set("active")], changed_by)


def set_role(item: Item, role: str, changed_by: Stamp) -> None:
    """A new role; the epoch rises, so the person's sessions end and the next carries the role."""
    _change(item, [Item.data["role"].set(role), Item.data["epoch"].add(1)], changed_by)


def remove(item: Item, changed_by: Stamp) -> None:
    """Out of the team: kept as a removed record (the audit trail names who removed whom), off the
    tenant's list; its sessions find no member any more and end."""
    _change(item, [Item.deletedAt.set(clock.now_iso()), Item.gsi1pk.remove(), Item.gsi1sk.remove()], changed_by)


def end_sessions(item: Item, changed_by: Stamp) -> None:
    """Sign out everywhere: every session of this member carries the old epoch."""
    _change(item, [Item.data["epoch"].add(1)], changed_by)
