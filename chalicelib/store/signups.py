"""Sign-ups waiting for their address to be confirmed (their codes: store/mailed_codes.py).

A sign-up is a pending item (PK signup#<sha256 of the address>, SK "pending") holding the
form's fields and the hash of the code mailed to the address; nothing of a tenant exists
yet. The code confirms it once, within SIGNUP_CODE_MINUTES and CODE_ATTEMPTS tries: the
tenant, its first key and its owner are written in one transaction with the pending item's
delete (conditioned on the code's hash, so two confirmations cannot both win).

An address already in use gets a pending item too, without a code (nothing can confirm it),
so a sign-up with a used address costs and answers exactly what a new one does. While a code is
live, a repeated sign-up changes nothing and mails nothing: that code still counts."""

from __future__ import annotations

import contextlib
import datetime as dt
from dataclasses import dataclass
from typing import Any

from pynamodb.exceptions import DeleteError, PutError

from chalicelib import clock, config
from chalicelib import error_codes as codes
from chalicelib.errors import ApiError, Invalid
from chalicelib.store import keys, mailed_codes, members
from chalicelib.store.model import Item, Transaction

PENDING_SK = "pending"


def _pk(email: str) -> str:
    return keys.signup_guard_pk(email)


@dataclass(frozen=True)
class Started:
    """What a sign-up request is to mail: `code`, or (`taken`) that the address has an account
    already, or neither, while the code mailed before is live."""

    code: str | None = None
    taken: bool = False


def start(company_name: str, email: str, agent_name: str, owner_name: str) -> Started:
    """Keeps the sign-up until it is confirmed. While the code of an earlier sign-up of the
    address is live, nothing changes: that code, and the company it confirms, still count
    (mailed_codes.replaceable), so no one can void or rewrite the sign-up a person has just been
    mailed. An address that belongs to a tenant already gets a pending item too, without a
    code (nothing can confirm it), so its sign-up costs and answers what a new one does."""
    taken = keys.address_in_use(email)
    code = None if taken else mailed_codes.new_code()
    moment = clock.now()
    item = Item(
        _pk(email),
        PENDING_SK,
        type="pendingSignup",
        data={
            "companyName": company_name,
            "email": email,
            "agentName": agent_name,
            "ownerName": owner_name,
            "codeHash": mailed_codes.code_hash(email, code) if code else None,
            "attempts": 0,
        },
        createdAt=clock.iso(moment),
        expiresAt=moment + dt.timedelta(minutes=config.SIGNUP_CODE_MINUTES + 5),
    )
    if taken:
        item.save()
        return Started(taken=True)
    try:
        item.save(condition=mailed_codes.replaceable(config.SIGNUP_CODE_MINUTES))
    except PutError as err:
        if not mailed_codes.refused(err):
            raise
        return Started()
    return Started(code=code)


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
    expected = mailed_codes.live_hash(pending, config.SIGNUP_CODE_MINUTES)
    tries = None if expected is None else mailed_codes.take_try(pending, expected)
    if expected is None or tries is None:
        raise _refused()
    if not mailed_codes.matches(expected, email, code):
        if tries >= config.CODE_ATTEMPTS:  # the last allowed wrong one ends the sign-up
            with contextlib.suppress(DeleteError):  # unless a new sign-up replaced it meanwhile
                pending.delete(condition=Item.data["codeHash"] == expected)
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
