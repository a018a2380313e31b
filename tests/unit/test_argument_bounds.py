"""What validating one request may cost (issue 16, finding 1): every argument has a bound
(length, item count, closed objects), every schema pattern runs in linear time, and the
bounds are checked before any pattern or uniqueness check.

The pattern scan is a cost test, not a timing benchmark: a linear pattern answers a 20,000-
character string in well under a millisecond, a quadratic one in seconds."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

import chalicelib.resources  # noqa: F401 - registers every operation
from chalicelib import registry
from chalicelib.errors import Invalid
from chalicelib.mcp import meta
from chalicelib.validation import find_errors, validate

try:  # Python 3.11 names the parser sre_parse; 3.12 re._parser
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import sre_parse  # type: ignore[no-redef]


def _schemas() -> Iterator[tuple[str, dict[str, Any]]]:
    for op in registry.REGISTRY.values():
        yield op.name, op.args
    for tool in meta.META_TOOLS.values():
        yield tool.name, tool.input_schema


def _walk(schema: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if not isinstance(schema, dict):
        return
    yield path, schema
    for name, sub in schema.get("properties", {}).items():
        yield from _walk(sub, f"{path}.{name}")
    yield from _walk(schema.get("items"), f"{path}[]")


def _all_subschemas() -> Iterator[tuple[str, dict[str, Any]]]:
    for name, schema in _schemas():
        yield from _walk(schema, name)


def test_every_argument_is_bounded() -> None:
    """A string has a maximum length (or is one of an enum), an array a maximum count, an
    object no room for unknown members: what a request can carry is what the schema says."""
    unbounded = []
    for path, schema in _all_subschemas():
        kind = schema.get("type")
        if kind == "string" and "maxLength" not in schema and "enum" not in schema:
            unbounded.append(f"{path}: string without maxLength")
        elif kind == "array" and "maxItems" not in schema:
            unbounded.append(f"{path}: array without maxItems")
        elif kind == "object" and schema.get("additionalProperties") is not False and "maxProperties" not in schema:
            unbounded.append(f"{path}: open object without maxProperties")
        elif kind is None and "enum" not in schema:
            unbounded.append(f"{path}: no type")
    assert unbounded == []


def _patterns() -> dict[str, str]:
    found: dict[str, str] = {}
    for path, schema in _all_subschemas():
        if "pattern" in schema:
            found.setdefault(schema["pattern"], path)
    return found


def _nested_unbounded_repeat(pattern: str) -> bool:
    """An unbounded repeat inside another repeat (`(a+)+`, `(\\w*\\.)*`): the classic
    exponential shape."""

    def walk(items: Any, inside_repeat: bool) -> bool:
        for op, arg in items:
            if op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT):
                _, high, sub = arg
                unbounded = high == sre_parse.MAXREPEAT
                if unbounded and inside_repeat:
                    return True
                if walk(sub, inside_repeat or unbounded):
                    return True
            elif op == sre_parse.SUBPATTERN:
                if walk(arg[-1], inside_repeat):
                    return True
            elif op == sre_parse.BRANCH:
                if any(walk(branch, inside_repeat) for branch in arg[1]):
                    return True
        return False

    return walk(sre_parse.parse(pattern), False)


_STRESS_LENGTH = 20_000


def _stress_strings(pattern: str) -> Iterator[str]:
    """Long runs of every character the pattern names (and a few common ones), between the
    prefixes and endings that make a backtracking matcher retry: `a@` + `.` * n + `@` is the
    e-mail pattern's worst case the security review found."""
    named = {char for char in pattern if char.isprintable()} | set("aA0 .@-_+/\t")
    for char in sorted(named):
        for prefix in ("", "a", "a@", "0", "+", "A0"):
            for ending in ("", "@", "\x00", " ", "!"):
                yield prefix + char * _STRESS_LENGTH + ending


_TOO_SLOW = 0.25  # seconds of CPU for one search of a 20,000-character string


def slowest_match(pattern: str) -> tuple[float, str]:
    """The slowest search over the stress strings (the first one found too slow), in CPU time of
    this thread: a search holds the GIL, and the test workers beside it on two cores do not count."""
    compiled = re.compile(pattern)
    slowest = (0.0, "")
    for text in _stress_strings(pattern):
        started = time.thread_time()
        compiled.search(text)  # jsonschema's `pattern` is re.search
        slowest = max(slowest, (time.thread_time() - started, text[:8] + "…" + text[-2:]))
        if slowest[0] > _TOO_SLOW:
            break
    return slowest


@pytest.mark.parametrize("pattern", sorted(_patterns()))
def test_every_schema_pattern_is_linear(pattern: str) -> None:
    assert not _nested_unbounded_repeat(pattern), f"nested unbounded repeat in {pattern!r} (at {_patterns()[pattern]})"
    seconds, text = slowest_match(pattern)
    assert seconds < _TOO_SLOW, (
        f"{pattern!r} ({_patterns()[pattern]}) took {seconds:.2f} s on {text!r} of {_STRESS_LENGTH} characters"
    )


