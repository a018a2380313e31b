"""Sign-ups waiting for their address to be confirmed, and one-time codes.

A sign-up is a pending item (PK signup#<sha256 of the address>, SK "pending") holding the
form's fields and the hash of the code mailed to the address; nothing of a tenant exists
yet. The code confirms it once, within SIGNUP_CODE_MINUTES and CODE_ATTEMPTS tries: the
tenant, its first key and its owner are written in one transaction with the pending item's
delete (conditioned on the code's hash, so two confirmations cannot both win).

An address already in use gets a pending item too, without a code (nothing can confirm it),
so a sign-up with a used address costs and answers exactly what a new one does."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets
from typing import Any

from pynamodb.exceptions import UpdateError

from chalicelib import clock, config
from chalicelib import error_codes as codes
from chalicelib.addresses import normalised
from chalicelib.errors import ApiError, Invalid
from chalicelib.store import keys, members
from chalicelib.store.model import Item, Transaction

PENDING_SK = "pending"
# No 0/O, 1/I/L: a code is read from a mail and typed. 31 symbols, 8 of them: about 2^40.
_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


# A code as it appears in a mail's subject or text.
CODE_IN_TEXT = re.compile(r"\b([A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4})\b")


def code_in(text: str) -> str | None:
    found = CODE_IN_TEXT.search(text)
    return found.group(1) if found else None


def new_code() -> str:
    raw = "".join(secrets.choice(_ALPHABET) for _ in range(CODE_LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def normalise_code(code: str) -> str:
    """What a person may type: any case, with or without the dash and spaces."""
    raw = "".join(ch for ch in code.upper() if ch.isalnum())
    return f"{raw[:4]}-{raw[4:]}" if len(raw) == CODE_LENGTH else raw


def code_hash(subject: str, code: str) -> str:
    """Bound to its subject (the address), so one hash cannot be tried against another's."""
    return hashlib.sha256(f"{normalised(subject)}\n{normalise_code(code)}".encode()).hexdigest()


def _pk(email: str) -> str:
    return keys.signup_guard_pk(email)


def start(company_name: str, email: str, agent_name: str, owner_name: str) -> str | None:
    """Keeps the sign-up until it is confirmed and answers the code to mail, or None when the
    address belongs to a tenant already (the mail then says so instead). A second sign-up of
    the same address replaces the first: its code is the one that counts."""
    taken = keys.address_in_use(email)
    code = None if taken else new_code()
    moment = clock.now()
    Item(
        _pk(email),
        PENDING_SK,
        type="pendingSignup",
        data={
            "companyName": company_name,
            "email": email,
            "agentName": agent_name,
            "ownerName": owner_name,
            "codeHash": code_hash(email, code) if code else None,
            "attempts": 0,
        },
        createdAt=clock.iso(moment),
        expiresAt=moment + dt.timedelta(minutes=config.SIGNUP_CODE_MINUTES + 5),
    ).save()
    return code


def _refused() -> ApiError:
    return Invalid(
        "The code is wrong or no longer valid (codes last "
        f"{config.SIGNUP_CODE_MINUTES} minutes and allow {config.CODE_ATTEMPTS} tries). Sign up again for a new one.",
        code=codes.CONFIRMATION_FAILED,
    )


def confirm(email: str, code: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Tenant, first key and its secret, for the right code; else 400 confirmation_failed."""
    try:
        pending = Item.get(_pk(email), PENDING_SK, consistent_read=True)
    except Item.DoesNotExist:
        raise _refused() from None
    data = pending.data_dict()
    fresh = (pending.createdAt or "") >= clock.iso(clock.now() - dt.timedelta(minutes=config.SIGNUP_CODE_MINUTES))
    expected = data.get("codeHash")
    if not (fresh and expected) or int(data.get("attempts") or 0) >= config.CODE_ATTEMPTS:
        raise _refused()
    given = code_hash(email, code)
    if not hmac.compare_digest(given, expected):
        _count_failure(pending)
        raise _refused()

    def consume(tx: Transaction, changed_by: dict[str, Any]) -> None:
        tx.delete(pending, condition=Item.data["codeHash"] == expected, label="code")
        members.add_owner(tx, tenant_id, data["email"], data.get("ownerName") or "", changed_by)

    tenant_id = keys.new_tenant_id()
    return keys.create_tenant(
        data["companyName"],
        data["email"],
        data["agentName"],
        dt.timedelta(days=config.TRIAL_DAYS),
        tenant_id=tenant_id,
        also=consume,
        refused_by={"code": _refused},
    )


def _count_failure(pending: Item) -> None:
    """A wrong code counts (atomically: concurrent guesses count each); the last allowed
    wrong one ends the sign-up."""
    try:
        pending.update(actions=[Item.data["attempts"].add(1)], condition=Item.pk.exists())
    except UpdateError:  # gone meanwhile (confirmed, replaced by TTL): nothing left to count against
        return
    if int(pending.data_dict().get("attempts") or 0) >= config.CODE_ATTEMPTS:
        pending.delete()
