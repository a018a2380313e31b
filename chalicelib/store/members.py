"""The people of a tenant who use the console: one item per (e-mail address, tenant), so that
sign-in finds a person's tenants with one Query by address, and a tenant lists its members on
gsi1. The owner who signed up is the first member; owners invite the others.

A member's `epoch` counts "sign out everywhere": a session is valid only while it carries the
member's current epoch (store/sessions.py), so one write ends every session of the person."""

from __future__ import annotations

import hashlib
from typing import Any

from chalicelib import clock, ids
from chalicelib import error_codes as codes
from chalicelib.errors import Conflict
from chalicelib.store.model import Item, Transaction, TransactionCancelled

ROLES = ("owner", "admin", "viewer")
TYPE = "member"


def email_hash(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def _pk(email: str) -> str:
    return f"member#{email_hash(email)}"


def _list_pk(tenant_id: str) -> str:
    return f"{tenant_id}#{TYPE}"


def new_item(tenant_id: str, email: str, name: str, role: str, *, status: str, invited_by: str | None) -> Item:
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
        gsi1pk=_list_pk(tenant_id),
        gsi1sk=member_id,
    )


def add_owner(tx: Transaction, tenant_id: str, email: str, name: str) -> None:
    """The person who signed up, inside the sign-up's transaction."""
    tx.save(new_item(tenant_id, email, name, "owner", status="active", invited_by=None))


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
    try:
        return Item.get(_pk(email), tenant_id, consistent_read=True)
    except Item.DoesNotExist:
        return None


def memberships(email: str) -> list[Item]:
    """Every tenant the address is a member of (a person may serve several companies)."""
    return list(Item.query(_pk(email), limit=20))


MAX_MEMBERS = 200  # a company's console users; a list of them is one index page and one batch read


def of_tenant(tenant_id: str) -> list[Item]:
    """The tenant's members (the index holds keys only: the items are read in one batch)."""
    keys = [(hit.pk, hit.sk) for hit in Item.gsi1.query(_list_pk(tenant_id), limit=MAX_MEMBERS)]
    return list(Item.batch_get(keys)) if keys else []


def invite(tenant_id: str, email: str, name: str, role: str, invited_by: str) -> Item:
    item = new_item(tenant_id, email, name, role, status="invited", invited_by=invited_by)
    try:
        with Transaction() as tx:
            tx.save(item, condition=Item.pk.does_not_exist(), label="member")
    except TransactionCancelled as err:
        raise Conflict("This address is a member of the company already.", code=codes.MEMBER_EXISTS) from err
    return item


def activate(item: Item) -> None:
    """An invited person signed in for the first time."""
    if item.data_dict().get("status") != "active":
        item.update(actions=[Item.data["status"].set("active"), Item.updatedAt.set(clock.now_iso())])


def set_role(item: Item, role: str) -> None:
    item.update(
        actions=[Item.data["role"].set(role), Item.data["epoch"].add(1), Item.updatedAt.set(clock.now_iso())],
        condition=Item.pk.exists(),
    )


def remove(item: Item) -> None:
    item.delete(condition=Item.pk.exists())


def end_sessions(item: Item) -> None:
    """Sign out everywhere: every session of this member carries the old epoch."""
    item.update(actions=[Item.data["epoch"].add(1), Item.updatedAt.set(clock.now_iso())], condition=Item.pk.exists())