def test_the_pattern_scan_finds_the_quadratic_email_pattern() -> None:
    """The scan can fail: the e-mail pattern the security review found quadratic is caught."""
    seconds, _ = slowest_match(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
    assert seconds > _TOO_SLOW
    assert _nested_unbounded_repeat(r"^(\w+\.)+$")


def test_lengths_are_checked_before_patterns() -> None:
    """The quadratic e-mail of the review, a megabyte long: refused for its length alone,
    the pattern never run (it would take hours)."""
    signup = registry.REGISTRY["signup"]
    args = {"companyName": "Hausverwaltung Beispiel", "email": "a@" + "." * 1_000_000 + "@", "agentName": "setup"}
    with pytest.raises(Invalid) as refused:
        validate(signup, args)
    assert refused.value.errors == [{"path": "email", "message": "is 1000003 characters long; at most 254 allowed"}]


def test_unique_items_are_checked_by_hashing() -> None:
    schema = {
        "type": "object",
        "properties": {
            "ids": {
                "type": "array",
                "items": {"type": "string", "maxLength": 10},
                "maxItems": 100_000,
                "uniqueItems": True,
            }
        },
    }
    many = [f"id{n}" for n in range(10_000)]
    assert find_errors("test:unique", schema, {"ids": many}) == []
    assert find_errors("test:unique", schema, {"ids": [*many, "id7"]}) == [
        {"path": "ids[10000]", "message": "repeats item 7; the items must be unique"}
    ]


def test_a_field_named_like_a_keyword_is_kept() -> None:
    """Only keywords are split between the passes: a property called `pattern` or `format` stays."""
    schema = {
        "type": "object",
        "properties": {"format": {"type": "string", "maxLength": 3, "pattern": "^[a-z]+$"}},
        "additionalProperties": False,
    }
    assert (
        find_errors("test:keyword-names", schema, {"format": "abcd"})[0]["message"]
        == "is 4 characters long; at most 3 allowed"
    )
    assert "does not match" in find_errors("test:keyword-names", schema, {"format": "AB"})[0]["message"]


def _refuses(schema: dict[str, Any], value: str) -> bool:
    return bool(find_errors(f"test:{schema}", {"type": "object", "properties": {"v": schema}}, {"v": value}))


def test_every_text_argument_refuses_control_characters() -> None:
    """Names, titles, ids and references refuse ESC and line breaks; multi-line text keeps
    TAB and line breaks and refuses the rest. File names are cleaned instead (documented),
    base64 content is refused by decoding."""
    accepting = []
    for path, schema in _all_subschemas():
        if (
            schema.get("type") != "string"
            or "enum" in schema
            or schema.get("format") == "byte"
            or path.endswith(".fileName")
        ):
            continue
        sample = "a\x1b" if schema.get("maxLength", 2) >= 2 else "\x1b"
        if not _refuses(schema, sample) or not _refuses(schema, sample.replace("\x1b", "\u009b")):
            accepting.append(path)
    assert accepting == []


def test_one_line_and_multi_line_text() -> None:
    from chalicelib import schemas as s

    name, notes = s.string("A name."), s.text("Notes.")
    assert _refuses(name, "Hausverwaltung\x1b[2J") and _refuses(name, "line\nbreak") and _refuses(name, "tab\there")
    assert not _refuses(name, "Müller & Söhne GmbH, Straße 1 — 😀")
    assert _refuses(notes, "bell\x07") and not _refuses(notes, "first line\r\nsecond\tline")
    # a final line break too: Python's `$` matches before it, JSON Schema's (ECMA-262) does not
    assert _refuses(name, "Hausverwaltung\n") and _refuses(name, "\n") and not _refuses(notes, "Notiz\n")
    errors = find_errors(
        "test:one-line", {"type": "object", "properties": {"companyName": name}}, {"companyName": "x\x1b[31m"}
    )
    assert errors == [
        {
            "path": "companyName",
            "message": "holds a control character (ESC, NUL, TAB, a line break, ...); "
            "this field takes one line of text",
        }
    ]


def test_errors_stop_at_the_cap() -> None:
    """5,000 bad items build 100 errors, not 5,000 (each of jsonschema's errors is costly)."""
    from chalicelib import schemas as s
    from chalicelib.validation import MAX_ERRORS

    schema = {
        "type": "object",
        "properties": {"names": s.array(s.string("A name.", max_length=5), "Names.", max_items=10_000)},
    }
    errors = find_errors("test:error-cap", schema, {"names": ["far too long"] * 5_000})
    assert len(errors) == MAX_ERRORS and errors[0]["path"] == "names[0]"


# Formats a generator must satisfy beside a pattern: their own lengths are not the pattern's
# (chalicelib/schemas.py email says what they cost schemathesis). Dates agree with theirs; the
# check-digit formats (iban, bic, sepa-creditor-id) come with strategies of the tests' own.
AGREEING_FORMATS = frozenset({"date", "iban", "bic", "sepa-creditor-id"})


def test_no_pattern_carries_a_format_whose_lengths_differ() -> None:
    clashing = [
        f"{where}: {schema['format']}"
        for where, schema in _all_subschemas()
        if "pattern" in schema and schema.get("format") not in (None, *AGREEING_FORMATS)
    ]
    assert clashing == []
