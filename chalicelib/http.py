"""The REST face: turn a Chalice request into a registry call and its answer into JSON or
application/problem+json. Status codes come from the typed errors, never from text."""

from __future__ import annotations

import json
import math
import re
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from chalice import Chalice, Response  # type: ignore[attr-defined]

from chalicelib import config, dispatch, jsontext, observability, paths, registry, resource_metadata, schemas, throttle
from chalicelib import error_codes as codes
from chalicelib.auth import authenticate
from chalicelib.context import CallContext
from chalicelib.errors import (
    ApiError,
    Invalid,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    Unauthorized,
    UnsupportedMediaType,
)
from chalicelib.log import logger
from chalicelib.openapi import IDEMPOTENCY_KEY_MAX, IDEMPOTENCY_KEY_PATTERN
from chalicelib.registry import Operation, Surface
from chalicelib.request_scope import IncomingRequest, RequestScope
from chalicelib.store import faults, idempotency
from chalicelib.store import requests as requests_log
from chalicelib.uploads import files, form
from chalicelib.validation import decode_query

JSON = "application/json"
PROBLEM = "application/problem+json"


dumps = jsontext.dumps


def json_response(status: int, body: Any, request_id: str, headers: Mapping[str, str] | None = None) -> Response:
    all_headers: dict[str, str | list[str]] = {"Content-Type": JSON, "X-Request-Id": request_id, **(headers or {})}
    return Response(body=dumps(body), status_code=status, headers=all_headers)


def problem_response(error: ApiError, request_id: str) -> Response:
    headers: dict[str, str | list[str]] = {"Content-Type": PROBLEM, "X-Request-Id": request_id, **error.headers}
    return Response(body=dumps(error.problem(request_id)), status_code=error.status, headers=headers)


def chalice_refusals_as_problems(request: IncomingRequest, get_response: Any) -> Response:
    """Chalice answers a method a route does not list (405) and a Content-Type it does not
    list (415) itself, before any view runs, with a body of its own ({"Code", "Message"}):
    this middleware renders those as problem+json, like every other refusal."""
    response = get_response(request)
    body = response.body
    if not (isinstance(body, dict) and set(body) == {"Code", "Message"}):
        return response
    path = (request.context or {}).get("path") or request.path
    error: ApiError
    if body["Code"] == "MethodNotAllowedError":
        allowed = response.headers.get("Allow", "")
        error = MethodNotAllowed(
            f"{request.method} is not served at {path}; it takes {allowed}.", headers={"Allow": allowed}
        )
    elif body["Code"] == "UnsupportedMediaType":
        given = request.headers.get("content-type", "")
        error = UnsupportedMediaType(
            f"Content-Type {given!r} is not accepted here; send application/json (file uploads: multipart/form-data)."
        )
    else:
        return response
    return problem_response(error, request_id_of(request))


def request_id_of(request: IncomingRequest) -> str:
    context = request.context or {}
    given = context.get("requestId")
    return str(given) if given else str(uuid.uuid4())


def source_ip_of(request: IncomingRequest) -> str | None:
    identity = (request.context or {}).get("identity") or {}
    ip = identity.get("sourceIp")
    return str(ip) if ip else None


def body_bytes(request: IncomingRequest) -> bytes:
    """The request's body as bytes (Chalice hands a text body over as text when it was not base64)."""
    raw = request.raw_body or b""
    return raw.encode() if isinstance(raw, str) else raw


def parse_body(request: IncomingRequest, op: Operation) -> tuple[dict[str, Any], bytes]:
    """The command's arguments, and the bytes that identify them for Idempotency-Key."""
    raw = body_bytes(request)
    limit = files.MAX_DIRECT_BODY_BYTES if op.accepts_files else config.MAX_BODY_BYTES
    if len(raw) > limit:
        hint = f" {files.BULK_HINT}" if op.accepts_files else ""
        raise PayloadTooLarge(f"The body has {len(raw)} bytes; {op.name} accepts at most {limit}.{hint}")
    content_type = request.headers.get("content-type") or ""
    if op.accepts_files and content_type.lower().startswith("multipart/form-data"):
        args = _checked(form.parse(content_type, raw, schemas.form_json_parts(op.args)))
        return args, json.dumps(args, sort_keys=True).encode()  # the boundary differs per request; the arguments do not
    if not raw.strip():
        return {}, raw
    # A body is what its Content-Type says (an empty one says nothing): JSON, or a form for the
    # uploads. curl's -d labels JSON form-urlencoded unless told `-H 'Content-Type:
    # application/json'`; reading it as JSON anyway would make the label mean nothing (and a form
    # that happens to parse would be taken), so it is refused with the header to send.
    if content_type.split(";", 1)[0].strip().lower() != JSON:
        uploads = " (file uploads: multipart/form-data)" if op.accepts_files else ""
        given = f"Content-Type {content_type!r}" if content_type else "No Content-Type"
        raise UnsupportedMediaType(
            f"{given} is not accepted for {op.name}'s body; send it as JSON with `Content-Type: application/json`"
            f"{uploads}."
        )
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_not_a_number, parse_float=_finite)
    except (UnicodeDecodeError, ValueError) as err:
        raise Invalid(
            f"The body is not valid JSON ({err}); send the arguments as a JSON object.", code=codes.MALFORMED_JSON
        ) from None
    except RecursionError:  # nested deeper than the parser goes
        raise _too_deep_error() from None
    if not isinstance(body, dict):
        raise Invalid("The body must be a JSON object whose keys are the argument names.", code=codes.MALFORMED_JSON)
    return _checked(body), raw


