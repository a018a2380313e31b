"""The OpenAPI 3.0 document of the operations one key may call, derived from the registry.

Written for the tools that read it (client generators, schemathesis) as well as for people:
- each operation's example (the registry's) is its `example` (a body's, or each query
  parameter's), with relative times (`<1 day ago>`, relative_time.py) resolved when the document is
  built and references left out (an id or alias names nothing in the caller's tenant; a tool that
  completes an example fills them, and the links below hand them out);
- a value from a list the service knows (an entity type, an event type: schemas.VALUES) is an
  `enum`; a code read in words (x-enum-labels) without one, too;
- `Idempotency-Key` states the characters it takes;
- an upsert's items are checked one by one (registry.ITEMS_CHECKED_ALONE): the body takes any
  object as an item, and the 200 answer says per item what became of it (`failed` with its
  code), as its description says;
- links (OpenAPI 3.0 `links`) lead from each create to every operation that takes what it made
  (show, update, delete, ...), and from each delete to what takes the deleted entity (restore):
  a stateful tool walks create -> show -> update -> delete with the ids the service handed out."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from chalicelib import __version__, config, docs, relative_time
from chalicelib.auth import allows
from chalicelib.entities import ENTITY_TYPES, ref_types
from chalicelib.paths import V2
from chalicelib.registry import REGISTRY, Operation
from chalicelib.schemas import ENUM_LABELS, VALUE_LISTS, VALUES, form_json_parts
from chalicelib.scopes import KEY_SCOPES

# What an Idempotency-Key may hold (http.py checks it): printable ASCII, a visible character first
# and last (HTTP trims the spaces around a field value), at most 255 characters.
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$"
IDEMPOTENCY_KEY_MAX = 255

PROBLEM_SCHEMA = {
    "type": "object",
    "description": "RFC 9457 problem details.",
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string", "description": "Stable snake_case error code."},
        "requestId": {"type": "string"},
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "message": {"type": "string"}},
                "required": ["path", "message"],
            },
        },
    },
    "required": ["type", "title", "status", "detail", "code"],
}

_ERROR_STATUSES = {
    "400": "Invalid arguments or malformed JSON.",
    "401": "No valid API key.",
    "403": "The key lacks a needed scope, or the trial has ended.",
    "404": "Unknown operation or entity.",
    "405": "Wrong HTTP method.",
    "409": "Conflict: alias taken, stale version, merge into itself.",
    "413": "Body too large.",
    "429": "Throttled; see Retry-After.",
    "503": "A dependency is unavailable; see Retry-After.",
}


def _problem(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


def _operation(op: Operation) -> dict[str, Any]:
    args = _spec_schema(op.args)
    if op.items_checked_alone is not None:
        name = op.items_checked_alone
        array = args["properties"][name]
        array["items"] = {
            "anyOf": [
                array["items"],
                {
                    "type": "object",
                    "description": "Any other object: the call goes on, and the item's outcome in `results` is "
                    "`failed` with code `validation_failed` and its errors (paths within the item).",
                },
            ]
        }
    example = _example(op, args)
    entry: dict[str, Any] = {
        "operationId": op.name,
        "summary": op.summary,
        "description": docs.render(op),
        "tags": [op.scope.split(":", 1)[1] if ":" in op.scope else op.name.split(".")[0]],
        "x-scopes": list(op.required_scopes),
        "x-destructive": op.destructive,
        "responses": {
            "200": {"description": _success(op), "content": {"application/json": {"schema": _spec_schema(op.result)}}}
        },
    }
    entry["responses"].update({status: _problem(text) for status, text in _ERROR_STATUSES.items()})
    props = args.get("properties", {})
    required = set(args.get("required", []))
    if op.kind == "query":
        entry["parameters"] = [
            {
                "name": name,
                "in": "query",
                "required": name in required,
                "description": schema.get("description", ""),
                "schema": schema,
                **({"style": "form", "explode": True} if schema.get("type") == "array" else {}),
                **({"example": example[name]} if example is not None and name in example else {}),
                **({"deprecated": True} if schema.get("deprecated") else {}),  # e.g. exports.show's `id`
            }
            for name, schema in props.items()
        ]
    elif props:
        body: dict[str, Any] = {"schema": args, **({"example": example} if example else {})}
        # a body is required where the arguments ask for something: a required field, or one of several (oneOf)
        needed = bool(required) or bool(args.get("oneOf") or args.get("anyOf"))
        entry["requestBody"] = {"required": needed, "content": {"application/json": body}}
        if op.accepts_files:
            entry["requestBody"]["content"]["multipart/form-data"] = _form_schema(op)
    if op.idempotent or op.kind == "command":
        entry.setdefault("parameters", [])
    if op.kind == "command":
        entry["parameters"].append(
            {
                "name": "Idempotency-Key",
                "in": "header",
                "required": False,
                "description": (
                    "A repeat with the same key and body within 24 h returns the first answer and changes nothing;"
                    " while the first runs, a repeat is 409 idempotency_in_progress (Retry-After)."
                    f" Printable ASCII (no control characters, no other characters), 1 to {IDEMPOTENCY_KEY_MAX}"
                    " characters, beginning and ending with a visible one: a UUID serves; anything else is 400"
                    " invalid_idempotency_key."
                ),
                "schema": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": IDEMPOTENCY_KEY_MAX,
                    "pattern": IDEMPOTENCY_KEY_PATTERN,
                },
            }
        )
    return entry


def _oauth2() -> dict[str, Any]:
    """The OAuth authorization server (issue 35): authorization code with PKCE (S256), public
    clients; a token is a key of the approving company, with the scopes the person granted."""
    base = config.public_url()
    return {
        "type": "oauth2",
        "description": "Authorization code with PKCE (S256); public clients register at /register (RFC 7591). "
        "The token is an API key with the scopes the approving person granted.",
        "flows": {
            "authorizationCode": {
                "authorizationUrl": f"{base}/authorize",
                "tokenUrl": f"{base}/token",
                "refreshUrl": f"{base}/token",
                "scopes": {scope: f"the `{scope}` scope (docs/concepts/keys-and-scopes.md)" for scope in KEY_SCOPES},
            }
        },
    }


def build(scopes: frozenset[str], *, object_limited: bool = False) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    listed = [
        op
        for op in sorted(REGISTRY.values(), key=lambda o: o.name)
        if op.surface == "v2" and allows(scopes, op, object_limited=object_limited)
    ]
    for op in listed:
        paths[op.path] = {op.method.lower(): _operation(op)}
    for op in listed:
        links = _links(op, listed)
        if links:
            paths[op.path][op.method.lower()]["responses"]["200"]["links"] = links
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Property Management API",
            "version": __version__,
            "description": f"Queries are GET {V2}/query/<name>, commands POST {V2}/command/<name>. "
            "This document lists only the operations the calling key may use.",
        },
        "servers": [{"url": "/"}],
        "security": [{"bearerAuth": []}, {"oauth2": []}],
        "components": {
            "securitySchemes": {
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "API key: pm_live_... or pm_test_...",
                },
                "oauth2": _oauth2(),
            },
            "schemas": {"Problem": PROBLEM_SCHEMA},
        },
        "paths": paths,
    }


def _form_schema(op: Operation) -> dict[str, Any]:
    """The multipart form of an upload: the file in `resource`, an object (or array) argument as a
    part of JSON (its schema, with the part's encoding application/json), any other as text; no other part
    (uploads/form.py refuses an unknown one)."""
    props: dict[str, Any] = {}
    encoding: dict[str, Any] = {}
    in_json = form_json_parts(op.args)
    for name, schema in _spec_schema(op.args)["properties"].items():
        if name == "resource":
            props[name] = {
                "type": "string",
                "format": "binary",
                "description": "The file, not empty (an empty one is refused: 400 `empty_file`).",
            }
        elif name in in_json:
            props[name] = {**schema, "description": schema.get("description", "") + " As a part of JSON."}
            encoding[name] = {"contentType": "application/json"}
        else:
            props[name] = schema
    fields = {
        "type": "object",
        "properties": props,
        "required": op.args.get("required", []),
        "additionalProperties": False,
    }
    return {"schema": fields, **({"encoding": encoding} if encoding else {})}


def _spec_schema(schema: Any) -> Any:
    """A registry schema as the document states it (a copy): a value from a list the service
    knows (schemas.VALUES), or a code read in words (x-enum-labels) with no enum, is an enum."""
    if isinstance(schema, list):
        return [_spec_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _spec_schema(value) for key, value in schema.items()}
    if VALUES in out and "enum" not in out:
        out["enum"] = VALUE_LISTS[out[VALUES]]()
    elif ENUM_LABELS in out and "enum" not in out and out.get("type") == "string":
        out["enum"] = list(out[ENUM_LABELS])
    return out


_PLACEHOLDER = re.compile(r"^<[^<>]+>$")  # `<id or alias>`, `<the upload's id>`: whoever runs it fills it in


def _example(op: Operation, args: dict[str, Any]) -> dict[str, Any] | None:
    """The registry's example as valid values: relative times resolved now, and every
    reference (an x-ref argument, or a placeholder in angle brackets) left out."""
    if op.example is None:
        return None
    resolved = relative_time.resolve(op.example)
    return _without_refs(resolved, args)


def _without_refs(value: Any, schema: Any) -> Any:
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, dict):
        props = schema.get("properties", {})
        kept = {}
        for name, item in value.items():
            sub = props.get(name, {})
            if "x-ref" in sub or (isinstance(item, str) and _PLACEHOLDER.match(item)):
                continue
            kept[name] = _without_refs(item, sub)
        return kept
    if isinstance(value, list):
        items = schema.get("items", {})
        if isinstance(items, dict) and "anyOf" in items:
            items = items["anyOf"][0]
        if "x-ref" in items:
            return []
        return [
            _without_refs(item, items) for item in value if not (isinstance(item, str) and _PLACEHOLDER.match(item))
        ]
    return value


def _success(op: Operation) -> str:
    if op.items_checked_alone is None:
        return "Success."
    return (
        "The call ran: each item's outcome in `results`, in input order (`created`, `updated`, `unchanged`, or "
        "`failed` with its `code` and `errors`), and the `counts`. A 200 does not mean every item was accepted: "
        "read `counts.failed`."
    )


def _created_type(op: Operation) -> str | None:
    """The entity type a create command answers (its one result property, declare.singular_result's
    "The created <type>.")."""
    if op.kind != "command":
        return None
    answered = list(op.result.get("properties", {}))
    if len(answered) != 1:
        return None
    description = op.result["properties"][answered[0]].get("description", "")
    return next((name for name in ENTITY_TYPES if description == f"The created {name}."), None)


def _links(source: Operation, listed: list[Operation]) -> dict[str, Any]:
    """Links from a create (`/<name>/id` of its answer) or a delete (`/deleted/id`) to every listed
    operation that takes an entity of that type, at each argument that does (outside arrays)."""
    kind = _created_type(source)
    if kind is not None:
        expression = f"$response.body#/{next(iter(source.result['properties']))}/id"
    elif source.destructive and source.name.endswith((".delete", ".revoke")):
        taken = [arg.get("x-ref") for arg in source.args.get("properties", {}).values()]
        if len(taken) != 1 or not isinstance(taken[0], str):
            return {}
        kind, expression = taken[0], "$response.body#/deleted/id"
    else:
        return {}
    links: dict[str, Any] = {}
    for target in listed:
        if target is source or _created_type(target) == kind:  # no contact made the company of itself
            continue
        paths = [path for path, x_ref in _ref_paths(target.args, ()) if kind in ref_types(x_ref)]
        # an operation that addresses an entity of the type (an update's `<arg>.id`) takes it there only
        addressed: list[tuple[str, ...]] = [path for path in paths if len(path) == 2 and path[1] == "id"]
        paths = addressed or paths
        if not paths or target.accepts_files:  # a multipart upload's form has no JSON to link into
            continue
        link: dict[str, Any] = {"operationId": target.name}
        if target.kind == "query":
            link["parameters"] = {path[0]: expression for path in paths if len(path) == 1}
            if not link["parameters"]:
                continue
        else:
            body: dict[str, Any] = {}
            for path in paths:
                node = body
                for part in path[:-1]:
                    node = node.setdefault(part, {})
                node[path[-1]] = expression
            link["requestBody"] = body
        links[target.name] = link
    return links


def _ref_paths(schema: dict[str, Any], at: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, x-ref) of every reference argument outside arrays."""
    if "x-ref" in schema:
        yield at, schema["x-ref"]
    for name, sub in schema.get("properties", {}).items():
        yield from _ref_paths(sub, (*at, name))
