"""What the OAuth authorization server keeps (issue 35): registered clients, authorization requests
waiting for a person's consent, authorization codes and the refresh tokens of grants.

  client       PK = oauthclient#<clientId>          SK = "client"    RFC 7591 metadata (TTL: unused 30 days)
  request      PK = oauthrequest#<requestId>        SK = "request"   the authorize call's parameters (TTL)
  code         PK = oauthcode#<sha256 of the code>  SK = "code"      what the consent granted (TTL; `spent` once used)
  refresh      PK = oauthrefresh#<sha256>           SK = "refresh"   its grant; `spent` once rotated (TTL)
  grant        PK = <tenant>#<grantId>              SK = "oauthgrant" client, agent, scopes, who approved, the
                                                                    live access key; `revokedAt` once revoked;
                                                                    listed (gsi1) from its code's redemption until
                                                                    it is revoked; unredeemed, gone with its code (TTL)

Codes and refresh tokens are stored as hashes only. A code is redeemed by marking it spent under the
condition that it was not, so two redemptions cannot both win, and one presented again is known. A
refresh token is rotated by marking it spent under the condition that it was not, in the transaction
that writes its successor;
presenting a spent one again answers "reused" (the caller revokes the grant: RFC 9700, 4.14.2)."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any, Literal

from pynamodb.exceptions import UpdateError

from chalicelib import clock, ids
from chalicelib.store.entity_reads import fetch_many
from chalicelib.store.model import Item, Transaction, TransactionCancelled

CLIENT_SK, REQUEST_SK, CODE_SK, REFRESH_SK = "client", "request", "code", "refresh"
CLIENT_UNUSED_DAYS = 30  # a registered client no one used for this long is forgotten
REQUEST_MINUTES = 30  # time to sign in and consent
CODE_MINUTES = 5  # RFC 6749 4.1.2: short-lived, ten minutes at most
REFRESH_DAYS = 30  # a grant not refreshed for this long must be approved again
CLIENT_TOUCH_HOURS = 24  # a client's last use is written at most this often


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _in(**delta: float) -> dt.datetime:
    return clock.now() + dt.timedelta(**delta)


def _live(pk: str, sk: str) -> Item | None:
    """The item, unless it is missing or past its expiry (DynamoDB's TTL removes an item a day or
    two after it, so every read checks)."""
    try:
        item = Item.get(pk, sk, consistent_read=True)
    except Item.DoesNotExist:
        return None
    return item if item.expiresAt is not None and item.expiresAt > clock.now() else None


# --- clients ---------------------------------------------------------------------------------


def register_client(client_id: str, metadata: dict[str, Any]) -> None:
    """A new client of dynamic registration (RFC 7591) under the id the registration handed out;
    the metadata is kept as given (checked by the caller)."""
    now = clock.now_iso()
    Item(
        f"oauthclient#{client_id}",
        CLIENT_SK,
        type="oauthClient",
        id=client_id,
        data={**metadata, "client_id": client_id, "lastUsedAt": now},
        createdAt=now,
        updatedAt=now,
        expiresAt=_in(days=CLIENT_UNUSED_DAYS),
    ).save(condition=Item.pk.does_not_exist())


def client(client_id: str) -> dict[str, Any] | None:
    """A registered client's metadata (None when unknown or forgotten); its use keeps it."""
    item = _live(f"oauthclient#{client_id}", CLIENT_SK)
    if item is None:
        return None
    data = item.data_dict()
    if str(data.get("lastUsedAt", "")) < clock.iso(_in(hours=-CLIENT_TOUCH_HOURS)):
        last_used: Any = Item.data["lastUsedAt"]  # type: ignore[index]
        item.update(actions=[last_used.set(clock.now_iso()), Item.expiresAt.set(_in(days=CLIENT_UNUSED_DAYS))])
    return data


# --- authorization requests (authorize -> consent) --------------------------------------------


def save_request(client_id: str, params: dict[str, Any]) -> str:
    """The authorize call's validated parameters, until a person consents or denies; its id."""
    request_id = ids.new_id("oar")
    Item(
        f"oauthrequest#{request_id}",
        REQUEST_SK,
        type="oauthRequest",
        id=request_id,
        data={**params, "client_id": client_id},
        createdAt=clock.now_iso(),
        expiresAt=_in(minutes=REQUEST_MINUTES),
    ).save()
    return request_id


def request(request_id: str) -> dict[str, Any] | None:
    item = _live(f"oauthrequest#{request_id}", REQUEST_SK)
    return item.data_dict() if item is not None else None


def end_request(request_id: str) -> None:
    """Consented or denied: the request cannot be answered twice."""
    Item(f"oauthrequest#{request_id}", REQUEST_SK).delete()


# --- codes -----------------------------------------------------------------------------------


