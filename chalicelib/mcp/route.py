"""The Chalice route of the MCP endpoint: POST only (stateless Streamable HTTP; a GET would
open an endless event stream), the bearer key checked on every request before the SDK sees
it, the answer passed back as the SDK wrote it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from chalice import Chalice, Response  # type: ignore[attr-defined]

from chalicelib import config, http, paths, throttle
from chalicelib.context import CallContext
from chalicelib.errors import MethodNotAllowed, PayloadTooLarge

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
        return http.answer(request, "mcp", lambda request_id, caller: _handle(request, request_id, caller))


def register_oauth(app: Chalice) -> None:
    """The OAuth authorization server's endpoints (mcp/oauth_routes.py), handed to the SDK's app
    as they came: they authenticate their clients themselves. Registration counts against the
    source address's limit (as sign-ups do)."""
    from chalicelib.mcp.oauth_paths import PATHS  # cold start: the paths only, no SDK

    for path in PATHS:

        def view(path: str = path) -> Response:
            request = app.current_request
            assert request is not None
            return http.answer(request, "oauth", lambda request_id, _caller: _oauth(request, request_id, path))

        name = "oauth" + path.replace("/", "_").replace(".", "_").replace("-", "_")
        app.route(
            path,
            methods=["GET", "POST"],
            name=name,
            content_types=[http.JSON, "application/x-www-form-urlencoded", "text/plain"],
        )(view)


def _oauth(request: Any, request_id: str, path: str) -> Response:
    from chalicelib.mcp.bridge import bridge  # cold start: as for the MCP endpoint

    if path == "/register" and request.method == "POST":
        throttle.take_anonymous(http.source_ip_of(request), "oauth.register")
    event = request.to_original_event()
    pairs = [(k, v) for k, values in (event.get("multiValueQueryStringParameters") or {}).items() for v in values]
    headers = {k.lower(): v for k, v in request.headers.items()}
    answer = bridge().handle(
        request.method, headers, request.raw_body or b"", None, http.source_ip_of(request), path, urlencode(pairs)
    )
    out: dict[str, str | list[str]] = {
        k: v for k, v in answer.headers.items() if k.lower() not in ("content-type", "content-length")
    }
    out["Content-Type"] = answer.headers.get("content-type", http.JSON)
    out["X-Request-Id"] = request_id
    return Response(body=answer.body.decode("utf-8"), status_code=int(answer.status), headers=out)


def _handle(request: Any, request_id: str, caller: list[CallContext]) -> Response:
    from chalicelib.mcp.bridge import bridge  # cold start: the MCP SDK (~750 ms) loads on the first MCP request

    method = request.method
    if method != "POST":
        raise MethodNotAllowed(
            "The MCP endpoint is stateless Streamable HTTP: send JSON-RPC messages with POST.",
            headers={"Allow": "POST"},
        )
    headers = {k.lower(): v for k, v in request.headers.items()}
    ctx = http.identify(request, request_id, "mcp", caller, channel="mcp")  # a 401 names the metadata (http.py)
    raw = request.raw_body or b""
    if len(raw) > config.MAX_BODY_BYTES:
        raise PayloadTooLarge(
            f"The body has {len(raw)} bytes; the MCP endpoint accepts at most {config.MAX_BODY_BYTES}."
        )
    headers.pop("authorization", None)  # the SDK needs no secret
    answer = bridge().handle(method, headers, raw, ctx, http.source_ip_of(request))
    # Chalice writes Content-Type and Content-Length itself: passing the SDK's lowercase copies
    # as well would send both (a client then reads "application/json, application/json").
    headers = {
        name: value for name, value in answer.headers.items() if name.lower() not in ("content-type", "content-length")
    }
    headers["Content-Type"] = answer.headers.get("content-type", http.JSON)
    headers["X-Request-Id"] = request_id
    return Response(body=answer.body.decode("utf-8"), status_code=int(answer.status), headers=headers)