MAX_JSON_DEPTH = 64  # the deepest argument is a handful of levels; deeper only strains validation and storage


def _checked(args: dict[str, Any]) -> dict[str, Any]:
    """Arguments refused before validation: nested too deep (validation and storage recurse),
    or holding a lone UTF-16 surrogate (a JSON escape like \\ud800: no character, no UTF-8)."""
    level: list[tuple[Any, int]] = [(args, 1)]
    while level:
        item, depth = level.pop()
        for child in item.values() if isinstance(item, dict) else item:
            if isinstance(child, dict | list):
                if depth >= MAX_JSON_DEPTH:
                    raise _too_deep_error()
                level.append((child, depth + 1))
    try:
        json.dumps(args, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise Invalid(
            "The body holds a lone UTF-16 surrogate (an escape like \\ud800), which is no character; "
            "send valid Unicode.",
            code=codes.MALFORMED_JSON,
        ) from None
    return args


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is beyond the range of a number")
    return value


def _too_deep_error() -> Invalid:
    return Invalid(
        f"The body nests arrays and objects more than {MAX_JSON_DEPTH} levels deep.", code=codes.MALFORMED_JSON
    )


def _query_params(request: IncomingRequest) -> dict[str, list[str]]:
    params = request.query_params
    if not params:
        return {}
    return {name: list(params.getlist(name)) for name in params}


def handle(app: Chalice, name: str, kind: str, surface: Surface) -> Response:
    request = app.current_request
    assert request is not None, "Chalice sets current_request before calling a view"
    return answer(request, name, lambda scope: _handle(request, scope, name, kind, surface))


def answer(request: IncomingRequest, operation: str, respond: Callable[[RequestScope], Response]) -> Response:
    """Runs `respond(scope)` and turns errors into problem+json; logs the request and, once a
    key was recognised (the scope's `caller`), records it in that key's request log. Every
    answer of a call a limit counted carries that limit's RateLimit fields (`_steer`)."""
    scope = RequestScope(request_id_of(request), source_ip_of(request))
    started = time.perf_counter()
    logger.append_keys(request_id=scope.request_id, operation=operation, tenant=None, agent=None)
    status = 500
    throttle.watch(scope.request_id)
    try:
        response = respond(scope)
        status = response.status_code
        return _steer(response, scope.request_id)
    except Exception as err:  # noqa: BLE001 - the client gets a problem body, never a stack trace
        error = faults.as_api_error(err, where="request")  # AWS throttling or unavailable: 429 / 503
        status = error.status
        _challenge(error, "mcp" if operation == "mcp" else "rest")
        return _steer(problem_response(error, scope.request_id), scope.request_id)
    finally:
        throttle.headers(scope.request_id)  # watched no longer, however the answer ended
        ms = (time.perf_counter() - started) * 1000
        logger.info("request", extra={"method": request.method, "status": status, "ms": round(ms, 2)})
        # Names are bounded by the registry: a caller inventing names must not invent metrics.
        known = operation if operation in registry.REGISTRY or operation == "mcp" else "unknown"
        observability.record_request(known, status, ms)
        observability.annotate(operation=known, status=status, tenant=scope.tenant_id)
        if scope.caller:
            requests_log.record(
                scope.caller,
                operation=operation,
                method=request.method,
                status=status,
                ms=ms,
                source_ip=scope.source_ip,
            )


def _steer(response: Response, request_id: str) -> Response:
    """The IETF draft's RateLimit-Policy and RateLimit fields of the nearest limit the request's
    calls counted against (throttle.headers), on any status: a client paces itself by them. A
    429's own fields (the limit that refused) stay; no limit in force, none."""
    for name, value in throttle.headers(request_id).items():
        response.headers.setdefault(name, value)
    return response


def _challenge(error: ApiError, face: resource_metadata.Face) -> None:
    """A 401 names where the resource's OAuth metadata is (RFC 9728, 5.1), so an agent host can
    discover how to get a token; a missing scope's 403 says which scopes (RFC 6750, 3.1), so it can
    ask for them."""
    if error.status == 401:
        error.headers.setdefault("WWW-Authenticate", resource_metadata.challenge(face))
    elif error.code == codes.MISSING_SCOPE.code:
        needed = [str(scope) for scope in error.extra.get("requiredScopes", [])]
        error.headers.setdefault(
            "WWW-Authenticate", resource_metadata.challenge(face, error="insufficient_scope", scopes=needed)
        )


def identify(request: IncomingRequest, scope: RequestScope, channel: str = "rest") -> CallContext:
    """The calling key (401 without a valid one), remembered in the request's scope for the
    request log before anything admits or refuses the call."""
    ctx = replace(
        authenticate(_authorization(request), request_id=scope.request_id, source_ip=scope.source_ip), channel=channel
    )
    face: resource_metadata.Face = "mcp" if channel == "mcp" else "rest"
    if ctx.audience is not None and ctx.audience != face:  # RFC 8707: a token is for the resource it was granted for
        raise Unauthorized(
            f"This OAuth access token was granted for the {'MCP server' if ctx.audience == 'mcp' else 'REST interface'}"
            f"; ask for a token for {'the MCP server' if face == 'mcp' else 'the REST interface'} (resource "
            f"{resource_metadata.resource(face)}).",
            code=codes.WRONG_AUDIENCE,
        )
    scope.caller = ctx
    logger.append_keys(tenant=ctx.tenant_id, agent=ctx.agent_name)
    return ctx


def _authorization(request: IncomingRequest) -> str | None:
    """The Authorization header. API Gateway hands a repeated header over as its last value
    (all of them in multiValueHeaders): two keys in one request are refused, not picked from."""
    multi = request.to_original_event().get("multiValueHeaders") or {}
    values = [value for name, found in multi.items() if name.lower() == "authorization" for value in found or []]
    return ", ".join(values) if len(values) > 1 else request.headers.get("authorization")


def _handle(request: IncomingRequest, scope: RequestScope, name: str, kind: str, surface: Surface) -> Response:
    op = registry.find(name, surface)
    if op is None or op.kind != kind:
        other = "command" if kind == "query" else "query"
        hint = f" It is a {other}: use {op.path}." if op else ""
        raise NotFound(f"There is no {kind} named {name!r}.{hint}", code=codes.UNKNOWN_OPERATION)
    if request.method != op.method:
        raise MethodNotAllowed(f"{op.name} is a {op.kind}: send it with {op.method}.", headers={"Allow": op.method})
    ctx = identify(request, scope) if op.authenticated else dispatch.anonymous(scope.source_ip)

    def as_json(op: Operation, ctx: CallContext, args: dict[str, Any]) -> Response:
        return json_response(200, dispatch.run(op, ctx, args), scope.request_id)

    if op.kind == "query":
        return dispatch.serve(op, ctx, lambda: decode_query(op, _query_params(request)), as_json)
    body = _Body(request, op)  # parsed once the call is admitted
    idem_key = request.headers.get("idempotency-key")
    if idem_key is not None and op.authenticated:

        def idempotently(op: Operation, ctx: CallContext, args: dict[str, Any]) -> Response:
            return _idempotent(op, ctx, args, body.raw, idem_key, scope.request_id)

        return dispatch.serve(op, ctx, body.arguments, idempotently)
    return dispatch.serve(op, ctx, body.arguments, as_json)


class _Body:
    """A command's body, read only when `arguments()` is called (dispatch.serve calls it once
    the call is admitted: a refused call's body is never parsed); `raw` then holds the bytes
    that identify the arguments for Idempotency-Key."""

    def __init__(self, request: IncomingRequest, op: Operation) -> None:
        self.request, self.op, self.raw = request, op, b""

    def arguments(self) -> dict[str, Any]:
        args, self.raw = parse_body(self.request, self.op)
        return args


def _idempotent(
    op: Operation, ctx: CallContext, args: dict[str, Any], raw: bytes, key: str, request_id: str
) -> Response:
    if len(key) > IDEMPOTENCY_KEY_MAX:
        raise Invalid(
            f"Idempotency-Key is longer than {IDEMPOTENCY_KEY_MAX} characters.", code=codes.INVALID_IDEMPOTENCY_KEY
        )
    # What the OpenAPI document states (openapi.IDEMPOTENCY_KEY_PATTERN): printable ASCII, visible
    # first and last. CR, LF, NUL: RFC 9110 lets no field value hold them; other characters arrive
    # as whatever bytes a proxy made of them, and an empty key (or spaces, which HTTP trims) keys
    # nothing: each was taken before, the empty one as no key at all.
    if not re.fullmatch(IDEMPOTENCY_KEY_PATTERN, key):
        raise Invalid(
            "Idempotency-Key must be 1 to 255 printable ASCII characters (no control characters, no others), "
            "beginning and ending with a visible one; a UUID serves.",
            code=codes.INVALID_IDEMPOTENCY_KEY,
        )
    fingerprint = idempotency.fingerprint(op.name, raw)
    stored = idempotency.begin(ctx, key, fingerprint)
    if stored is not None:
        replay = {"Idempotent-Replayed": "true"}
        if stored["status"] >= 400:
            return Response(
                body=dumps(stored["body"]),
                status_code=stored["status"],
                headers={"Content-Type": PROBLEM, "X-Request-Id": request_id, **replay},
            )
        return json_response(stored["status"], stored["body"], request_id, replay)
    try:
        result = dispatch.run(op, ctx, args)
    except ApiError as error:
        if error.status >= 500 or error.status == 429:
            _release(ctx, key)
        else:
            try:
                idempotency.finish(ctx, key, fingerprint, error.status, error.problem(request_id))
            except Exception:  # noqa: BLE001 - the refusal changed nothing: a retry may run
                logger.exception("could not store the idempotent answer")
                _release(ctx, key)
        raise
    except Exception:
        _release(ctx, key)
        raise
    try:
        idempotency.finish(ctx, key, fingerprint, 200, idempotency.without_secrets(result, op.secrets))
    except Exception:  # noqa: BLE001 - the command is done: answer it rather than invite a second run
        logger.exception("could not store the idempotent answer; a repeat answers 409 until the key expires")
    return json_response(200, result, request_id)


def _release(ctx: CallContext, key: str) -> None:
    """Give the key up after a failure that changed nothing, so a retry may run; the
    failure itself stays the answer, even when releasing fails too."""
    try:
        idempotency.abandon(ctx, key)
    except Exception:  # noqa: BLE001
        logger.exception("could not release the Idempotency-Key")


def register_routes(app: Chalice) -> None:
    """One route per operation (API Gateway meters and documents each on its own), then
    catch-alls that answer unknown names with a problem+json 404."""
    for op in registry.REGISTRY.values():
        _route(app, op.path, op.name, op.kind, op.surface)
    for surface, prefix in paths.SURFACES.items():
        for kind in ("query", "command"):
            _route(app, f"{prefix}/{kind}/{{name}}", None, kind, surface)  # type: ignore[arg-type]
    _metadata_routes(app)


def _metadata_routes(app: Chalice) -> None:
    """The protected resource metadata of both faces (RFC 9728), and at the well-known root the MCP
    endpoint's (the face agent hosts connect with OAuth). Public and cacheable; any origin may read
    it (browser-based clients such as the MCP Inspector discover from a page)."""
    served: list[tuple[str, resource_metadata.Face]] = [
        (resource_metadata.metadata_path("rest"), "rest"),
        (resource_metadata.metadata_path("mcp"), "mcp"),
        (resource_metadata.WELL_KNOWN, "mcp"),
    ]
    for path, face in served:

        def view(face: resource_metadata.Face = face) -> Response:
            headers = {"Cache-Control": "public, max-age=3600", "Access-Control-Allow-Origin": "*"}
            return Response(
                body=dumps(resource_metadata.document(face)), status_code=200, headers={"Content-Type": JSON, **headers}
            )

        app.route(
            path, methods=["GET"], name="resource_metadata" + path.replace("/", "_").replace(".", "_").replace("-", "_")
        )(view)


def _route(app: Chalice, path: str, name: str | None, kind: str, surface: Surface) -> None:
    def view(**captured: str) -> Response:
        return handle(app, name or captured["name"], kind, surface)

    view_name = f"{surface}_{kind}_{name or 'unknown'}".replace(".", "_")
    app.route(
        path,
        methods=["GET", "POST"],
        name=view_name,
        # text/plain and forms reach the view, after admission: parse_body refuses a body so labelled
        # with our 415 naming application/json (Chalice's own refusal would come before the key's check)
        content_types=[JSON, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"],
    )(view)