def mint_code(granted: dict[str, Any]) -> str:
    """A code for what a person granted (tenant, scopes, the request's PKCE challenge, redirect
    URI and resource); only its hash is kept. Redeemed, it stays `spent` until it expires, so a
    second presentation is known as a replay (RFC 6749, 4.1.2)."""
    code = secrets.token_urlsafe(32)
    Item(
        f"oauthcode#{_hash(code)}",
        CODE_SK,
        type="oauthCode",
        data={**granted, "spent": False},
        createdAt=clock.now_iso(),
        expiresAt=_in(minutes=CODE_MINUTES),
    ).save()
    return code


def peek_code(code: str) -> dict[str, Any] | None:
    """What a live code grants (`spent` once redeemed), without spending it (the token request is
    checked first)."""
    item = _live(f"oauthcode#{_hash(code)}", CODE_SK)
    return item.data_dict() if item is not None else None


def redeem_code(code: str) -> bool:
    """Spend the code; False when it was spent already (by a concurrent or earlier redemption)."""
    unspent: Any = Item.data["spent"] == False  # type: ignore[index]  # noqa: E712 - a condition, not a test
    try:
        Item(f"oauthcode#{_hash(code)}", CODE_SK).update(
            actions=[Item.data["spent"].set(True)],  # type: ignore[index]
            condition=Item.pk.exists() & unspent,
        )
    except UpdateError as err:
        if getattr(err, "cause_response_code", None) == "ConditionalCheckFailedException":
            return False
        raise
    return True


# --- refresh tokens --------------------------------------------------------------------------


@dataclass(frozen=True)
class Refresh:
    tenant_id: str
    grant_id: str
    data: dict[str, Any]


def new_refresh(tenant_id: str, grant_id: str, facts: dict[str, Any]) -> str:
    """A grant's first refresh token (its facts: client, scopes, resource); only the hash is kept."""
    token = secrets.token_urlsafe(32)
    _refresh_item(token, tenant_id, grant_id, facts).save()
    return token


def _refresh_item(token: str, tenant_id: str, grant_id: str, facts: dict[str, Any]) -> Item:
    return Item(
        f"oauthrefresh#{_hash(token)}",
        REFRESH_SK,
        type="oauthRefresh",
        tenantId=tenant_id,
        id=grant_id,
        data={**facts, "spent": False},
        createdAt=clock.now_iso(),
        expiresAt=_in(days=REFRESH_DAYS),
    )


def refresh(token: str) -> Refresh | None:
    """The grant a refresh token belongs to (spent or not: `data["spent"]`); None when unknown."""
    item = _live(f"oauthrefresh#{_hash(token)}", REFRESH_SK)
    return Refresh(str(item.tenantId), str(item.id), item.data_dict()) if item is not None else None


Rotation = Literal["rotated", "reused"]


def rotate(token: str, found: Refresh) -> tuple[Rotation, str | None]:
    """Spend a refresh token and hand out its successor (same grant and facts) in one transaction;
    ("reused", None) when it was spent already: a replay, after which the grant must be revoked.
    The grant's live access key is the grant record's, not the token's (set_access_key)."""
    successor = secrets.token_urlsafe(32)
    unspent: Any = Item.data["spent"] == False  # type: ignore[index]  # noqa: E712 - a condition, not a test
    try:
        with Transaction() as tx:
            tx.update(
                Item(f"oauthrefresh#{_hash(token)}", REFRESH_SK),
                actions=[Item.data["spent"].set(True)],  # type: ignore[index]
                condition=unspent,
                label="spent",
            )
            tx.save(_refresh_item(successor, found.tenant_id, found.grant_id, found.data), label="successor")
    except TransactionCancelled as cancelled:
        if "spent" in cancelled.failed:
            return "reused", None
        raise
    return "rotated", successor


# --- grants ----------------------------------------------------------------------------------

GRANT_SK, GRANT_TYPE, GRANT_ID_PREFIX = "oauthgrant", "oauthGrant", "grt"


def _grant_key(tenant_id: str, grant_id: str) -> tuple[str, str]:
    return f"{tenant_id}#{grant_id}", GRANT_SK


def _grants_pk(tenant_id: str) -> str:
    return f"{tenant_id}#oauthgrants"


def create_grant(tenant_id: str, facts: dict[str, Any], changed_by: dict[str, Any]) -> str:
    """A person's approval of a client (its client id and name, agent name, scopes, resource, who
    approved); its id. The approval is in the audit trail (store/audit_records.py), the approving
    person (`changed_by`) its actor. Until its code is redeemed (set_access_key) it is listed
    nowhere and expires with the code: an approval the client never took up does not linger."""
    grant_id = ids.new_id(GRANT_ID_PREFIX)
    now = clock.now_iso()
    Item(
        *_grant_key(tenant_id, grant_id),
        type=GRANT_TYPE,
        tenantId=tenant_id,
        id=grant_id,
        data=facts,
        createdAt=now,
        updatedAt=now,
        changedBy=changed_by,
        expiresAt=_in(minutes=CODE_MINUTES + 1),
    ).save(condition=Item.pk.does_not_exist())
    return grant_id


