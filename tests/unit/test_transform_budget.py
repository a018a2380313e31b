"""A JMESPath transform allocates within a budget (issue 16, finding 6): functions that build
text from bounded parts (`join` repeats its separator per item) are weighed before they run.
Before, `join(to_string([@,@,@]), contacts[*].id)` allocated ~1 GB before the 8 MB value cap
refused the result; here the same shape over a smaller result peaked at ~120 MB."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest

from chalicelib.errors import Invalid
from chalicelib.mcp import evaluation, transform


def apply(expression: str, data: Any) -> Any:
    """The expression evaluated as the only one of an MCP request."""
    return transform.apply(expression, data, transform.Budget())


@pytest.fixture()
def unhurried(monkeypatch: pytest.MonkeyPatch) -> None:
    """For the tests of what evaluations build, not of their clock: on a loaded machine (a CI run
    beside the functional tests) an ordinary evaluation once took longer than the 2 s it may."""
    monkeypatch.setattr(evaluation, "MAX_SECONDS", 60.0)


RESULT = {"contacts": [{"id": f"con_{n:026d}", "lastName": "Mustermann"} for n in range(1000)]}


def peak_bytes(expression: str, data: Any) -> tuple[int, Exception | None]:
    tracemalloc.start()
    try:
        apply(expression, data)
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
@pytest.mark.usefixtures("unhurried")
def test_text_building_functions_stay_within_the_budget(expression: str) -> None:
    peak, failure = peak_bytes(expression, RESULT)
    assert peak < 64 * 2**20, f"{expression} peaked at {peak / 2**20:.0f} MiB"
    assert isinstance(failure, Invalid) and failure.code == "transform_too_costly", failure
    assert str(transform.MAX_BUILT_BYTES) in failure.detail or str(transform.MAX_VALUE_BYTES) in failure.detail


# Fresh values that each stay under the 8 MB value cap but pile up before anything weighs
# their sum: forty reversed copies of a 6.9 MB string (built within the text budget) in one
# list peaked at 270 MiB; to_string of names made of emoji (12 characters of JSON each, where
# the weight said 1) at 178 MiB; quotes double.
SEVEN_MB = "join('-', contacts[*].id) | join(@, [@,@,@,@,@,@,@,@,@]) | join('', [@,@,@,@,@,@,@,@,@,@,@,@,@])"
FORTY = ",".join(["@"] * 38)
ESCAPED = {
    "emoji": {"contacts": [{"id": f"con_{n:026d}", "lastName": "\U0001f600" * 200} for n in range(1000)]},
    "quotes": {"contacts": [{"id": f"con_{n:026d}", "lastName": '"' * 200} for n in range(1000)]},
}


@pytest.mark.parametrize(
    "expression",
    [
        SEVEN_MB + " | [" + ",".join(["reverse(@)"] * 40) + "]",
        SEVEN_MB + " | {" + ",".join(f"k{n}: reverse(@)" for n in range(40)) + "}",
        SEVEN_MB + " | [" + ",".join(["reverse(@)"] * 20) + "] | [0]",
        "contacts[*].id" + " | [*].[@,@,@,@] | []" * 6,
        "contacts[*].[@,@,@,@]" + "[*].[@,@,@,@]" * 5,
        "[" + ",".join(["@"] * 32) + "][*].to_string(contacts[*].to_string([@,@,@,@]))",
    ],
)
def test_every_value_built_counts_against_one_budget(expression: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The clock (2 s) is no memory bound: tracemalloc slows the interpreter fivefold, a busy
    # machine more, so here the budget alone has to stop every one of these.
    monkeypatch.setattr(evaluation, "MAX_SECONDS", 60.0)
    peak, failure = peak_bytes(expression, RESULT)
    assert peak < 64 * 2**20, f"{expression} peaked at {peak / 2**20:.0f} MiB"
    assert isinstance(failure, Invalid) and failure.code == "transform_too_costly", failure
    assert f"budget of {transform.MAX_BUILT_BYTES} bytes" in failure.detail, failure.detail


@pytest.mark.parametrize("data", ESCAPED.values(), ids=ESCAPED.keys())
@pytest.mark.usefixtures("unhurried")
def test_to_string_counts_the_escapes_it_writes(data: dict[str, Any]) -> None:
    peak, failure = peak_bytes(f"contacts[*].lastName | to_string([{FORTY}])", data)
    assert peak < 64 * 2**20, f"peaked at {peak / 2**20:.0f} MiB"
    assert isinstance(failure, Invalid) and failure.code == "transform_too_costly", failure
    assert str(transform.MAX_BUILT_BYTES) in failure.detail, failure.detail
    assert len(apply("contacts[:3].lastName | to_string(@)", data)) > 3 * 200


@pytest.mark.usefixtures("unhurried")
def test_ordinary_joins_and_strings_still_work() -> None:
    assert apply("join(', ', contacts[:3].id)", RESULT) == ", ".join(c["id"] for c in RESULT["contacts"][:3])
    assert apply("length(to_string(contacts))", RESULT) > 40_000
    assert len(apply("to_string(contacts[*].to_string([@,@,@,@]))", RESULT)) > 250_000
    assert len(apply("contacts[*].[@,@,@,@] | [] | [*].{id: id, name: lastName}", RESULT)) == 4000
    assert (
        apply("reverse(join('-', contacts[:2].id))", RESULT) == "-".join(c["id"] for c in RESULT["contacts"][:2])[::-1]
    )


def test_a_slice_with_step_zero_is_an_invalid_transform_not_a_crash() -> None:
    with pytest.raises(Invalid) as refused:
        apply("contacts[::0]", RESULT)
    assert refused.value.code == "invalid_transform" and "step" in refused.value.detail
    assert apply("contacts[::-1] | [0].id", RESULT) == RESULT["contacts"][-1]["id"]


def test_the_evaluations_of_one_request_share_one_budget_of_values_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28, finding 1: each evaluation had a budget of its own, so one request of many
    expressions had many budgets."""
    alone = transform.Budget()
    transform.apply("contacts[*].id", RESULT, alone)
    monkeypatch.setattr(evaluation, "MAX_BUILT_BYTES", alone.built * 5 // 2)  # room for two, not three
    shared = transform.Budget()
    for _ in range(2):
        assert len(transform.apply("contacts[*].id", RESULT, shared)) == 1000
    with pytest.raises(Invalid) as refused:
        transform.apply("contacts[*].id", RESULT, shared, where="steps[2].transform")
    assert refused.value.code == "transform_too_costly"
    assert refused.value.detail.startswith("steps[2].transform: ")
    assert f"budget of {alone.built * 5 // 2} bytes" in refused.value.detail
    assert shared.evaluations == 3
    assert len(transform.apply("contacts[*].id", RESULT, transform.Budget())) == 1000  # a new request, a new budget


def test_the_evaluations_of_one_request_share_one_clock() -> None:
    budget = transform.Budget()
    transform.apply("contacts[0].id", RESULT, budget)
    budget.seconds = budget.max_seconds  # what earlier evaluations of the request spent
    with pytest.raises(Invalid) as refused:
        transform.apply("contacts[0].id", RESULT, budget)
    assert refused.value.code == "transform_too_costly"
    assert f"longer than {transform.MAX_SECONDS:g} s together" in refused.value.detail


def test_an_expression_longer_than_the_cap_is_refused_before_it_is_compiled() -> None:
    """A long expression costs its parse before any budget sees it: the cap is the only bound."""
    fits = "contacts[?" + " || ".join(["lastName == 'Mustermann'"] * 60) + "].id"
    longer = "contacts[?" + " || ".join(["lastName == 'Mustermann'"] * 200) + "].id"
    assert len(fits) <= transform.MAX_EXPRESSION_CHARS < len(longer)
    assert len(apply(fits, RESULT)) == 1000
    with pytest.raises(Invalid) as refused:
        apply(longer, RESULT)
    assert refused.value.code == "invalid_transform" and f"at most {transform.MAX_EXPRESSION_CHARS}" in str(
        refused.value
    )
