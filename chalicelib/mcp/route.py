"""The Chalice route of the MCP endpoint: POST only (stateless Streamable HTTP; a GET would
open an endless event stream), the bearer key checked on every request before the SDK sees
it, the answer passed back as the SDK wrote it."""

from __future__ import annotations

import time
from dataclasses import replace

from chalice import Chalice, Response  # type: ignore[attr-defined]

from chalicelib import config, http
from chalicelib.auth import authenticate
from chalicelib.errors import ApiError, MethodNotAllowed, PayloadTooLarge
from chalicelib.log import logger

PATH = "/propertymanagement/v2/mcp"


def register(app: Chalice) -> None:
    """The route; the bridge (and with it asyncio and the SDK) is imported on the first request."""

    @app.route(PATH, methods=["GET", "POST", "DELETE"], name="mcp", content_types=[http.JSON, "text/plain", "application/x-www-form-urlencoded"])
    def mcp() -> Response:  # type: ignore[no-untyped-def]
        request = app.current_request
        assert request is not None
        request_id = http.request_id_of(request)
        started = time.perf_counter()
        logger.append_keys(request_id=request_id, operation="mcp", tenant=None, agent=None)
        status = 500
        try:
            response = _handle(request, request_id)
            status = response.status_code
            return response
        except ApiError as error:
            status = error.status
            return http.problem_response(error, request_id)
        except Exception:  # noqa: BLE001 - the client gets a problem body, never a stack trace
            logger.exception("unhandled error")
            return http.problem_response(ApiError("An internal error occurred; the request id identifies it in our logs."), request_id)
        finally:
            logger.info("request", extra={"method": request.method, "status": status, "ms": round((time.perf_counter() - started) * 1000, 2)})


def _handle(request: object, request_id: str) -> Response:
    from chalicelib.mcp.bridge import bridge

    method = request.method  # type: ignore[attr-defined]
    if method != "POST":
        raise MethodNotAllowed("The MCP endpoint is stateless Streamable HTTP: send JSON-RPC messages with POST.", headers={"Allow": "POST"})
    headers = {k.lower(): v for k, v in request.headers.items()}  # type: ignore[attr-defined]
    try:
        ctx = authenticate(headers.get("authorization"), request_id=request_id, source_ip=http.source_ip_of(request))
    except ApiError as error:
        error.headers.setdefault("WWW-Authenticate", 'Bearer realm="propertymanagement"')
        raise
    ctx = replace(ctx, channel="mcp")
    logger.append_keys(tenant=ctx.tenant_id, agent=ctx.agent_name)
    raw = request.raw_body or b""  # type: ignore[attr-defined]
    if len(raw) > config.MAX_BODY_BYTES:
        raise PayloadTooLarge(f"The body has {len(raw)} bytes; the MCP endpoint accepts at most {config.MAX_BODY_BYTES}.")
    headers.pop("authorization", None)  # the SDK needs no secret
    answer = bridge().handle(method, headers, raw, ctx, http.source_ip_of(request))
    # Chalice writes Content-Type and Content-Length itself: passing the SDK's lowercase copies
    # as well would send both (a client then reads "application/json, application/json").
    headers = {name: value for name, value in answer.headers.items() if name.lower() not in ("content-type", "content-length")}
    headers["Content-Type"] = answer.headers.get("content-type", http.JSON)
    headers["X-Request-Id"] = request_id
    return Response(body=answer.body.decode("utf-8"), status_code=answer.status, headers=headers)
