"""The service's clock moved for a block of a test: a date-dependent rule (v1's sunset, a trial's
end, the feed's window, a key's expiry, what is kept for some days) is tested at a moment the test
chooses, on both sides of its boundary, whatever day the suite runs on."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from contextlib import contextmanager

from chalicelib import clock


@contextmanager
def clock_at(moment: dt.datetime) -> Iterator[None]:
    """The service reads `moment` as now, for the block."""
    clock.set_clock(lambda: moment)
    try:
        yield
    finally:
        clock.set_clock(None)


def shifted(text: str, now: dt.datetime) -> dt.datetime:
    """PM_TEST_CLOCK_SHIFT's moment: `+30d`, `-1y`, `+12h` from `now`, or an ISO 8601 time."""
    match = re.fullmatch(r"([+-])(\d+)([hdy])", text.strip())
    if not match:
        return dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    sign, count, unit = match.groups()
    offset = {"h": dt.timedelta(hours=1), "d": dt.timedelta(days=1), "y": dt.timedelta(days=365)}[unit] * int(count)
    return now + offset if sign == "+" else now - offset
