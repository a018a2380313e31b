"""One-time codes mailed to an address: a sign-up's confirmation (store/signups.py) and a
console sign-in (store/sessions.py). Only a code's hash is stored, bound to its address; a
code counts while it is younger than its lifetime and has tries left, and each wrong try is
counted atomically (concurrent guesses count each)."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import re
import secrets

from pynamodb.exceptions import PutError, UpdateError
from pynamodb.expressions.condition import Condition

from chalicelib import clock, config
from chalicelib.addresses import normalised
from chalicelib.store.model import Item

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


def count_wrong(item: Item) -> int | None:
    """Count a wrong try; the tries counted now, None when the item is gone meanwhile (used,
    replaced, expired): nothing left to count against."""
    try:
        item.update(actions=[Item.data["attempts"].add(1)], condition=Item.pk.exists())
    except UpdateError:
        return None
    return int(item.data_dict().get("attempts") or 0)
