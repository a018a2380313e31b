"""The one way the tests wait for something asynchronous (a webhook delivery, a stream-driven
audit record, an upload's registration, a queue draining, a server coming up): ask again
until it holds, then go on at once; past the deadline, fail saying what was awaited and what
was seen last."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal, TypeVar

T = TypeVar("T")

TIMEOUT = 10.0  # seconds
INTERVAL = 0.02  # the first pause; each one after is a little longer
GROWTH = 1.5
MAX_INTERVAL = 0.25


def eventually(
    check: Callable[[], T | Literal[False] | None],
    *,
    timeout: float = TIMEOUT,
    interval: float = INTERVAL,
    message: str = "the condition",
) -> T:
    """Call `check()` until it answers something truthy and answer that. An AssertionError
    it raises counts as "not yet" (so a check may assert, and return True at its end). At the
    deadline (checked once more after it; `timeout=0` checks once) raise AssertionError with
    `message` and the last answer or assertion seen."""
    deadline = time.monotonic() + timeout
    while True:
        error: AssertionError | None = None
        try:
            value = check()
        except AssertionError as failed:
            error, value = failed, None
        if value:
            return value
        left = deadline - time.monotonic()
        if left <= 0:
            last = f"AssertionError: {error}" if error is not None else repr(value)
            raise AssertionError(f"timed out after {timeout:g} s waiting for {message}; last seen: {last}") from error
        time.sleep(min(interval, left))
        interval = min(interval * GROWTH, MAX_INTERVAL)
