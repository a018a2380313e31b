"""JMESPath transforms of tool results (`_transform` of meta.tool.execute, `transform` and
`{"$expr": ...}` of pipeline steps), bounded in expression length, size and time.

A JMESPath expression has no loops, but it can still multiply its input: `{a: @, b: @}`
doubles it (by reference: cheap to build, not to write out), `[@, @][]` doubles it for real,
and forty of them in a row outgrow any machine. So every value the expression builds along
the way is weighed (about its size as JSON, shared parts counted each time they appear) and
refused over MAX_VALUE_BYTES, and the evaluation stops after MAX_SECONDS. Functions like
`to_string` or `==` then only ever see values of bounded size.

Weighing a value after it is built is too late for the functions that build new text from
bounded parts: `join` repeats its separator once per item (`join(to_string([@,@,@]), ids)`
wrote a megabyte a thousand times before the check saw it). So `join` and `to_string` are
weighed before they run, and all the text functions build in one evaluation counts against
MAX_BUILT_BYTES: what an expression allocates stays within a few times that budget."""

from __future__ import annotations

import functools
import json
import time
from typing import Any

from chalicelib.errors import Invalid

MAX_EXPRESSION_CHARS = 2_000
MAX_RESULT_BYTES = 1_000_000  # what one tool call may hand back to a model
MAX_VALUE_BYTES = 8 * MAX_RESULT_BYTES  # any value an expression builds on the way to its result
MAX_BUILT_BYTES = MAX_VALUE_BYTES  # text built by join / to_string in one evaluation, all calls together
MAX_SECONDS = 2.0


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
    except RecursionError:
        raise Invalid("the expression nests brackets, parentheses or operators too deeply", code="invalid_transform") from None


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
        result = _interpreter()(where).visit(compiled.parsed, data)
    except JMESPathError as err:
        raise Invalid(f"{where}: the expression {expression!r} failed on this result: {_reason(err)}", code="invalid_transform") from None
    except RecursionError:
        raise Invalid(f"{where}: the expression {expression!r} builds values nested too deeply.", code="transform_too_costly") from None
    return result


@functools.cache
def _interpreter() -> Any:
    """jmespath's TreeInterpreter, weighing every value it builds and watching the clock."""
    from jmespath.visitor import TreeInterpreter

    class Bounded(TreeInterpreter):  # type: ignore[misc]
        def __init__(self, where: str) -> None:
            super().__init__()
            self.where = where
            self.deadline = time.monotonic() + MAX_SECONDS
            self.weights: dict[int, tuple[int, Any]] = {}  # id -> (weight, the value, kept alive so its id stays its own)
            self.built = 0  # bytes of text the string-building functions made so far

        def visit_function_expression(self, node: Any, value: Any) -> Any:
            args = [self.visit(child, value) for child in node["children"]]
            self.charge(node["value"], self.text_size(node["value"], args))
            return self._functions.call_function(node["value"], args)

        def text_size(self, name: str, args: list[Any]) -> int:
            """What `join` or `to_string` would build, known before it is built (JSON text of
            a value is about its weight); other functions build no new text."""
            if name == "join" and len(args) == 2 and isinstance(args[0], str) and isinstance(args[1], list):
                return len(args[0]) * max(len(args[1]) - 1, 0) + sum(len(item) for item in args[1] if isinstance(item, str))
            if name == "to_string" and len(args) == 1 and not isinstance(args[0], str):
                return self.weigh(args[0])
            return 0

        def charge(self, name: str, size: int) -> None:
            self.built += size
            if self.built > MAX_BUILT_BYTES:
                raise Invalid(
                    f"{self.where}: {name}() would build text past the budget of {MAX_BUILT_BYTES} bytes for one expression; "
                    "join or stringify fewer or smaller values.",
                    code="transform_too_costly",
                )

        def visit(self, node: Any, *args: Any, **kwargs: Any) -> Any:
            result = super().visit(node, *args, **kwargs)
            if self.weigh(result) > MAX_VALUE_BYTES:
                raise Invalid(
                    f"{self.where}: the expression builds a value of more than {MAX_VALUE_BYTES} bytes of JSON; "
                    "select fewer fields or items instead of repeating them.",
                    code="transform_too_costly",
                )
            if time.monotonic() > self.deadline:
                raise Invalid(f"{self.where}: the expression ran longer than {MAX_SECONDS:g} s; simplify it.", code="transform_too_costly")
            return result

        def weigh(self, value: Any) -> int:
            if isinstance(value, str):
                return len(value) + 2
            if not isinstance(value, dict | list):
                return 5
            known = self.weights.get(id(value))
            if known is not None:
                return known[0]
            if isinstance(value, dict):
                weight = 2 + sum(len(key) + 3 + self.weigh(item) for key, item in value.items())
            else:
                weight = 2 + sum(self.weigh(item) + 1 for item in value)
            self.weights[id(value)] = (weight, value)
            return weight

    return Bounded


# Nodes whose first child is evaluated against the current value and the others against its result.
_CHAINS = {"subexpression", "index_expression", "projection", "value_projection", "filter_projection", "pipe", "flatten"}


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
