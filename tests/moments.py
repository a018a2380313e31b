"""The service's clock moved for a block of a test: a date-dependent rule (v1's sunset, a trial's
end, the feed's window, a key's expiry) is tested at a moment the test chooses, on both sides of
its boundary, whatever day the suite runs on."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager

from chalicelib import clock


@contextmanager
def clock_at(moment: dt.datetime, *, running: bool = False) -> Iterator[None]:
    """The service reads `moment` as now (`running`: from `moment` on, as the real clock advances)."""
    started = dt.datetime.now(dt.UTC)
    clock.set_clock((lambda: moment + (dt.datetime.now(dt.UTC) - started)) if running else (lambda: moment))
    try:
        yield
    finally:
        clock.set_clock(None)
