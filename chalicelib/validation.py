"""Argument validation against each operation's JSON Schema, and query-string decoding.

Every violation is reported at once, each with its path (`contact.emails[0].address`).

Validation costs at most linear time in the body: a first pass checks types, lengths, item
counts and every other bound; patterns and formats run only on arguments that kept within
them (a pattern on a string ten times too long is never run), and uniqueness is checked by
hashing here, not by jsonschema's pairwise comparison."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from chalicelib.errors import Invalid
from chalicelib.registry import Operation
from chalicelib.schemas import MULTI_LINE, ONE_LINE

_LATE = frozenset({"pattern", "format", "uniqueItems"})  # run after the bounds held
_SUBSCHEMA = ("items", "additionalProperties")  # keywords whose value is one schema


def _keywords(schema: Any, keep: Any) -> Any:
    """`schema` with only the keywords `keep(name)` admits, at every level (property names
    are data, not keywords: a field called `format` stays)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for name, value in schema.items():
        if name == "properties":
            out[name] = {field: _keywords(sub, keep) for field, sub in value.items()}
        elif name in _SUBSCHEMA:
            out[name] = _keywords(value, keep)
        elif keep(name):
            out[name] = value
    return out


_PASSES: dict[str, tuple[Any, Any]] = {}


def _passes(key: str, schema: dict[str, Any]) -> tuple[Any, Any]:
    """The schema's two passes, built once per key: every bound and type, then patterns and formats."""
    if key not in _PASSES:
        from jsonschema import Draft7Validator  # imported on first use: keeps cold start small

        plain = as_json_schema(schema)
        bounds = Draft7Validator(_keywords(plain, lambda name: name not in _LATE))
        late = Draft7Validator(_keywords(plain, lambda name: name in _LATE - {"uniqueItems"}), format_checker=Draft7Validator.FORMAT_CHECKER)
        _PASSES[key] = (bounds, late)
    return _PASSES[key]


def find_errors(key: str, schema: dict[str, Any], args: dict[str, Any]) -> list[dict[str, str]]:
    """Every violation of `schema` (cached under `key`) as `{"path", "message"}`, in path order."""
    bounds, late = _passes(key, schema)
    found = describe_errors(bounds.iter_errors(args))
    if found:
        return found
    return sorted([*describe_errors(late.iter_errors(args)), *_duplicates(schema, args, "")], key=lambda f: (f["path"], f["message"]))


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
    elif kind == "minProperties" and limit == 2:
        message = "Update mode needs the id (or alias) and at least one field to change"
    elif kind in ("maxItems", "minItems") and isinstance(value, list):
        message = f"has {len(value)} item(s); {'at most' if kind == 'maxItems' else 'at least'} {limit} allowed"
    elif kind == "pattern" and limit == ONE_LINE:
        message = "holds a control character (ESC, NUL, TAB, a line break, ...); this field takes one line of text"
    elif kind == "pattern" and limit == MULTI_LINE:
        message = "holds a control character (ESC, NUL, ...); TAB and line breaks are the only ones allowed"
    elif kind in ("maxLength", "minLength") and isinstance(value, str):
        message = f"is {len(value)} characters long; {'at most' if kind == 'maxLength' else 'at least'} {limit} allowed"
    else:
        message = str(error.message)
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 1] + "…"


def describe_errors(errors: Any) -> list[dict[str, str]]:
    """jsonschema's errors as `{"path", "message"}`, in path order. A missing property is
    reported at its own path (`unit.objectId: required`), where a client looks for it."""
    found = []
    for error in errors:
        parts = list(error.absolute_path)
        message = _message(error)
        if error.validator == "required":
            missing = next((name for name in error.validator_value if error.message.startswith(f"{name!r} ")), None)
            if missing is not None:
                parts, message = [*parts, missing], "required"
        found.append({"path": _path(parts) or "(arguments)", "message": message})
    return sorted(found, key=lambda f: (f["path"], f["message"]))


def validate(op: Operation, args: dict[str, Any]) -> None:
    found = find_errors(op.name, op.args, args)
    if found:
        summary = "; ".join(f"{f['path']}: {f['message']}" for f in found[:5])
        raise Invalid(f"Invalid arguments for {op.name}: {summary}", code="validation_failed", errors=found)


def _duplicates(schema: Any, value: Any, path: str) -> Iterator[dict[str, str]]:
    """`uniqueItems` by hashing: one pass over each array, whatever its length."""
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                yield from _duplicates(sub, value[name], f"{path}.{name}" if path else name)
    elif isinstance(value, list):
        items = schema.get("items", {})
        seen: dict[str, int] = {}
        for i, item in enumerate(value):
            if schema.get("uniqueItems"):
                first = seen.setdefault(json.dumps(item, sort_keys=True), i)
                if first != i:
                    yield {"path": f"{path}[{i}]", "message": f"repeats item {first}; the items must be unique"}
            yield from _duplicates(items, item, f"{path}[{i}]")


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
        raise Invalid("Invalid query string: " + "; ".join(f"{e['path']}: {e['message']}" for e in errors), code="validation_failed", errors=errors)
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
