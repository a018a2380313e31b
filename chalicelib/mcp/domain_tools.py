"""Domain tools run through MCP (meta.tool.execute, each step of meta.pipeline.execute) as
the calling key: the REST dispatch checks scopes, validates, resolves aliases and audits.
Each call counts against the key's limits together with the JMESPath expressions it
evaluates (admit), before anything of it is evaluated or run."""

from __future__ import annotations

from typing import Any

from chalicelib import account, dispatch
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.errors import Invalid, NotFound
from chalicelib.mcp import catalogue, transform
from chalicelib.registry import Operation
from chalicelib.validation import StandIn


def find(name: str) -> Operation:
    op = catalogue.find(name)
    if op is None:
        raise NotFound(
            f"There is no tool named {name!r}; find tool names with meta.tools.search.", code=codes.UNKNOWN_TOOL
        )
    return op


def check(ctx: CallContext, op: Operation, arguments: Any, *, stand_in: StandIn) -> None:
    """Before any value of the arguments is computed: the key's scope and the arguments'
    shape, each value `stand_in` accepts (a `$expr`) passing for any value."""
    _an_object(arguments)
    dispatch.check(op, ctx, arguments, stand_in=stand_in)


def admit(ctx: CallContext, op: Operation, *, evaluations: int) -> None:
    """Count the call, and the JMESPath expressions evaluated with it, against the key's
    limits (429 when they are spent): before the expressions are evaluated."""
    account.admit_tool(ctx, op.name, evaluations=evaluations)


def run(ctx: CallContext, op: Operation, arguments: Any) -> dict[str, Any]:
    """One admitted domain tool, as the key; its result as plain JSON."""
    _an_object(arguments)
    return transform.as_json(dispatch.run(op, ctx, arguments))  # type: ignore[no-any-return]


def _an_object(arguments: Any) -> None:
    if not isinstance(arguments, dict):
        raise Invalid("arguments must be an object whose keys are the tool's argument names.")
