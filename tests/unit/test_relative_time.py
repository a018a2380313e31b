"""Times in words in the registry's examples, computed when the example is run."""

from __future__ import annotations

import datetime as dt

import pytest

from chalicelib import error_codes as codes
from chalicelib import relative_time
from chalicelib.registry import REGISTRY, Operation
from chalicelib.resources import load_all

NOW = dt.datetime(2031, 3, 1, 12, 0, tzinfo=dt.UTC)


def test_placeholders_resolve_at_the_moment_given() -> None:
    example = {"since": relative_time.ago(1), "filter": {"to": relative_time.from_now(2, "hour")}, "n": [3, "<x>"]}
    assert example["since"] == "<1 day ago>" and example["filter"]["to"] == "<2 hours from now>"
    assert relative_time.resolve(example, NOW) == {
        "since": "2031-02-28T12:00:00.000Z",
        "filter": {"to": "2031-03-01T14:00:00.000Z"},
        "n": [3, "<x>"],
    }


def test_a_placeholder_counts_known_units_forward() -> None:
    with pytest.raises(ValueError):
        relative_time.ago(1, "week")
    with pytest.raises(ValueError):
        relative_time.ago(-1)


def test_no_example_holds_a_time_that_a_window_can_outgrow() -> None:
    """Every operation that refuses a `since` outside a window of now (it declares
    since_out_of_retention: the change feed, a recovery) gives its example's `since` in words: a fixed
    date there answered 400 a month after it was written."""
    load_all()

    def declares(op: Operation) -> list[object]:
        return [e[0] if isinstance(e, tuple) else e for e in op.errors]

    windowed = [op for op in REGISTRY.values() if codes.SINCE_OUT_OF_RETENTION in declares(op)]
    assert len(windowed) >= 2
    for op in windowed:
        assert op.example is not None and relative_time.PLACEHOLDER.match(op.example["since"]), op.name
