"""Domain tools run through MCP (meta.tool.execute, each step of meta.pipeline.execute) as
the calling key: the REST dispatch checks scopes, validates, resolves aliases and audits.
Each call counts against the key's limits together with the JMESPath expressions it
evaluates (serve), before anything of it is evaluated or run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib import dispatch
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


def serve(ctx: CallContext, op: Operation, arguments: Callable[[], Any], *, evaluations: int) -> dict[str, Any]:
    """One domain tool as the key, through the faces' one way (dispatch.serve): the call, and the
    JMESPath expressions evaluated with it, count against the key's limits first (429 when they
    are spent), and only then are `arguments()` computed (a pipeline step's `$expr`s) and the
    tool run; its result as plain JSON."""

    def an_object() -> dict[str, Any]:
        computed = arguments()
        _an_object(computed)
        return computed  # type: ignore[no-any-return]

    return transform.as_json(dispatch.serve(op, ctx, an_object, dispatch.run, weight=1 + evaluations))  # type: ignore[no-any-return]


def _an_object(arguments: Any) -> None:
    if not isinstance(arguments, dict):
        raise Invalid("arguments must be an object whose keys are the tool's argument names.")
