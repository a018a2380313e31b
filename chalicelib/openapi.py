"""The OpenAPI 3.0 document of the operations one key may call, derived from the registry."""

from __future__ import annotations

from typing import Any

from chalicelib import __version__, config, docs
from chalicelib.auth import allows
from chalicelib.paths import V2
from chalicelib.registry import REGISTRY, Operation
from chalicelib.scopes import KEY_SCOPES

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
    entry: dict[str, Any] = {
        "operationId": op.name,
        "summary": op.summary,
        "description": docs.render(op),
        "tags": [op.scope.split(":", 1)[1] if ":" in op.scope else op.name.split(".")[0]],
        "x-scopes": list(op.required_scopes),
        "x-destructive": op.destructive,
        "responses": {"200": {"description": "Success.", "content": {"application/json": {"schema": op.result}}}},
    }
    entry["responses"].update({status: _problem(text) for status, text in _ERROR_STATUSES.items()})
    props = op.args.get("properties", {})
    required = set(op.args.get("required", []))
    if op.kind == "query":
        entry["parameters"] = [
            {
                "name": name,
                "in": "query",
                "required": name in required,
                "description": schema.get("description", ""),
                "schema": schema,
                **({"style": "form", "explode": True} if schema.get("type") == "array" else {}),
            }
            for name, schema in props.items()
        ]
    elif props:
        entry["requestBody"] = {"required": bool(required), "content": {"application/json": {"schema": op.args}}}
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
                ),
                "schema": {"type": "string", "maxLength": 255},
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
    for op in sorted(REGISTRY.values(), key=lambda o: o.name):
        if op.surface != "v2" or not allows(scopes, op, object_limited=object_limited):
            continue
        paths[op.path] = {op.method.lower(): _operation(op)}
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
    """The multipart form of an upload: the file in `resource`, object arguments as JSON text."""
    props: dict[str, Any] = {}
    for name, schema in op.args["properties"].items():
        described = schema.get("description", "")
        if name == "resource":
            props[name] = {"type": "string", "format": "binary", "description": "The file."}
        else:
            props[name] = {
                "type": "string",
                "description": described + (" As JSON text." if schema.get("type") == "object" else ""),
            }
    return {"schema": {"type": "object", "properties": props, "required": op.args.get("required", [])}}
