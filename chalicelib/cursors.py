"""Opaque cursors of the lists that page by `after`/`next` (changes.list, audit.list): a prefix
naming the list and its cursor's version, then the position, base64url without padding. Anything
else given as `after` is 400 `invalid_cursor`."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import TypeVar

from chalicelib import error_codes as codes
from chalicelib.errors import Invalid

T = TypeVar("T")


def encode(prefix: str, position: str) -> str:
    return prefix + base64.urlsafe_b64encode(position.encode()).decode().rstrip("=")


def decode(prefix: str, cursor: str, parse: Callable[[str], T], *, of: str) -> T:
    """The position a cursor of `prefix` stands for, as `parse` reads it (a ValueError: not one of
    `of`'s positions); 400 `invalid_cursor` for anything `of` did not hand out."""
    try:
        if not cursor.startswith(prefix):
            raise ValueError(cursor)
        text = cursor.removeprefix(prefix)
        return parse(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode())
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise Invalid(
            f"after: not a cursor of {of}; pass the `next` of an earlier answer.",
            code=codes.INVALID_CURSOR,
            errors=[{"path": "after", "message": f"not a cursor of {of}"}],
        ) from None
