"""JMESPath transforms of tool results (`_transform` of meta.tool.execute, `transform` and
`{"$expr": ...}` of pipeline steps), bounded in expression length, in what the evaluations of
one MCP request build and how long they take together, in the size of each value
(chalicelib/mcp/evaluation.py), and in the size of the answer."""

from __future__ import annotations

import functools
import json
from typing import Any

import jmespath
from jmespath.exceptions import JMESPathError

from chalicelib import error_codes as codes
from chalicelib.errors import Invalid
from chalicelib.jsontext import dumps
from chalicelib.mcp.evaluation import MAX_BUILT_BYTES, MAX_SECONDS, MAX_VALUE_BYTES, Budget

__all__ = [
    "MAX_BUILT_BYTES",
    "MAX_SECONDS",
    "MAX_VALUE_BYTES",
    "Budget",
    "apply",
    "as_json",
    "check",
    "check_size",
    "root_names",
]

MAX_EXPRESSION_CHARS = 2_000
MAX_RESULT_BYTES = 1_000_000  # what one tool call may hand back to a model


def _compiled(expression: str, where: str) -> Any:
    if not isinstance(expression, str) or not expression.strip():
        raise Invalid(f"{where}: a JMESPath expression must be a non-empty string.", code=codes.INVALID_TRANSFORM)
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise Invalid(
            f"{where}: the expression has {len(expression)} characters; at most {MAX_EXPRESSION_CHARS}.",
            code=codes.INVALID_TRANSFORM,
        )
    return _compile(expression)


@functools.lru_cache(maxsize=256)
def _compile(expression: str) -> Any:
    try:
        return jmespath.compile(expression)
    except JMESPathError as err:
        raise Invalid(f"not a valid JMESPath expression: {_reason(err)}", code=codes.INVALID_TRANSFORM) from None
    except RecursionError:
        raise Invalid(
            "the expression nests brackets, parentheses or operators too deeply", code=codes.INVALID_TRANSFORM
        ) from None


def _reason(err: Exception) -> str:
    return " ".join(str(err).split())  # jmespath's messages span lines with a caret diagram


def check(expression: str, where: str) -> Any:
    """The expression compiled, evaluating nothing; a tool error naming `where` when it is no
    valid expression. Run before a request evaluates (or changes) anything."""
    try:
        return _compiled(expression, where)
    except Invalid as err:
        if err.detail.startswith(where):
            raise
        raise Invalid(f"{where}: {err.detail} (expression: {expression!r})", code=codes.INVALID_TRANSFORM) from None


def apply(expression: str, data: Any, budget: Budget, *, where: str = "_transform") -> Any:
    """The expression evaluated over `data`, drawing on the request's budget; a tool error
    naming `where` when it cannot be."""
    compiled = check(expression, where)
    try:
        result = budget.evaluate(compiled.parsed, data, where)
    except JMESPathError as err:
        raise Invalid(
            f"{where}: the expression {expression!r} failed on this result: {_reason(err)}",
            code=codes.INVALID_TRANSFORM,
        ) from None
    except RecursionError:
        raise Invalid(
            f"{where}: the expression {expression!r} builds values nested too deeply.", code=codes.TRANSFORM_TOO_COSTLY
        ) from None
    return result


# Nodes whose first child is evaluated against the current value and the others against its result.
_CHAINS = {
    "subexpression",
    "index_expression",
    "projection",
    "value_projection",
    "filter_projection",
    "pipe",
    "flatten",
}


def root_names(expression: str) -> set[str]:
    """The names an expression looks up in the value it is evaluated on (`a` and `b` in
    `a.x || b[0]`, not `x`); empty for an invalid expression."""
    try:
        compiled = _compiled(expression, "$expr")
    except Invalid:
        return set()
    found: set[str] = set()
    pending = [compiled.parsed]
    while pending:
        node = pending.pop()
        if node["type"] == "field":
            found.add(node["value"])
        elif node["type"] in _CHAINS:
            pending.append(node["children"][0])
        elif node["type"] != "expref":  # an expref is evaluated on elements, not on the root
            pending += [child for child in node.get("children", []) if isinstance(child, dict)]
    return found


def check_size(value: Any, what: str) -> str:
    """The value as JSON text, refused when it exceeds what a model should be handed."""
    text = dumps(value)
    if len(text.encode("utf-8")) > MAX_RESULT_BYTES:
        raise Invalid(
            f"{what} is {len(text.encode('utf-8'))} bytes of JSON, over the limit of {MAX_RESULT_BYTES}: "
            "ask for a smaller page (limit) or select fields with a JMESPath transform.",
            code=codes.RESULT_TOO_LARGE,
        )
    return text


def as_json(value: Any) -> Any:
    """Plain JSON types (Decimals and sets as the REST answer writes them)."""
    return json.loads(dumps(value))
