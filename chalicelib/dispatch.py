"""One path for every call, whichever surface it came through (REST now, MCP later):
authorise (scope from the registry) -> validate (schema from the registry) -> resolve
references (id or alias) -> handler."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from chalicelib.auth import authorise
from chalicelib.context import CallContext
from chalicelib.registry import Operation
from chalicelib.resolve import resolve_refs
from chalicelib.validation import StandIn, validate

ANONYMOUS = CallContext(tenant_id="", key_id="", agent_name="anonymous", scopes=frozenset())


def anonymous(source_ip: str | None) -> CallContext:
    """The context of an unauthenticated call (the sign-up's steps), from `source_ip`."""
    return replace(ANONYMOUS, source_ip=source_ip)


def run(op: Operation, ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    if op.authenticated:
        authorise(ctx, op)
    validate(op, args)
    ctx = ctx.for_operation(op.name)
    return op.handler(ctx, resolve_refs(ctx, op, args) if op.authenticated else args)


def check(op: Operation, ctx: CallContext, args: dict[str, Any], *, stand_in: StandIn) -> None:
    """What run() checks first, on arguments some of whose values are still to be computed
    (a pipeline step's `$expr`): the key's scope, and the arguments' shape, each value
    `stand_in` accepts passing for any value. run() checks the computed arguments again."""
    if op.authenticated:
        authorise(ctx, op)
    validate(op, args, stand_in=stand_in)
