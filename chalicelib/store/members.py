"""The people of a tenant who use the console: one item per (e-mail address, tenant), so that
sign-in finds a person's tenants with one Query by address, and a tenant lists its members on
gsi1. The owner who signed up is the first member; owners invite the others, who are members
once they accept (status "invited" until then: no sign-in reaches the company before).

A member's `epoch` counts "sign out everywhere": a session is valid only while it carries the
member's current epoch (store/sessions.py), so one write ends every session of the person."""

from __future__ import annotations

from typing import Any

from pynamodb.exceptions import UpdateError

from chalicelib import clock, ids
from chalicelib import error_codes as codes
from chalicelib.addresses import address_hash
from chalicelib.errors import Conflict, Forbidden
from chalicelib.scopes import ALL_SCOPES, SCOPE_READ
from chalicelib.store.model import Item, Transaction, TransactionCancelled

ROLES = ("owner", "admin", "viewer")
# What each role may do, and so give: the console's pages run with these, a person's OAuth grants hold
# at most these (store/grant_reach.py)
ROLE_SCOPES = {"owner": frozenset(ALL_SCOPES), "admin": frozenset(ALL_SCOPES), "viewer": frozenset({SCOPE_READ})}
TYPE = "member"
ID_PREFIX = "mem"  # a member's id: mem_<ulid> (the audit trail tells its records apart by it)


def _pk(email: str) -> str:
    return f"member#{address_hash(email)}"


def _list_pk(tenant_id: str) -> str:
    return f"{tenant_id}#{TYPE}"


Stamp = dict[str, Any]  # who changes a member (CallContext.stamp()): the audit trail names them


def new_item(
    tenant_id: str, email: str, name: str, role: str, *, status: str, invited_by: str | None, changed_by: Stamp
) -> Item:
    now = clock.now_iso()
    member_id = ids.new_id(ID_PREFIX)
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


def get(email: str, tenant_id: str, *, by_pk: bool = False) -> Item | None:
    """The member, unless removed (`by_pk`: `email` is the item's partition key already)."""
    try:
        item = Item.get(email if by_pk else _pk(email), tenant_id, consistent_read=True)
    except Item.DoesNotExist:
        return None
    return None if item.deletedAt else item


def by_id(tenant_id: str, member_id: str) -> Item | None:
    """The tenant's member of this id, unless removed (a removed member leaves the index): one
    index Query and one GetItem."""
    if not member_id:
        return None
    hits = list(Item.gsi1.query(_list_pk(tenant_id), Item.gsi1sk == member_id, limit=1))
    return get(str(hits[0].pk), tenant_id, by_pk=True) if hits else None


def memberships(email: str) -> list[Item]:
    """Every tenant the address is a member of (a person may serve several companies)."""
    return [item for item in Item.query(_pk(email), limit=20) if not item.deletedAt]


MAX_MEMBERS = 200  # a company's console users; a list of them is one index page and one batch read


def of_tenant(tenant_id: str) -> list[Item]:
    """The tenant's members (the index holds keys only: the items are read in one batch)."""
    keys = [(hit.pk, hit.sk) for hit in Item.gsi1.query(_list_pk(tenant_id), limit=MAX_MEMBERS)]
    return list(Item.batch_get(keys)) if keys else []


ACTIVE, INVITED = "active", "invited"  # a member's status: an invitation is pending until its invitee accepts it


def status(item: Item) -> str:
    return str(item.data_dict().get("status") or ACTIVE)


def active_ones(items: list[Item]) -> list[Item]:
    """The memberships a person may sign in to (ordered as given)."""
    return [item for item in items if status(item) == ACTIVE]


def pending_ones(items: list[Item]) -> list[Item]:
    """The invitations a person has yet to accept or decline."""
    return [item for item in items if status(item) == INVITED]


def invite(tenant_id: str, email: str, name: str, role: str, changed_by: Stamp) -> Item:
    """A new member (or one removed before, invited again), pending until they accept, and at
    most MAX_MEMBERS in a company (its list is one index page)."""
    if len(of_tenant(tenant_id)) >= MAX_MEMBERS:
        raise Conflict(
            f"The company has {MAX_MEMBERS} members and invitations already; remove someone first.",
            code=codes.MEMBER_LIMIT_REACHED,
        )
    item = new_item(tenant_id, email, name, role, status=INVITED, invited_by=changed_by["keyId"], changed_by=changed_by)
    try:
        with Transaction() as tx:
            tx.save(item, condition=Item.pk.does_not_exist() | Item.deletedAt.exists(), label="member")
    except TransactionCancelled as err:
        raise Conflict("This address is a member of the company already.", code=codes.MEMBER_EXISTS) from err
    return item


def _change(item: Item, actions: list[Any], changed_by: Stamp, *, status_is: str | None = None) -> None:
    condition = Item.pk.exists() & Item.deletedAt.does_not_exist()
    if status_is is None:
        item.update(
            actions=[*actions, Item.updatedAt.set(clock.now_iso()), Item.changedBy.set(changed_by)], condition=condition
        )
        return
    try:  # an invitation answered: only while it is still pending (not withdrawn, not answered meanwhile)
        item.update(
            actions=[*actions, Item.updatedAt.set(clock.now_iso()), Item.changedBy.set(changed_by)],
            condition=condition & (Item.data["status"] == status_is),
        )
    except UpdateError as err:
        raise Conflict("The invitation changed meanwhile.", code=codes.WRITE_CONFLICT) from err


def require_active(item: Item) -> None:
    """A session starts only for an active member: an invitation is accepted by its invitee
    (`accept`) before any sign-in reaches it, so no company joins a person unasked."""
    if status(item) != ACTIVE:
        raise Forbidden("The invitation has not been accepted.", code=codes.INVITATION_PENDING)


def accept(item: Item, changed_by: Stamp) -> None:
    """The invitee, signed in with a mailed code, accepts the invitation: they are a member now."""
    _change(item, [Item.data["status"].set(ACTIVE)], changed_by, status_is=INVITED)


def decline(item: Item, changed_by: Stamp) -> None:
    """The invitee declines: the invitation is removed as a removed member is (kept for the audit
    trail, off the company's list)."""
    _change(
        item,
        [Item.deletedAt.set(clock.now_iso()), Item.gsi1pk.remove(), Item.gsi1sk.remove()],
        changed_by,
        status_is=INVITED,
    )


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
