"""The JMESPath evaluation budget through MCP (issue 16, finding 6): a `_transform` whose
values each stay under the 8 MB value cap but pile up (copies side by side, text whose JSON
escapes outgrow its length) is refused naming the budget, and the server allocates a few MiB
for it, not hundreds. The server runs in this process (tests/conftest.py), so tracemalloc
sees what the tool call allocates."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

from tests.client import Api, Tenant
from tests.mcp_client import McpSession

MIB = 2**20
BUDGET = "budget of 8000000 bytes"


@pytest.fixture()
def mcp(api: Api, tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> Iterator[McpSession]:
    # tracemalloc slows the interpreter about fivefold: on a busy machine the 2-s clock would
    # refuse first, and the budget, the thing under test, would go unchecked (the app runs here).
    from chalicelib.mcp import evaluation

    monkeypatch.setattr(evaluation, "MAX_SECONDS", 60.0)
    with McpSession(api.base, tenant.key) as session:
        yield session


def traced(call: Any) -> tuple[Any, int]:
    """What `call()` answers and the most memory allocated at once while it ran."""
    tracemalloc.start()
    try:
        return call(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def refused_over_budget(result: Any) -> str:
    assert result.is_error, result.structured_content
    error = result.structured_content["error"]
    assert (error["status"], error["code"]) == (400, "transform_too_costly"), error
    return str(error["detail"])


# openapi.spec is 1.4 MB: as text, four times over, is 7 MB of the budget; before, forty
# reversed copies of that (280 MB) were made before the list holding them was weighed.
COPIES = "to_string(@) | join('', [@, @, @, @]) | [" + ", ".join(["reverse(@)"] * 40) + "]"


@pytest.mark.slow
def test_copies_side_by_side_are_refused_within_the_budget(mcp: McpSession) -> None:
    baseline = traced(lambda: mcp.execute("openapi.spec", {}, _transform="length(to_string(@))"))[1]
    result, peak = traced(lambda: mcp.execute("openapi.spec", {}, _transform=COPIES))  # time: the evaluation clock
    assert peak < baseline + 64 * MIB, f"peaked at {peak / MIB:.0f} MiB, {baseline / MIB:.0f} MiB without the copies"
    assert BUDGET in refused_over_budget(result)


def test_the_issues_expression_is_refused_naming_the_budget(mcp: McpSession) -> None:
    result, peak = traced(lambda: mcp.execute("openapi.spec", {}, _transform="join(to_string([@,@,@]), keys(paths))"))
    assert BUDGET in refused_over_budget(result)
    assert peak < 128 * MIB


def test_text_whose_escapes_outgrow_it_is_weighed_as_written(tenant: Tenant, mcp: McpSession) -> None:
    for n in range(20):
        tenant.contact(lastName="\U0001f600" * 200, firstName=f"Nr {n}")
    names = mcp.ok(
        "meta.tool.execute",
        {"name": "contacts", "arguments": {"limit": 20, "offset": 0}, "_transform": "contacts[*].lastName"},
    )
    assert names["result"] == ["\U0001f600" * 200] * 20  # an ordinary transform of the same names still answers

    # 20 names of 200 emoji, 1,920 times over: 7.8 MB by length, 92 MB written as to_string writes it.
    expression = "contacts[*].lastName | [" + ", ".join(["@"] * 40) + "] | to_string([" + ", ".join(["@"] * 48) + "])"
    result, peak = traced(lambda: mcp.execute("contacts", {"limit": 20, "offset": 0}, _transform=expression))
    assert "8000000 bytes" in refused_over_budget(result)
    assert peak < 64 * MIB, f"peaked at {peak / MIB:.0f} MiB"
