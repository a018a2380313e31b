"""Identifiers: a short type prefix and a ULID (time-ordered, so lists sort by creation).

The prefix tells the entity type from the id alone, so a read by id is one GetItem, and
an alias can never be mistaken for an id (aliases may not take this shape)."""

from __future__ import annotations

import os
import re
import time

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ID_PATTERN = re.compile(r"^([a-z]{2,5})_([0-9A-HJKMNP-TV-Z]{26})$")


def ulid() -> str:
    """48 bits of milliseconds and 80 random bits, Crockford base32 (26 characters)."""
    return ulid_from(int(time.time() * 1000), int.from_bytes(os.urandom(10), "big"))


def ulid_from(millis: int, rest: int) -> str:
    """The ULID of a given millisecond and 80-bit remainder."""
    value = (millis << 80) | (rest & ((1 << 80) - 1))
    chars = []
    for _ in range(26):
        chars.append(_CROCKFORD[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def new_id(prefix: str) -> str:
    return f"{prefix}_{ulid()}"


def pattern_of(prefix: str) -> str:
    """The pattern of the ids of one prefix (a schema's check of an id argument)."""
    return ID_PATTERN.pattern.replace("([a-z]{2,5})", prefix, 1)


def prefix_of(value: str) -> str | None:
    match = ID_PATTERN.match(value)
    return match.group(1) if match else None


def looks_like_id(value: str) -> bool:
    return ID_PATTERN.match(value) is not None
