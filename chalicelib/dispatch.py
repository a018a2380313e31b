"""One path for every call, whichever face it came through (REST, MCP, the console):
`serve` admits the call (the account's checks and limits), then reads its arguments, then runs
it: authorise (scope from the registry) -> validate (schema from the registry) -> resolve
references (id or alias) -> handler. Planting a sandbox, which is no caller's call, runs
`run` alone."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar

from chalicelib import account
from chalicelib.auth import authorise
from chalicelib.context import CallContext
from chalicelib.registry import Operation
from chalicelib.resolve import resolve_refs
from chalicelib.validation import StandIn, validate

ANONYMOUS = CallContext(tenant_id="", key_id="", agent_name="anonymous", scopes=frozenset())

Arguments = Callable[[], dict[str, Any]]
T = TypeVar("T")


def anonymous(source_ip: str | None) -> CallContext:
    """The context of an unauthenticated call (the sign-up's steps), from `source_ip`."""
    return replace(ANONYMOUS, source_ip=source_ip)


def serve(
    op: Operation,
    ctx: CallContext,
    arguments: Arguments,
    execute: Callable[[Operation, CallContext, dict[str, Any]], T],
    *,
    weight: int = 1,
) -> T:
    """The one way a face runs an operation for a caller. Admission comes first, before the
    arguments are read: `arguments()` parses a REST body or evaluates a pipeline step's
    expressions only once the call has counted (`weight`: the call with the JMESPath
    expressions it evaluates; a heavy operation counts its own `weight` too). `execute` runs the
    admitted call: `run` itself, or the face's wrapping of it (REST answers JSON, or runs it under
    its Idempotency-Key)."""
    if op.authenticated:
        admit(ctx, op.name, weight=weight + op.weight - 1)
    elif op.kind == "command":  # the sign-up's steps
        admit_anonymous(op.name, ctx.source_ip)
    return execute(op, ctx, arguments())


def admit(ctx: CallContext, name: str, *, weight: int = 1) -> None:
    """A key's call of `name` (an operation, or `mcp` for an MCP request whose tools are
    admitted each again): refused when its integration is disabled (401), its trial has ended
    (403) or a limit is spent (429)."""
    account.admit(ctx, name, weight=weight)


def admit_anonymous(name: str, source_ip: str | None) -> None:
    """An unauthenticated command (the sign-up's steps, an OAuth client's registration): counted
    against its source address's limit (429)."""
    account.admit_anonymous(name, source_ip)


def run(op: Operation, ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """An admitted call: scope, validation, references, handler."""
    if op.authenticated:
        authorise(ctx, op)
    args = op.current_names(args)  # an argument under its deprecated name (registry.renamed_args)
    validate(op, args)
    ctx = ctx.for_operation(op.name)
    return op.handler(ctx, resolve_refs(ctx, op, args) if op.authenticated else args)


def check(op: Operation, ctx: CallContext, args: dict[str, Any], *, stand_in: StandIn) -> None:
    """What run() checks first, on arguments some of whose values are still to be computed
    (a pipeline step's `$expr`): the key's scope, and the arguments' shape, each value
    `stand_in` accepts passing for any value. run() checks the computed arguments again."""
    if op.authenticated:
        authorise(ctx, op)
    validate(op, op.current_names(args), stand_in=stand_in)
