"""The one place the service reads the time, so tests can move it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

_now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)  # noqa: E731


def now() -> dt.datetime:
    return _now()


def set_clock(func: Callable[[], dt.datetime] | None) -> None:
    """Replace the clock (tests); None restores the real one."""
    global _now
    _now = func or (lambda: dt.datetime.now(dt.UTC))


def iso(moment: dt.datetime) -> str:
    """ISO 8601 UTC with milliseconds and a Z, the format of every timestamp on the wire."""
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_iso() -> str:
    return iso(now())


def iso_in(seconds: float) -> str:
    """The ISO time `seconds` from now (an expiry)."""
    return iso(now() + dt.timedelta(seconds=seconds))


def parse(text: str) -> dt.datetime:
    """A timestamp of ours (`iso`) read back."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
