"""The Chalice route of the MCP endpoint: POST only (stateless Streamable HTTP; a GET would
open an endless event stream), the bearer key checked on every request before the SDK sees
it, the answer passed back as the SDK wrote it."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from chalice import Chalice, Response  # type: ignore[attr-defined]

from chalicelib import (
    config,
    dispatch,
    http,
    paths,
    tool_names,  # a few names, no SDK: the SDK loads on the first request
)
from chalicelib.errors import MethodNotAllowed, PayloadTooLarge
from chalicelib.request_scope import IncomingRequest, RequestScope

if TYPE_CHECKING:  # the SDK loads on the first MCP request (cold start)
    from chalicelib.mcp.bridge import Answer

PATH = paths.MCP


def register(app: Chalice) -> None:
    """The route; the bridge (and with it asyncio and the SDK) is imported on the first request."""

    @app.route(
        PATH,
        methods=["GET", "POST", "DELETE"],
        name="mcp",
        content_types=[http.JSON, "text/plain", "application/x-www-form-urlencoded"],
    )
    def mcp() -> Response:  # type: ignore[no-untyped-def]
        request = app.current_request
        assert request is not None
        return http.answer(request, "mcp", lambda scope: _handle(request, scope))


def register_oauth(app: Chalice) -> None:
    """The OAuth authorization server's endpoints (mcp/oauth_routes.py), handed to the SDK's app
    as they came: they authenticate their clients themselves. Registration counts against the
    source address's limit (as sign-ups do), authorize and token requests against its OAuth limit."""
    from chalicelib.mcp.oauth_paths import PATHS  # cold start: the paths only, no SDK

    for path in PATHS:

        def view(path: str = path) -> Response:
            request = app.current_request
            assert request is not None
            return http.answer(request, "oauth", lambda scope: _oauth(request, scope, path))

        name = "oauth" + path.replace("/", "_").replace(".", "_").replace("-", "_")
        app.route(
            path,
            methods=["GET", "POST"],
            name=name,
            content_types=[http.JSON, "application/x-www-form-urlencoded", "text/plain"],
        )(view)


def _oauth(request: IncomingRequest, scope: RequestScope, path: str) -> Response:
    from chalicelib.mcp.bridge import bridge  # cold start: as for the MCP endpoint

    if path == "/register" and request.method == "POST":
        dispatch.admit_anonymous("oauth.register", scope.source_ip)
    elif path == "/authorize" or (path == "/token" and request.method == "POST"):
        # each authorize request is stored until it expires, each token request reads and writes
        # grants: per source address (throttle.take_anonymous), before the SDK sees it
        dispatch.admit_anonymous(f"oauth{path.replace('/', '.')}", scope.source_ip)
    event = request.to_original_event()
    pairs = [(k, v) for k, values in (event.get("multiValueQueryStringParameters") or {}).items() for v in values]
    headers = {k.lower(): v for k, v in request.headers.items()}
    answer = bridge().handle(
        request.method, headers, http.body_bytes(request), None, scope.source_ip, path, urlencode(pairs)
    )
    return _as_response(answer, scope)


def _handle(request: IncomingRequest, scope: RequestScope) -> Response:
    from chalicelib.mcp.bridge import bridge  # cold start: the MCP SDK (~750 ms) loads on the first MCP request

    method = request.method
    if method != "POST":
        raise MethodNotAllowed(
            "The MCP endpoint is stateless Streamable HTTP: send JSON-RPC messages with POST.",
            headers={"Allow": "POST"},
        )
    headers = {k.lower(): v for k, v in request.headers.items()}
    ctx = http.identify(request, scope, channel="mcp")  # a 401 names the metadata (http.py)
    dispatch.admit(ctx, "mcp")  # the request; each domain tool it runs is admitted again (domain_tools.serve)
    raw = http.body_bytes(request)
    if len(raw) > config.MAX_BODY_BYTES:
        raise PayloadTooLarge(
            f"The body has {len(raw)} bytes; the MCP endpoint accepts at most {config.MAX_BODY_BYTES}."
        )
    headers.pop("authorization", None)  # the SDK needs no secret
    asked = request.query_params.getlist(tool_names.PARAM) if request.query_params else []
    if asked:  # ?toolNames=underscore: as the header says it
        headers[tool_names.HEADER] = str(asked[-1])
    answer = bridge().handle(method, headers, raw, ctx, scope.source_ip)
    return _as_response(answer, scope)


def _as_response(answer: Answer, scope: RequestScope) -> Response:
    """The SDK's answer as it wrote it. Chalice writes Content-Type and Content-Length itself:
    passing the SDK's lowercase copies as well would send both (a client then reads
    "application/json, application/json")."""
    headers: dict[str, str | list[str]] = {
        name: value for name, value in answer.headers.items() if name.lower() not in ("content-type", "content-length")
    }
    headers["Content-Type"] = answer.headers.get("content-type", http.JSON)
    headers["X-Request-Id"] = scope.request_id
    return Response(body=answer.body.decode("utf-8"), status_code=int(answer.status), headers=headers)
