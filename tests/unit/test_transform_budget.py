"""A JMESPath transform allocates within a budget (issue 16, finding 6): functions that build
text from bounded parts (`join` repeats its separator per item) are weighed before they run.
Before, `join(to_string([@,@,@]), contacts[*].id)` allocated ~1 GB before the 8 MB value cap
refused the result; here the same shape over a smaller result peaked at ~120 MB."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest

from chalicelib.errors import Invalid
from chalicelib.mcp import transform

RESULT = {"contacts": [{"id": f"con_{n:026d}", "lastName": "Mustermann"} for n in range(1000)]}


def peak_bytes(expression: str, data: Any) -> tuple[int, Exception | None]:
    tracemalloc.start()
    try:
        transform.apply(expression, data)
        failure = None
    except Invalid as err:
        failure = err
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak, failure


@pytest.mark.parametrize(
    "expression",
    [
        "join(to_string([@,@,@]), contacts[*].id)",
        "join(join(to_string(@), contacts[*].id), contacts[*].id)",
        "length(join(to_string(contacts), contacts[*].id))",
    ],
)
def test_text_building_functions_stay_within_the_budget(expression: str) -> None:
    peak, failure = peak_bytes(expression, RESULT)
    assert peak < 64 * 2**20, f"{expression} peaked at {peak / 2**20:.0f} MiB"
    assert isinstance(failure, Invalid) and failure.code == "transform_too_costly", failure
    assert str(transform.MAX_BUILT_BYTES) in failure.detail or str(transform.MAX_VALUE_BYTES) in failure.detail


def test_ordinary_joins_and_strings_still_work() -> None:
    assert transform.apply("join(', ', contacts[:3].id)", RESULT) == ", ".join(c["id"] for c in RESULT["contacts"][:3])
    assert transform.apply("length(to_string(contacts))", RESULT) > 40_000
