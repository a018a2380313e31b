"""Domain tools, derived from the registry: one per v2 operation, carrying the REST name.

Name, description, input and output schema, annotations and the scopes it needs all come
from the operation's declaration; nothing here is written per tool."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from chalicelib import registry, schemas
from chalicelib.auth import allows
from chalicelib.context import CallContext
from chalicelib.registry import Operation
from chalicelib.validation import as_json_schema


def _plain(schema: Any) -> Any:
    """JSON Schema without our `x-` annotations (a model reads `description` instead)."""
    if isinstance(schema, list):
        return [_plain(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {key: _plain(value) for key, value in schema.items() if not key.startswith("x-")}


def input_schema(op: Operation) -> dict[str, Any]:
    return _plain(as_json_schema(op.args))  # type: ignore[no-any-return]


_CONTROL_CHARACTER_PATTERNS = frozenset({schemas.ONE_LINE, schemas.MULTI_LINE})


def compact(schema: Any) -> Any:
    """A schema without the control-character patterns of text fields: they only refuse what
    no agent means to send (and the refusal names the field), yet repeat on every string."""
    if isinstance(schema, list):
        return [compact(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: compact(value)
        for key, value in schema.items()
        if not (key == "pattern" and value in _CONTROL_CHARACTER_PATTERNS)
    }


def search_entry(op: Operation) -> dict[str, Any]:
    """A tool as meta.tools.search answers it: what an agent needs to pick and call it, small
    (its full description, output schema and every hint come from meta.tool.describe)."""
    hints = tool_annotations(op)
    return {
        "name": op.name,
        "description": op.summary,
        "kind": op.kind,
        "inputSchema": compact(input_schema(op)),
        "annotations": {name: hints[name] for name in ("readOnlyHint", "destructiveHint", "idempotentHint")},
    }


def output_schema(op: Operation) -> dict[str, Any]:
    return _plain(as_json_schema(op.result))  # type: ignore[no-any-return]


def tool_annotations(op: Operation) -> dict[str, Any]:
    """MCP's hints. Every hint is given explicitly: MCP assumes `destructiveHint: true` for a
    tool that is not read-only unless told otherwise."""
    return {
        "title": op.summary,
        "readOnlyHint": op.read_only,
        "destructiveHint": op.destructive,
        "idempotentHint": op.read_only or op.idempotent,
        "openWorldHint": False,
    }


def description(op: Operation) -> str:
    """What a model reads before calling: the summary, the operation's own prose, and what
    it needs (the full Markdown page is in meta.docs.search)."""
    access = op.scope_line() + (" Destructive: deletes, merges, revokes or reverts." if op.destructive else "")
    return f"{op.summary}\n\n{op.docs.strip()}\n\n{access}".strip()


def tool(op: Operation) -> dict[str, Any]:
    return {
        "name": op.name,
        "description": description(op),
        "inputSchema": input_schema(op),
        "outputSchema": output_schema(op),
        "annotations": tool_annotations(op),
        "kind": op.kind,
        "requiredScopes": list(op.required_scopes),
    }


@lru_cache(maxsize=1)
def _by_name() -> dict[str, Operation]:
    return {op.name: op for op in registry.domain_operations()}


def find(name: str) -> Operation | None:
    return _by_name().get(name)


def visible(ctx: CallContext, kind: str | None = None) -> list[Operation]:
    """The tools this key may run (its scopes, its objects), optionally only queries or commands."""
    limited = ctx.objects is not None
    return [
        op
        for op in registry.domain_operations()
        if allows(ctx.scopes, op, object_limited=limited) and (kind is None or op.kind == kind)
    ]
