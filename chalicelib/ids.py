"""Identifiers: a short type prefix and a ULID (time-ordered, so lists sort by creation).

The prefix tells the entity type from the id alone, so a read by id is one GetItem, and
an alias can never be mistaken for an id (aliases may not take this shape)."""

from __future__ import annotations

import os
import re
import threading
import time

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ID_PATTERN = re.compile(r"^([a-z]{2,5})_([0-9A-HJKMNP-TV-Z]{26})$")


_RANDOM_SPAN = 1 << 80
_last = [0, 0]  # the millisecond and the 80-bit remainder of this process's last ULID
_last_lock = threading.Lock()


def ulid() -> str:
    """48 bits of milliseconds and 80 random bits, Crockford base32 (26 characters).

    Monotonic within a process (the ULID spec's monotonic mode): a second id in the same
    millisecond (or after the clock stepped back) takes the last one's remainder plus one, so
    creation order is id order; two entities made in one millisecond sorted at random before,
    and a list paged by id showed them out of the order they were made in."""
    millis, rest = int(time.time() * 1000), int.from_bytes(os.urandom(10), "big")
    with _last_lock:
        last_millis, last_rest = _last
        if millis <= last_millis:
            millis, rest = last_millis, last_rest + 1
            if rest >= _RANDOM_SPAN:  # 2^80 ids in one millisecond: borrow the next one
                millis, rest = millis + 1, 0
        _last[0], _last[1] = millis, rest
    return ulid_from(millis, rest)


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
