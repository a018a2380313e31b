"""One-time codes mailed to an address: a sign-up's confirmation (store/signups.py) and a
console sign-in (store/sessions.py). Only a code's hash is stored, bound to its address; a
code counts while it is younger than its lifetime and has tries left. Every try is counted
before its code is compared (`take_try`, a conditional add): of any number of concurrent
guesses, at most config.CODE_ATTEMPTS are ever compared."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets

from pynamodb.exceptions import PutError, UpdateError
from pynamodb.expressions.condition import Condition

from chalicelib import clock, config
from chalicelib.addresses import normalised
from chalicelib.codeformat import ALPHABET, CODE_IN_TEXT, CODE_LENGTH
from chalicelib.store.model import Item


def code_in(text: str) -> str | None:
    found = CODE_IN_TEXT.search(text)
    return found.group(1) if found else None


def new_code() -> str:
    raw = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def normalise_code(code: str) -> str:
    """What a person may type: any case, with or without the dash and spaces."""
    raw = "".join(ch for ch in code.upper() if ch.isalnum())
    return f"{raw[:4]}-{raw[4:]}" if len(raw) == CODE_LENGTH else raw


def code_hash(subject: str, code: str) -> str:
    """Bound to its subject (the address), so one hash cannot be tried against another's."""
    return hashlib.sha256(f"{normalised(subject)}\n{normalise_code(code)}".encode()).hexdigest()


def live_hash(item: Item, minutes: int) -> str | None:
    """The hash of the item's code while the code counts: younger than `minutes`, with tries left."""
    data = item.data_dict()
    fresh = (item.createdAt or "") >= clock.iso(clock.now() - dt.timedelta(minutes=minutes))
    if not fresh or int(data.get("attempts") or 0) >= config.CODE_ATTEMPTS:
        return None
    return data.get("codeHash") or None


def replaceable(minutes: int) -> Condition:
    """The condition under which a new code may take the place of an item's code: there is none,
    or it no longer counts (older than `minutes`, or out of tries). A live code is never replaced:
    a repeated request would void the code just mailed (anyone can ask for one), and only its
    hash is kept, so it cannot be mailed again either; the person uses the mail they have."""
    cutoff = clock.iso(clock.now() - dt.timedelta(minutes=minutes))
    return Item.pk.does_not_exist() | (Item.createdAt < cutoff) | (Item.data["attempts"] >= config.CODE_ATTEMPTS)


def refused(err: PutError) -> bool:
    """Whether a save failed on its condition (a live code is there), not on the table."""
    return getattr(err, "cause_response_code", None) == "ConditionalCheckFailedException"


def matches(expected: str, subject: str, code: str) -> bool:
    return hmac.compare_digest(code_hash(subject, code), expected)


def take_try(item: Item, expected: str) -> int | None:
    """Spends one try of the code whose hash is `expected`, before it is compared: the tries
    spent now, or None when none is left (spent by other requests, or the code used, replaced or
    gone meanwhile), and then the typed code must not be compared at all."""
    try:
        item.update(
            actions=[Item.data["attempts"].add(1)],
            condition=Item.pk.exists()
            & (Item.data["codeHash"] == expected)
            & (Item.data["attempts"] < config.CODE_ATTEMPTS),
        )
    except UpdateError:
        return None
    return int(item.data_dict().get("attempts") or 0)
