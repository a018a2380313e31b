"""JMESPath evaluations, bounded together per MCP request in what they build and in time,
and each value in its size.

A JMESPath expression has no loops, but it can still multiply its input: `{a: @, b: @}`
doubles it (by reference: cheap to build, not to write out), `[@, @][]` doubles it for real,
`reverse(@)` copies a string, `join` repeats its separator once per item, and forty of them
side by side outgrow any machine before the list that holds them is complete. And one
request can hold many expressions (a pipeline's `$expr`s and `transform`s).

So one Budget per MCP request (a tools/call; the Streamable HTTP transport takes one message
per POST), which every evaluation of that request draws on: each `$expr`, `transform` and
`_transform`. Its bounds are checked before the work they bound:

- Built (MAX_BUILT_BYTES, all evaluations of the request together): every list, object and
  string an evaluation makes is counted as it is made, in bytes of memory: a list or object
  BOX bytes (its header and its size record below), ITEM per list item, MEMBER per object
  member, text its characters times the bytes Python needs per character, a number NUMBER.
  Projections, multiselects and flatten count each item as they append it; functions (join,
  to_string, reverse, sort, merge, ...) are counted from their arguments before they run. So
  the request's evaluations never allocate past that budget, however their parts are combined.
- Weight (MAX_VALUE_BYTES, each value): a value's size as JSON text, escapes included, parts
  it shares counted each time they appear. It bounds what writing the value out costs
  (to_string, the answer), which references alone do not show: `{a: @, b: @}` forty times is
  a few objects in memory and a terabyte of JSON.

MAX_SECONDS (wall clock, all evaluations of the request together) then bounds the
comparisons and sorts that allocate nothing."""

from __future__ import annotations

import functools
import time
from typing import Any

from jmespath.visitor import TreeInterpreter

from chalicelib import error_codes as codes
from chalicelib.errors import Invalid

MAX_VALUE_BYTES = 8_000_000  # any one value, as JSON text
MAX_BUILT_BYTES = 8_000_000  # everything the evaluations of one MCP request build, as memory
MAX_SECONDS = 2.0  # the evaluations of one MCP request together, wall clock

BOX = 256  # a new list or object: its header, spare room, and its entry in the weight record
ITEM = 8  # a list item (a reference)
MEMBER = 48  # an object member (hash, key and value references, index)
NUMBER = 32  # a number or other small result of a function
SHORT_STRING = 256  # longer strings have their weight recorded, not recomputed per reference

_ESCAPED_SHORT = '"\\\b\f\n\r\t'  # JSON writes these as two characters
_ESCAPED_LONG = "".join(chr(c) for c in [*range(32), 127] if chr(c) not in _ESCAPED_SHORT)  # as \u00XX


def text_weight(text: str) -> int:
    """Characters of `text` as JSON with ASCII escapes (to_string's form, and an upper bound of
    the answer's): quotes and backslashes double, control characters take six, other
    non-ASCII characters six, those beyond the BMP twelve (a surrogate pair)."""
    weight = len(text) + 2 + text.count('"') + text.count("\\")
    if text.isascii() and text.isprintable():
        return weight
    weight += sum(text.count(c) for c in "\b\f\n\r\t") + 5 * sum(text.count(c) for c in _ESCAPED_LONG)
    if not text.isascii():
        wide = len(text) - len(text.encode("ascii", "ignore"))
        beyond = len(text.encode("utf-16-le", "surrogatepass")) // 2 - len(text) if max(text) > "\uffff" else 0
        weight += 5 * wide + 6 * beyond
    return weight


_short_text_weight = functools.lru_cache(maxsize=4096)(text_weight)  # names and ids recur in every projection


def char_bytes(*texts: str) -> int:
    """Bytes per character of a string built from `texts` (Python stores 1, 2 or 4)."""
    widest = max((max(text) for text in texts if text and not text.isascii()), default="a")
    return 1 if widest < "\u0100" else 2 if widest < "\U00010000" else 4


