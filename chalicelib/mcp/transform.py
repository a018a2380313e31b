"""JMESPath transforms of tool results (`_transform` of meta.tool.execute, `transform` and
`{"$expr": ...}` of pipeline steps), bounded in expression length and result size.

A JMESPath expression has no loops or recursion: its cost grows with the input (a tool
result, itself bounded by the 1,000-item page limit) times the expression's length, so both
bounds together bound the time as well."""

from __future__ import annotations

import functools
import json
from typing import Any

from chalicelib.errors import Invalid

MAX_EXPRESSION_CHARS = 2_000
MAX_RESULT_BYTES = 1_000_000  # what one tool call may hand back to a model


def _compiled(expression: str, where: str) -> Any:
    if not isinstance(expression, str) or not expression.strip():
        raise Invalid(f"{where}: a JMESPath expression must be a non-empty string.", code="invalid_transform")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise Invalid(f"{where}: the expression has {len(expression)} characters; at most {MAX_EXPRESSION_CHARS}.", code="invalid_transform")
    return _compile(expression)


@functools.lru_cache(maxsize=256)
def _compile(expression: str) -> Any:
    import jmespath
    from jmespath.exceptions import JMESPathError

    try:
        return jmespath.compile(expression)
    except JMESPathError as err:
        raise Invalid(f"not a valid JMESPath expression: {_reason(err)}", code="invalid_transform") from None


def _reason(err: Exception) -> str:
    return " ".join(str(err).split())  # jmespath's messages span lines with a caret diagram


def apply(expression: str, data: Any, *, where: str = "_transform") -> Any:
    """The expression evaluated over `data`; a tool error naming `where` when it cannot be."""
    from jmespath.exceptions import JMESPathError

    try:
        compiled = _compiled(expression, where)
    except Invalid as err:
        if err.detail.startswith(where):
            raise
        raise Invalid(f"{where}: {err.detail} (expression: {expression!r})", code="invalid_transform") from None
    try:
        result = compiled.search(data)
    except JMESPathError as err:
        raise Invalid(f"{where}: the expression {expression!r} failed on this result: {_reason(err)}", code="invalid_transform") from None
    return result


def check_size(value: Any, what: str) -> str:
    """The value as JSON text, refused when it exceeds what a model should be handed."""
    from chalicelib.http import dumps

    text = dumps(value)
    if len(text.encode("utf-8")) > MAX_RESULT_BYTES:
        raise Invalid(
            f"{what} is {len(text.encode('utf-8'))} bytes of JSON, over the limit of {MAX_RESULT_BYTES}: "
            "ask for a smaller page (limit) or select fields with a JMESPath transform.",
            code="result_too_large",
        )
    return text


def as_json(value: Any) -> Any:
    """Plain JSON types (Decimals and sets as the REST answer writes them)."""
    from chalicelib.http import dumps

    return json.loads(dumps(value))
