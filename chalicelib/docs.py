"""Markdown documentation of an operation, composed from its registry entry: the prose
the resource module wrote, plus arguments, result, scope and errors derived from the
schemas, so the docs cannot drift from the behaviour."""

from __future__ import annotations

import json
from typing import Any

from chalicelib import error_codes as codes
from chalicelib import relative_time
from chalicelib.entities import ref_types
from chalicelib.registry import DocumentedError, Operation
from chalicelib.schemas import label_of, value_label


def _type_of(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "any")
    if "x-ref" in schema:
        return "ref → " + " \\| ".join(ref_types(schema["x-ref"]))
    if kind == "array":
        return f"array of {_type_of(schema.get('items', {}))}"
    if "enum" in schema:
        return " \\| ".join(_enum_value(schema, value) for value in schema["enum"])
    if schema.get("format"):
        return f"{kind} ({schema['format']})"
    return str(kind)


def _enum_value(schema: dict[str, Any], value: Any) -> str:
    """An enum value with its words where the schema gives them: "`natural` (Natürliche Person /
    Natural person)"; a code (`EUR`) or an operation's own value as it is."""
    german, english = value_label(schema, value, "de"), value_label(schema, value, "en")
    if not german or not english:
        return f"`{value}`"
    return f"`{value}` ({_both(german, english)})"


def _both(german: str, english: str) -> str:
    """German and English for a Markdown table cell: once where they are the same."""
    shown = german if german == english else f"{german} / {english}"
    return shown.replace("|", "\\|").replace("\n", " ")


def _label(schema: dict[str, Any]) -> str:
    """A field's label in German and English (its schema's x-label: "Nachname / Last name"), or
    "" for a field without one (an operation's own argument)."""
    german, english = label_of(schema, "de"), label_of(schema, "en")
    return _both(german, english) if german and english else ""


def fields_table(schema: dict[str, Any], prefix: str = "") -> list[str]:
    """One row per field, nested objects flattened with dotted names, each with its label in
    German and English where the schema gives one."""
    rows = []
    required = set(schema.get("required", []))
    for name, sub in schema.get("properties", {}).items():
        full = f"{prefix}{name}"
        flag = "yes" if name in required else ""
        description = sub.get("description", "").replace("|", "\\|").replace("\n", " ")
        rows.append(f"| `{full}` | {_label(sub)} | {_type_of(sub)} | {flag} | {description} |")
        if sub.get("type") == "object":
            rows.extend(fields_table(sub, f"{full}."))
        elif sub.get("type") == "array" and sub.get("items", {}).get("type") == "object":
            rows.extend(fields_table(sub["items"], f"{full}[]."))
    return rows


def error_line(documented: DocumentedError) -> str:
    """The docs line `- <status> `<code>`: <meaning>`: status and meaning from the table
    (error_codes.py), the meaning in the operation's own words where it gives them."""
    entry, meaning = documented if isinstance(documented, tuple) else (documented, documented.meaning)
    if entry.status is None:
        raise ValueError(f"{entry.code} is no HTTP answer; it cannot be documented as an operation's error")
    return f"- {entry.status} `{entry.code}`: {meaning}"


def _errors(op: Operation) -> list[str]:
    lines = [error_line(codes.VALIDATION_FAILED)]
    if op.authenticated:
        # missing_key, invalid_key, key_disabled, key_expired, integration_disabled: one line for all
        lines.append(f"- {codes.INVALID_KEY.status}: no key, or an unknown, disabled or expired key.")
        lines.append(
            error_line(
                (codes.MISSING_SCOPE, "the key lacks " + " and ".join(f"`{s}`" for s in op.required_scopes) + ".")
            )
        )
    if _has_refs(op.args):
        lines.append(error_line(codes.NOT_FOUND))
    if op.refused_to_object_keys:
        lines.append(
            error_line((codes.OUTSIDE_KEY_OBJECTS, "the key is limited to objects: " + op.refused_to_object_keys))
        )
    elif op.authenticated and op.kind == "command":
        lines.append(error_line(codes.OUTSIDE_KEY_OBJECTS))
    lines.extend(error_line(documented) for documented in op.errors)
    return lines


def _has_refs(schema: dict[str, Any]) -> bool:
    return "x-ref" in json.dumps(schema)


