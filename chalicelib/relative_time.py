"""Times in the registry's examples that are relative to the day they are used.

An example such as the change feed's `since` is only valid within the feed's window: a fixed
date in it (`2026-11-01`) answered 400 a month after it was written, on its reference page and
in the test that runs every example. Such an example says the time in words, as a placeholder
(`"<1 day ago>"`, `"<2 hours ago>"`, `"<30 days from now>"`), and whoever runs it computes the
time at that moment (`resolve`): the catalogue test, and a reader of the reference page."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from chalicelib import clock

_UNITS = {"minute": dt.timedelta(minutes=1), "hour": dt.timedelta(hours=1), "day": dt.timedelta(days=1)}
PLACEHOLDER = re.compile(r"^<(\d+) (minute|hour|day)s? (ago|from now)>$")


def ago(count: int, unit: str = "day") -> str:
    """The placeholder of a time `count` units before the moment the example is run."""
    return _placeholder(count, unit, "ago")


def from_now(count: int, unit: str = "day") -> str:
    """The placeholder of a time `count` units after the moment the example is run."""
    return _placeholder(count, unit, "from now")


def _placeholder(count: int, unit: str, direction: str) -> str:
    if unit not in _UNITS or count < 0:
        raise ValueError(f"a relative time counts minutes, hours or days forward: {count} {unit}")
    return f"<{count} {unit}{'' if count == 1 else 's'} {direction}>"


def resolve(value: Any, now: dt.datetime | None = None) -> Any:
    """The value with every placeholder replaced by its ISO 8601 time (`clock.iso`) at `now`
    (the service's clock when not given), in lists and objects at any depth: new lists and
    objects throughout, so the registry's own example is never changed by what fills the copy."""
    moment = now or clock.now()
    if isinstance(value, dict):
        return {key: resolve(item, moment) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, moment) for item in value]
    if isinstance(value, str) and (match := PLACEHOLDER.match(value)):
        count, unit, direction = int(match.group(1)), match.group(2), match.group(3)
        offset = count * _UNITS[unit]
        return clock.iso(moment - offset if direction == "ago" else moment + offset)
    return value
