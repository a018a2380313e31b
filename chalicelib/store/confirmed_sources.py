"""Which source addresses have proved an e-mail address: a request from there redeemed a code
mailed to it (a console sign-in, a sign-up's confirmation). The per-address mail limit lets such
a source through when requests from elsewhere have filled it (throttle.take_for_address), so a
stranger cannot lock the owner of an address out from the owner's usual place.

One item per (address, source), both stored as hashes only, kept KEEP_DAYS after the last proof
(the table's TTL removes it; every read checks the age itself, as TTL deletes late)."""

from __future__ import annotations

import datetime as dt
import hashlib

from chalicelib import clock
from chalicelib.addresses import address_hash
from chalicelib.store.model import Item

TYPE = "confirmedSource"
KEEP_DAYS = 90


def _keys(email: str, source: str) -> tuple[str, str]:
    return f"confirmed#{address_hash(email)}", hashlib.sha256(source.encode()).hexdigest()[:32]


def remember(email: str, source: str) -> None:
    """`source` redeemed a code mailed to `email` just now."""
    moment = clock.now()
    pk, sk = _keys(email, source)
    Item(pk, sk, type=TYPE, createdAt=clock.iso(moment), expiresAt=moment + dt.timedelta(days=KEEP_DAYS)).save()


def confirmed(email: str, source: str) -> bool:
    """Whether `source` proved `email` within the last KEEP_DAYS."""
    try:
        item = Item.get(*_keys(email, source))
    except Item.DoesNotExist:
        return False
    return (item.createdAt or "") >= clock.iso(clock.now() - dt.timedelta(days=KEEP_DAYS))
