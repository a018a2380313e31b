"""Loaded by every Python process the suite starts while PM_TEST_CLOCK_SHIFT is set (tests/conftest.py
puts this folder first on PYTHONPATH): the process's wall clock runs PM_TEST_CLOCK_OFFSET seconds
ahead of (or behind) the real one, as the test processes' does, so a spawned second instance or
`make serve` agrees with them on what time it is. Self-contained: it runs before the project is
on sys.path."""

import os

if os.environ.get("PM_TEST_CLOCK_OFFSET"):
    import time

    import time_machine

    if not time_machine.escape_hatch.is_travelling():  # once a process: the clock is still the real one
        time_machine.travel(time.time() + float(os.environ["PM_TEST_CLOCK_OFFSET"]), tick=True).start()
