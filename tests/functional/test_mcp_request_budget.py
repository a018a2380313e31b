"""One MCP request, one JMESPath budget (issue 28, finding 1): a pipeline step's arguments are
checked (its tool, the key's scope, its schema with `$expr` placeholders standing for any
value, how many `$expr` it holds) before any of them is evaluated, and every `$expr`,
`transform` and `_transform` of one request draws on one budget of time and values built.

Before, `substitute()` evaluated every `$expr` anywhere in a step's arguments, each with a
2-s budget of its own, and only then did validation refuse the argument that held them: one
request of a read-only key ran 22 s of CPU. The service runs in this process
(tests/conftest.py), so the tests see which JMESPath nodes it evaluated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jmespath.visitor import TreeInterpreter

from chalicelib import account
from chalicelib.store import keys
from tests.client import Api, Tenant, inside_one_window
from tests.mcp_client import McpSession, error_text

# A filter over the event type names of 1,321 characters, as the attack's.
_TERMS = " || ".join(f"contains(@, '{chr(97 + n % 26)}{chr(97 + n // 26)}')" for n in range(62))
_SHAPE = "c[?" + _TERMS + " || contains(@, '{}')]"
FILTER = _SHAPE.format("z" * (1321 - len(_SHAPE) + len("{}")))
NAMES = {"tool": "webhooks.eventTypes", "arguments": {}, "as": "c", "transform": "eventTypes[*].name"}


@pytest.fixture()
def visited(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The type of every JMESPath node the service evaluates from here on."""
    seen: list[str] = []
    original = TreeInterpreter.visit

    def visit(self: Any, node: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        seen.append(node["type"])
        return original(self, node, *args, **kwargs)

    monkeypatch.setattr(TreeInterpreter, "visit", visit)
    return seen


@pytest.fixture()
def reader(api: Api, tenant: Tenant) -> Iterator[McpSession]:
    with McpSession(api.base, tenant.new_key(["read"], agent="reader")) as session:
        yield session


def test_the_issues_attack_is_refused_naming_the_argument_before_anything_is_evaluated(
    reader: McpSession, visited: list[str]
) -> None:
    assert len(FILTER) == 1321
    padded = {"tool": "info", "arguments": {"pad": [{"$expr": FILTER}] * 146}}
    result = reader.call("meta.pipeline.execute", {"steps": [NAMES, padded]})
    error = result.structured_content["error"]  # type: ignore[index]
    assert (error["status"], error["code"]) == (400, "too_many_expressions"), error
    assert error["failedStep"] == {"index": 1, "tool": "info", "status": 400}
    assert error["errors"] == [
        {"path": "steps[1].arguments.pad[20]", "message": "`$expr` number 21: a step may hold at most 20"}
    ]
    assert error["completedSteps"] == []  # counted before the first step ran
    assert "filter_projection" not in visited  # not one of the 146 filters ran


def test_a_junk_argument_holding_expressions_is_refused_before_they_are_evaluated(
    reader: McpSession, visited: list[str]
) -> None:
    padded = {"tool": "info", "arguments": {"pad": [{"$expr": FILTER}] * 3}}
    result = reader.call("meta.pipeline.execute", {"steps": [NAMES, padded]})
    error = result.structured_content["error"]  # type: ignore[index]
    assert (error["status"], error["code"]) == (400, "validation_failed"), error
    assert error["failedStep"] == {"index": 1, "tool": "info", "status": 400}
    assert "'pad' was unexpected" in error_text(result)
    assert "filter_projection" not in visited
    assert "projection" in visited  # step 1's transform ran: the hook sees what is evaluated


def test_a_step_outside_the_keys_scope_evaluates_nothing(reader: McpSession, visited: list[str]) -> None:
    create = {"tool": "objects.create", "arguments": {"object": {"name": {"$expr": FILTER + " | [0]"}, "type": "weg"}}}
    result = reader.call("meta.pipeline.execute", {"steps": [NAMES, create]})
    error = result.structured_content["error"]  # type: ignore[index]
    assert (error["status"], error["code"]) == (403, "missing_scope"), error
    assert "filter_projection" not in visited


def test_bad_expressions_are_refused_before_the_tool_runs(api: Api, tenant: Tenant) -> None:
    obj = {"object": {"name": "WEG Lindenweg 3", "type": "weg"}}
    with McpSession(api.base, tenant.key) as mcp:
        executed = mcp.execute("objects.create", obj, _transform="object[?")
        piped = mcp.call(
            "meta.pipeline.execute", {"steps": [{"tool": "objects.create", "arguments": obj, "transform": "object[?"}]}
        )
        unnamed = mcp.call(
            "meta.pipeline.execute",
            {
                "steps": [
                    {
                        "tool": "objects.create",
                        "arguments": {"object": {"name": {"$expr": "house.name"}, "type": "weg"}},
                    }
                ]
            },
        )
    assert "400 invalid_transform" in error_text(executed) and "_transform" in error_text(executed)
    assert "400 invalid_transform" in error_text(piped) and "steps[0].transform" in error_text(piped)
    assert unnamed.structured_content["error"]["errors"] == [  # type: ignore[index]
        {
            "path": "steps[0].arguments.object.name",
            "message": "$expr refers to house, which no earlier step named with `as` (named so far: none yet)",
        }
    ]
    assert tenant.get("objects")["pagination"]["total"] == 0


def test_a_step_and_a_pipeline_hold_a_bounded_number_of_expressions(reader: McpSession, visited: list[str]) -> None:
    resolve = {"tool": "aliases.resolve", "arguments": {"aliases": [{"$expr": "c[0]"}] * 20}}
    fits = reader.ok("meta.pipeline.execute", {"steps": [NAMES, resolve]})
    over_step = reader.call(
        "meta.pipeline.execute",
        {"steps": [NAMES, {"tool": "aliases.resolve", "arguments": {"aliases": [{"$expr": "c[0]"}] * 21}}]},
    )
    visited.clear()
    over_pipeline = reader.call("meta.pipeline.execute", {"steps": [NAMES, resolve, resolve, resolve]})
    assert [s["tool"] for s in fits["steps"]] == ["webhooks.eventTypes", "aliases.resolve"]
    assert over_step.structured_content["error"]["errors"][0]["path"] == "steps[1].arguments.aliases[20]"  # type: ignore[index]
    error = over_pipeline.structured_content["error"]  # type: ignore[index]
    assert (error["status"], error["code"], error["failedStep"]["index"]) == (400, "too_many_expressions", 3)
    assert error["errors"] == [
        {
            "path": "steps[3].arguments.aliases[10]",
            "message": "`$expr` number 11: a pipeline may hold at most 50, and earlier steps hold 40",
        }
    ]
    assert error["completedSteps"] == [] and visited == []  # nothing ran


def test_every_expression_of_a_request_draws_on_one_budget(
    tenant: Tenant, reader: McpSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three evaluations that each fit the budget alone (so each fitted its own before), but
    not all three together: a step's transform, then two steps' `$expr`s, each as costly."""
    from chalicelib.mcp import evaluation, transform

    one = transform.Budget()
    names = transform.apply("eventTypes[*].name", tenant.get("webhooks.eventTypes"), one)
    monkeypatch.setattr(evaluation, "MAX_BUILT_BYTES", one.built * 5 // 2)
    resolve = {"tool": "aliases.resolve", "arguments": {"aliases": {"$expr": "c[*]"}}}
    two = reader.ok("meta.pipeline.execute", {"steps": [NAMES, resolve]})
    three = reader.call("meta.pipeline.execute", {"steps": [NAMES, resolve, resolve]})
    alone = reader.ok("meta.pipeline.execute", {"steps": [NAMES]})
    assert two["results"]["c"] == names and alone["results"]["c"] == names
    error = three.structured_content["error"]  # type: ignore[index]
    assert (error["status"], error["code"]) == (400, "transform_too_costly"), error
    assert error["failedStep"]["index"] == 2 and f"budget of {one.built * 5 // 2} bytes" in error["detail"]


@pytest.mark.parametrize("limit", ["perKey", "perTenant"])
def test_each_evaluation_counts_against_the_keys_and_the_tenants_limit(api: Api, tenant: Tenant, limit: str) -> None:
    """A step with a transform weighs two calls (the tool and its evaluation): four such steps
    run out a limit of 8 that four calls and the MCP requests alone would not."""
    keys.set_throttle(tenant.id, {limit: {"rate": 0.05, "burst": 8}})  # 8 per 160 s
    account.forget_tenant(tenant.id)
    try:
        inside_one_window(160, 10)
        with McpSession(api.base, tenant.key) as mcp:
            counted = len(mcp.statuses) + 1  # the handshake's requests and this one, each counted once
            piped = mcp.call("meta.pipeline.execute", {"steps": [{"tool": "info", "transform": "key.id"}] * 4})
        assert counted + 4 <= 8  # one call a step would fit
        refused = next(step for step in range(4) if counted + 2 * step >= 8)
        error = piped.structured_content["error"]  # type: ignore[index]
        assert error["failedStep"] == {"index": refused, "tool": "info", "status": 429}, error
    finally:
        keys.set_throttle(tenant.id, None)
        account.forget_tenant(tenant.id)


def test_a_tenants_tool_calls_count_against_its_own_tenant_limit(
    api: Api, tenant: Tenant, other_tenant: Tenant
) -> None:
    """Both tenants allow their keys together 8 calls per 160 s. One runs out its limit with tool
    calls in a pipeline; the other's tool calls are still served: each counts against its own."""
    for each in (tenant, other_tenant):
        keys.set_throttle(each.id, {"perTenant": {"rate": 0.05, "burst": 8}})
        account.forget_tenant(each.id)
    try:
        inside_one_window(160, 10)
        with McpSession(api.base, tenant.key) as mcp:
            spent = mcp.call("meta.pipeline.execute", {"steps": [{"tool": "info"}] * 8})
        assert spent.structured_content["error"]["failedStep"]["status"] == 429  # type: ignore[index]
        with McpSession(api.base, other_tenant.key) as mcp:
            served = mcp.call("meta.pipeline.execute", {"steps": [{"tool": "info"}] * 2})
        assert "error" not in (served.structured_content or {}), served.structured_content
    finally:
        for each in (tenant, other_tenant):
            keys.set_throttle(each.id, None)
            account.forget_tenant(each.id)