def example_request(op: Operation) -> str:
    example = op.example or {}
    if op.kind == "query":
        pairs = [f"{k}={v}" for k, vs in example.items() for v in (vs if isinstance(vs, list) else [vs])]
        query = ("?" + "&".join(pairs)) if pairs else ""
        return f"```http\nGET {op.path}{query}\nAuthorization: Bearer <API key>\n```"
    body = json.dumps(example, indent=2, ensure_ascii=False)
    auth = "Authorization: Bearer <API key>\n" if op.authenticated else ""
    return f"```http\nPOST {op.path}\n{auth}Content-Type: application/json\n\n{body}\n```"


def _relative_time_note(example: dict[str, Any]) -> list[str]:
    """A time in words (`<1 day ago>`, chalicelib/relative_time.py) is read as such: the example
    stays valid whenever it is run, where a fixed date fell out of a time window."""
    if json.dumps(example) == json.dumps(relative_time.resolve(example)):
        return []
    return ["", "A time in angle brackets (`<1 day ago>`) stands for that time as ISO 8601 when you send it."]


_SAMPLE_TIME = "2026-01-15T09:30:00.000Z"


def sample(schema: dict[str, Any], name: str, given: Any = None) -> Any:
    """An example value for a schema: the request's own value where it gives one of the
    right shape, else a placeholder of the right type."""
    kind = schema.get("type")
    if given is not None and not isinstance(given, str | dict | list) and kind in ("integer", "number", "boolean"):
        return given
    if kind == "object":
        props = schema.get("properties", {})
        known = given if isinstance(given, dict) else {}
        keys = [k for k in props if k in schema.get("required", []) or k in known]
        return {k: sample(props[k], k, known.get(k)) for k in keys}
    if kind == "array":
        items = schema.get("items", {})
        if isinstance(given, list) and given:
            return [sample(items, name, item) for item in given]
        return [sample(items, name)] if items.get("type") == "object" else []
    if isinstance(given, str) and kind == "string" and "x-ref" not in schema and not given.startswith("<"):
        return given
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "integer":
        return 1 if name in ("version", "total", "limit") else schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if schema.get("format") == "date":
        return "2026-01-15"
    if schema.get("format") == "date-time":
        return _SAMPLE_TIME
    if "x-ref" in schema:
        return f"<{ref_types(schema['x-ref'])[0]} id>"
    if name == "id":
        return "<id>"
    if "pattern" in schema and "\\d" in schema["pattern"]:
        return "100.00"
    return f"<{name}>"


def render(op: Operation) -> str:
    where = f"`{op.method} {op.path}`"
    parts = [f"# {op.name}", "", op.summary, "", where, "", op.docs.strip(), "", "## Arguments", ""]
    rows = fields_table(op.args)
    if rows:
        parts += ["| name | label | type | required | description |", "|---|---|---|---|---|", *rows]
    else:
        parts.append("None.")
    if op.kind == "query" and rows:
        parts += [
            "",
            "Query arguments travel in the query string; arrays as repeated keys, booleans as `true`/`false`.",
        ]
    elif rows:
        parts += ["", "Send the arguments as a JSON object in the body."]
    parts += [
        "",
        "## Result",
        "",
        "| field | label | type | required | description |",
        "|---|---|---|---|---|",
        *fields_table(op.result),
    ]
    if op.example is not None:
        parts += [
            "",
            "## Example",
            "",
            example_request(op),
            *_relative_time_note(op.example),
            "",
            "Answer (200, abridged to the fields the request names and the required ones):",
            "",
        ]
        parts += ["```json", json.dumps(sample(op.result, "result", op.example), indent=2, ensure_ascii=False), "```"]
    parts += ["", "## Access", "", op.scope_line() + (" Destructive." if op.destructive else "")]
    if op.weight_line():
        parts += ["", op.weight_line()]
    if op.secrets and op.authenticated:
        held = ", ".join(f"`{path}`" for path in op.secrets)
        parts += [
            "",
            f"A repeat with the same `Idempotency-Key` answers the first answer without {held}: "
            "the secret is shown once and never stored.",
        ]
    parts += ["", "## Errors", "", *_errors(op)]
    return "\n".join(parts) + "\n"
