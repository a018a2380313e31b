"""Argument validation against each operation's JSON Schema, and query-string decoding.

Every violation is reported at once, each with its path (`contact.emails[0].address`), up to
MAX_ERRORS of them: a body of 5,000 bad items would otherwise cost a second in building errors
(jsonschema's error objects are the expensive part) to answer with more than anyone reads.

Validation costs at most linear time in the body: a string's pattern and format run only
when the string kept within its own maxLength (a pattern on a string ten times too long is
never run; the length is the error), and an array's uniqueness is checked by hashing, only
when it kept within its maxItems (jsonschema compares pairs, quadratic in the count)."""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from chalicelib import error_codes as codes
from chalicelib.errors import Invalid
from chalicelib.registry import Operation
from chalicelib.schemas import MULTI_LINE, ONE_LINE, ONLY_ID_AND_VERSION


def _within_length(instance: Any, schema: dict[str, Any]) -> bool:
    return not isinstance(instance, str) or len(instance) <= schema.get("maxLength", len(instance))


def _unique_by_hashing(validator: Any, unique: bool, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    from jsonschema import ValidationError  # cold start: jsonschema (~30 ms) loads on the first validation

    if not unique or not validator.is_type(instance, "array") or len(instance) > schema.get("maxItems", len(instance)):
        return
    seen: dict[str, int] = {}
    for index, item in enumerate(instance):
        first = seen.setdefault(json.dumps(item, sort_keys=True), index)
        if first != index:
            yield ValidationError(f"repeats item {first}; the items must be unique", path=[index])


@functools.lru_cache(maxsize=256)
def _ecma_pattern(pattern: str) -> re.Pattern[str]:
    """A schema pattern as ECMA-262 reads it, which JSON Schema specifies: a final `$` is the
    end of the text. Python's `$` also matches before a final line break, so "name\\n" passed
    `^[^\\x00-\\x1f]*$`; `\\Z` is the end alone."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _ecma_pattern_check(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    """jsonschema's `pattern` keyword with the pattern read as ECMA-262 reads it."""
    from jsonschema import ValidationError  # cold start: jsonschema loads on the first validation

    if validator.is_type(instance, "string") and not _ecma_pattern(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


_VALIDATOR: list[Any] = []


def _validator_class() -> Any:
    """Draft 7 with patterns (as ECMA-262 reads them) and formats run only within the length,
    uniqueness by hashing."""
    if not _VALIDATOR:
        from jsonschema import (  # cold start: jsonschema (~30 ms) loads on the first validation
            Draft7Validator,
            validators,
        )

        def bounded(check: Any) -> Any:
            def run(validator: Any, value: Any, instance: Any, schema: dict[str, Any]) -> Any:
                return check(validator, value, instance, schema) if _within_length(instance, schema) else iter(())

            return run

        keywords = {
            "pattern": bounded(_ecma_pattern_check),
            "format": bounded(Draft7Validator.VALIDATORS["format"]),
            "uniqueItems": _unique_by_hashing,
        }
        _VALIDATOR.append(validators.extend(Draft7Validator, keywords))
    return _VALIDATOR[0]


StandIn = Callable[[Any], bool]


@functools.cache
def _validator_class_with(stand_in: StandIn) -> Any:
    """The validator class, where a value `stand_in` accepts passes every keyword at its
    position: it stands for a value computed later (a pipeline's `{"$expr": ...}`), which is
    validated once it is known. Everything around it is checked as usual."""
    from jsonschema import validators  # cold start: jsonschema loads on the first validation

    base = _validator_class()

    def passing(check: Any) -> Any:
        def run(validator: Any, value: Any, instance: Any, schema: dict[str, Any]) -> Any:
            return iter(()) if stand_in(instance) else check(validator, value, instance, schema)

        return run

    return validators.extend(base, {keyword: passing(check) for keyword, check in base.VALIDATORS.items()})


_VALIDATORS: dict[tuple[str, StandIn | None], Any] = {}


def find_errors(
    key: str, schema: dict[str, Any], args: Any, *, stand_in: StandIn | None = None, limit: int | None = None
) -> list[dict[str, str]]:
    """Every violation of `schema` (its validator cached under `key`) as `{"path", "message"}`,
    in path order, up to `limit` (MAX_ERRORS); with `stand_in`, values it accepts pass for any value."""
    if (key, stand_in) not in _VALIDATORS:
        cls = _validator_class() if stand_in is None else _validator_class_with(stand_in)
        _VALIDATORS[key, stand_in] = cls(as_json_schema(schema), format_checker=cls.FORMAT_CHECKER)
    return describe_errors(_VALIDATORS[key, stand_in].iter_errors(args), limit or MAX_ERRORS)


def as_json_schema(schema: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` in JSON Schema terms: null becomes an allowed type."""
    if isinstance(schema, list):
        return [as_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: as_json_schema(value) for key, value in schema.items() if key != "nullable"}
    if schema.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
    return out


def _path(parts: Any) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_MAX_MESSAGE = 300  # jsonschema quotes the offending value, which may be a huge string or array


def _message(error: Any) -> str:
    kind, limit, value = error.validator, error.validator_value, error.instance
    if kind == "additionalProperties":
        message = error.message.replace("Additional properties are not allowed", "unknown field(s)")
    elif (kind == "minProperties" and limit == 2) or (kind == "not" and limit == ONLY_ID_AND_VERSION):
        message = "Update mode needs the id (or alias) and at least one field to change (`version` is no field)"
    elif kind in ("maxItems", "minItems") and isinstance(value, list):
        message = f"has {len(value)} item(s); {'at most' if kind == 'maxItems' else 'at least'} {limit} allowed"
    elif kind == "pattern" and limit == ONE_LINE:
        message = "holds a control character (ESC, NUL, TAB, a line break, ...); this field takes one line of text"
    elif kind == "pattern" and limit == MULTI_LINE:
        message = "holds a control character (ESC, NUL, ...); TAB and line breaks are the only ones allowed"
    elif kind == "oneOf" and all(set(branch) == {"required"} for branch in limit):
        # exactly one of some arguments (audit.revert: auditRecord or filter)
        names = " and ".join(name for branch in limit for name in branch["required"])
        message = f"exactly one of {names}"
    elif kind in ("maxLength", "minLength") and isinstance(value, str):
        message = f"is {len(value)} characters long; {'at most' if kind == 'maxLength' else 'at least'} {limit} allowed"
    else:
        message = str(error.message)
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 1] + "…"


MAX_ERRORS = 100


def describe_errors(errors: Any, limit: int = MAX_ERRORS) -> list[dict[str, str]]:
    """jsonschema's errors as `{"path", "message"}`, in path order: the first `limit` in the
    body's order (iter_errors is lazy, so the rest are never built). A missing property is
    reported at its own path (`unit.objectId: required`), where a client looks for it."""
    found = []
    for error in itertools.islice(errors, limit):
        parts = list(error.absolute_path)
        message = _message(error)
        if error.validator == "required":
            missing = next((name for name in error.validator_value if error.message.startswith(f"{name!r} ")), None)
            if missing is not None:
                parts, message = [*parts, missing], "required"
        found.append({"path": _path(parts) or "(arguments)", "message": message})
    return sorted(found, key=lambda f: (f["path"], f["message"]))


def validate(op: Operation, args: dict[str, Any], *, stand_in: StandIn | None = None) -> None:
    """The arguments against the operation's schema (400 naming each violation); with
    `stand_in`, values it accepts pass for any value (see _validator_class_with)."""
    found = find_errors(op.name, op.checked_args, args, stand_in=stand_in)
    if found:
        summary = "; ".join(f"{f['path']}: {f['message']}" for f in found[:5])
        raise Invalid(f"Invalid arguments for {op.name}: {summary}", code=codes.VALIDATION_FAILED, errors=found)


def decode_query(op: Operation, params: Mapping[str, list[str]]) -> dict[str, Any]:
    """Query-string values to typed arguments: arrays from repeated keys, integers,
    booleans as true/false. Unknown names and repeats of single values are errors."""
    props = op.args.get("properties", {})
    args: dict[str, Any] = {}
    errors = []
    for name, values in params.items():
        schema = props.get(name)
        if schema is None:
            errors.append({"path": name, "message": "unknown argument"})
            continue
        kind = schema.get("type")
        if kind == "array":
            item_kind = schema.get("items", {}).get("type", "string")
            decoded = [_scalar(item_kind, v, name, errors) for v in values]
            args[name] = decoded
            continue
        if len(values) > 1:
            errors.append({"path": name, "message": "given more than once"})
            continue
        args[name] = _scalar(kind, values[0], name, errors)
    if errors:
        raise Invalid(
            "Invalid query string: " + "; ".join(f"{e['path']}: {e['message']}" for e in errors),
            code=codes.VALIDATION_FAILED,
            errors=errors,
        )
    return args


def _scalar(kind: str | None, raw: str, name: str, errors: list[dict[str, str]]) -> Any:
    if "\ufffd" in raw:  # what the query-string decoder puts where percent-escapes were not UTF-8
        errors.append({"path": name, "message": "is not valid UTF-8 text (percent-escapes must encode UTF-8)"})
        return None
    if kind == "integer":
        try:
            return int(raw)
        except ValueError:
            errors.append({"path": name, "message": f"{raw!r} is not an integer"})
            return None
    if kind == "boolean":
        if raw in ("true", "false"):
            return raw == "true"
        errors.append({"path": name, "message": f"{raw!r} is not a boolean (true or false)"})
        return None
    return raw