def grant(tenant_id: str, grant_id: str) -> dict[str, Any] | None:
    """The grant, unless missing or an unredeemed one past its code's life."""
    try:
        item = Item.get(*_grant_key(tenant_id, grant_id), consistent_read=True)
    except Item.DoesNotExist:
        return None
    if item.expiresAt is not None and item.expiresAt <= clock.now():
        return None
    return {**item.data_dict(), "id": grant_id, "createdAt": item.createdAt}


def _update_live(tenant_id: str, grant_id: str, actions: list[Any]) -> Item | None:
    """Apply `actions` to the grant while it is live (not revoked); the item, None when it was not."""
    data: Any = Item.data
    item = Item(*_grant_key(tenant_id, grant_id))
    try:
        item.update(actions=actions, condition=Item.pk.exists() & data["revokedAt"].does_not_exist())
    except UpdateError as err:
        if getattr(err, "cause_response_code", None) == "ConditionalCheckFailedException":
            return None
        raise
    return item


def set_access_key(tenant_id: str, grant_id: str, key_id: str) -> bool:
    """The grant's live access key is now `key_id`; False when the grant was revoked meanwhile.
    The first one (its code redeemed) lists the grant and ends its expiry. Bookkeeping, not a change
    of the grant: the audit leaves these fields out (events/changes.py), the key's creation is a
    record of its own."""
    data: Any = Item.data
    actions = [
        data["accessKeyId"].set(key_id),
        data["lastUsedAt"].set(clock.now_iso()),
        Item.gsi1pk.set(_grants_pk(tenant_id)),
        Item.gsi1sk.set(grant_id),
        Item.expiresAt.remove(),
    ]
    return _update_live(tenant_id, grant_id, actions) is not None


def revoke_grant(tenant_id: str, grant_id: str, changed_by: dict[str, Any], reason: str) -> dict[str, Any] | None:
    """Mark the grant revoked (once; an audited change by `changed_by`) and take it off the list of
    live grants; its facts (the access key to disable), None if it was not live."""
    data: Any = Item.data
    now = clock.now_iso()
    actions = [
        data["revokedAt"].set(now),
        data["revokedReason"].set(reason),
        Item.updatedAt.set(now),
        Item.changedBy.set(changed_by),
        Item.gsi1pk.remove(),
        Item.gsi1sk.remove(),
    ]
    revoked = _update_live(tenant_id, grant_id, actions)
    return revoked.data_dict() if revoked is not None else None


def narrow_grant(tenant_id: str, grant_id: str, scopes: list[str], changed_by: dict[str, Any]) -> bool:
    """The live grant holds only `scopes` from now on (its approver's role allows no more: an
    audited change by `changed_by`); False when it was revoked meanwhile."""
    data: Any = Item.data
    actions = [data["scopes"].set(scopes), Item.updatedAt.set(clock.now_iso()), Item.changedBy.set(changed_by)]
    return _update_live(tenant_id, grant_id, actions) is not None


def _live_ones(items: list[Item]) -> list[dict[str, Any]]:
    # a grant revoked before the index lost revoked ones is still listed there
    return [
        {**item.data_dict(), "id": item.id, "createdAt": item.createdAt}
        for item in items
        if item.id and not item.data_dict().get("revokedAt")
    ]


def _listed_keys(tenant_id: str) -> list[tuple[str, str]]:
    """The live grants' keys, newest first: the index's every page (a tenant's live grants are
    bounded: config.MAX_GRANTS_PER_MEMBER per member)."""
    return [(hit.pk, GRANT_SK) for hit in Item.gsi1.query(_grants_pk(tenant_id), scan_index_forward=False)]


def live_grants(tenant_id: str) -> list[dict[str, Any]]:
    """Every live grant of the tenant, newest first (a BatchGetItem per 100)."""
    return _live_ones(fetch_many(_listed_keys(tenant_id)))


def grant_page(tenant_id: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
    """One page of the live grants, newest first, and how many there are (the console's list)."""
    keys = _listed_keys(tenant_id)
    return _live_ones(fetch_many(keys[offset : offset + limit])), len(keys)


def grants_approved_by(tenant_id: str, member_id: str) -> list[dict[str, Any]]:
    """The live grants a member approved."""
    return [g for g in live_grants(tenant_id) if str((g.get("approvedBy") or {}).get("keyId") or "") == member_id]