def number_weight(value: Any) -> int:
    if isinstance(value, bool) or value is None:
        return 5
    if isinstance(value, int):
        return value.bit_length() // 3 + 2  # decimal digits and sign, from above
    return 24  # the longest repr of a float


class Budget:
    """What the JMESPath evaluations of one MCP request may spend together: seconds of
    evaluating and bytes of values built. The meta-tool that evaluates makes one for its call
    and hands it to every evaluation (transform.apply); the bounds are read when it is made."""

    def __init__(self) -> None:
        self.max_seconds, self.max_built = MAX_SECONDS, MAX_BUILT_BYTES
        self.seconds = 0.0  # spent evaluating so far
        self.built = 0  # bytes built so far
        self.evaluations = 0

    def evaluate(self, parsed: Any, data: Any, where: str) -> Any:
        """One evaluation of a compiled expression's tree over `data`, within what is left."""
        self.evaluations += 1
        started = time.monotonic()
        try:
            return interpreter()(where, self, started + self.max_seconds - self.seconds).visit(parsed, data)
        finally:
            self.seconds += time.monotonic() - started


@functools.cache
def interpreter() -> Any:
    """jmespath's TreeInterpreter that charges a Budget and watches the clock (built once)."""

    class Bounded(TreeInterpreter):  # type: ignore[misc]
        def __init__(self, where: str, budget: Budget, deadline: float) -> None:
            super().__init__()
            self.where, self.budget, self.deadline = where, budget, deadline
            self.weights: dict[
                int, tuple[int, Any]
            ] = {}  # id -> (weight, the value, kept alive so its id stays its own)

        # --- the budgets -------------------------------------------------------------

        def charge(self, size: int, what: str) -> None:
            self.budget.built += size
            if self.budget.built > self.budget.max_built:
                raise Invalid(
                    f"{self.where}: {what} would take this request's JMESPath evaluations past their budget of "
                    f"{self.budget.max_built} bytes of values built (all `$expr`, `transform` and `_transform` "
                    "of one request together); select fewer fields or items instead of repeating, "
                    "joining or stringifying them.",
                    code=codes.TRANSFORM_TOO_COSTLY,
                )

        def visit(self, node: Any, *args: Any, **kwargs: Any) -> Any:
            result = super().visit(node, *args, **kwargs)
            if self.weigh(result) > MAX_VALUE_BYTES:
                raise Invalid(
                    f"{self.where}: the expression builds a value past the budget of {MAX_VALUE_BYTES} bytes of JSON "
                    "for any one value; select fewer fields or items instead of repeating them.",
                    code=codes.TRANSFORM_TOO_COSTLY,
                )
            if time.monotonic() > self.deadline:
                raise Invalid(
                    f"{self.where}: this request's JMESPath evaluations ran longer than {self.budget.max_seconds:g} s "
                    "together; simplify them.",
                    code=codes.TRANSFORM_TOO_COSTLY,
                )
            return result

        def weigh(self, value: Any) -> int:
            if isinstance(value, str):
                if len(value) <= SHORT_STRING:
                    return _short_text_weight(value)
            elif not isinstance(value, dict | list):
                return number_weight(value)
            known = self.weights.get(id(value))
            if known is not None:
                return known[0]
            if isinstance(value, str):
                weight = text_weight(value)
            elif isinstance(value, dict):
                weight = 2 + sum(_short_text_weight(key) + 2 + self.weigh(item) for key, item in value.items())
            else:
                weight = 2 + sum(self.weigh(item) + 1 for item in value)
            self.weights[id(value)] = (weight, value)
            return weight

        # --- what the tree builds: counted item by item as it is built ----------------

        def collect(self, base: Any, child: Any, keep: Any = None) -> list[Any]:
            self.charge(BOX, "a projection")
            collected = []
            for element in base:
                if keep is not None and not self._is_true(self.visit(keep, element)):
                    continue
                current = self.visit(child, element)
                if current is not None:
                    self.charge(ITEM, "a projection")
                    collected.append(current)
            return collected

        def visit_projection(self, node: Any, value: Any) -> Any:
            base = self.visit(node["children"][0], value)
            return self.collect(base, node["children"][1]) if isinstance(base, list) else None

        def visit_value_projection(self, node: Any, value: Any) -> Any:
            base = self.visit(node["children"][0], value)
            return self.collect(base.values(), node["children"][1]) if isinstance(base, dict) else None

        def visit_filter_projection(self, node: Any, value: Any) -> Any:
            base = self.visit(node["children"][0], value)
            return self.collect(base, node["children"][1], keep=node["children"][2]) if isinstance(base, list) else None

        def visit_flatten(self, node: Any, value: Any) -> Any:
            base = self.visit(node["children"][0], value)
            if not isinstance(base, list):
                return None
            self.charge(BOX, "flattening")
            merged: list[Any] = []
            for element in base:
                part = element if isinstance(element, list) else [element]
                self.charge(ITEM * len(part), "flattening")
                merged.extend(part)
            return merged

        def visit_multi_select_list(self, node: Any, value: Any) -> Any:
            if value is None:
                return None
            self.charge(BOX, "a list [...]")
            collected = []
            for child in node["children"]:
                collected.append(self.visit(child, value))
                self.charge(ITEM, "a list [...]")
            return collected

        def visit_multi_select_dict(self, node: Any, value: Any) -> Any:
            if value is None:
                return None
            self.charge(BOX, "an object {...}")
            collected = {}
            for child in node["children"]:
                collected[child["value"]] = self.visit(child, value)
                self.charge(MEMBER, "an object {...}")
            return collected

        def visit_slice(self, node: Any, value: Any) -> Any:
            if not isinstance(value, list):
                return None
            part = slice(*node["children"])
            if part.step == 0:  # jmespath lets it through to Python, which raises ValueError
                raise Invalid(f"{self.where}: a slice's step cannot be 0.", code=codes.INVALID_TRANSFORM)
            self.charge(BOX + ITEM * len(range(len(value))[part]), "a slice")
            return value[part]

        # --- functions: counted from their arguments before they run ----------------------

        def visit_function_expression(self, node: Any, value: Any) -> Any:
            args = [self.visit(child, value) for child in node["children"]]
            name = node["value"]
            self.charge(self.cost(name, args), f"{name}()")
            return self._functions.call_function(name, args)

        def cost(self, name: str, args: list[Any]) -> int:
            """Bytes the function `name` allocates for its result; arguments of the wrong type
            cost nothing here (the function refuses them)."""
            first = args[0] if args else None
            if name == "join" and len(args) == 2 and isinstance(first, str) and isinstance(args[1], list):
                parts = [item for item in args[1] if isinstance(item, str)]
                chars = len(first) * max(len(args[1]) - 1, 0) + sum(len(part) for part in parts)
                return chars * char_bytes(first, *parts)
            if name == "to_string":
                return 0 if isinstance(first, str) else self.weigh(first)  # written in ASCII: a byte a character
            if name == "reverse" and isinstance(first, str):
                return len(first) * char_bytes(first)
            if name in ("sort", "sort_by"):  # the result, sorted's work space, sort_by's keys
                return BOX + ITEM * (3 if name == "sort_by" else 2) * len(first) if isinstance(first, list) else 0
            if name in ("reverse", "map") and len(args) and isinstance(args[-1], list):
                return BOX + ITEM * len(args[-1])
            if name in ("keys", "values") and isinstance(first, dict):
                return BOX + ITEM * len(first)
            if name == "merge":
                return BOX + MEMBER * sum(len(arg) for arg in args if isinstance(arg, dict))
            if name == "to_array":
                return 0 if isinstance(first, list) else BOX + ITEM
            return NUMBER

    return Bounded
