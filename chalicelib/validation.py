"""Argument validation against each operation's JSON Schema, and query-string decoding.

Every violation is reported at once, each with its path (`contact.emails[0].address`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from chalicelib.errors import Invalid
from chalicelib.registry import Operation


@functools.cache
def _validator(op_name: str) -> Any:
    from jsonschema import Draft7Validator  # imported on first use: keeps cold start small

    from chalicelib.registry import REGISTRY

    schema = as_json_schema(REGISTRY[op_name].args)
    return Draft7Validator(schema, format_checker=Draft7Validator.FORMAT_CHECKER)


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


def _message(error: Any) -> str:
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown field(s)")
    if error.validator == "minProperties" and error.validator_value == 2:
        return "Update mode needs the id (or alias) and at least one field to change"
    return str(error.message)


def describe_errors(errors: Any) -> list[dict[str, str]]:
    """jsonschema's errors as `{"path", "message"}`, in path order."""
    ordered = sorted(errors, key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [{"path": _path(e.absolute_path) or "(arguments)", "message": _message(e)} for e in ordered]


def validate(op: Operation, args: dict[str, Any]) -> None:
    found = describe_errors(_validator(op.name).iter_errors(args))
    if found:
        summary = "; ".join(f"{f['path']}: {f['message']}" for f in found[:5])
        raise Invalid(f"Invalid arguments for {op.name}: {summary}", code="validation_failed", errors=found)


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
