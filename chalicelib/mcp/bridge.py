"""Runs the SDK's Streamable HTTP app (ASGI) inside a Chalice route.

One event loop on a daemon thread holds the app and its session manager for the life of
the process (a Lambda container, `make serve`); each request is one ASGI call submitted to
that loop (~1 ms). Mangum cannot host this app, and a loop per request would restart the
session manager each time. The key is checked before anything reaches the SDK: the tools
run as the CallContext the bridge puts into the ASGI scope."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import MutableMapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings

from chalicelib import config
from chalicelib.context import CallContext
from chalicelib.mcp.server import CONTEXT_KEY, build_server
from chalicelib.paths import MCP as PATH

TIMEOUT_SECONDS = 60.0
_LOOPBACK = ["127.0.0.1:*", "localhost:*", "[::1]:*"]


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def _security() -> Any:
    """DNS-rebinding protection: only the Host names the service is reached by (loopback
    locally; the API's domain in AWS through PM_MCP_ALLOWED_HOSTS; `*` turns it off, which
    is what API Gateway's own host checking makes safe)."""
    configured = config.mcp_allowed_hosts()
    if configured.strip() == "*":
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = [h.strip() for h in configured.split(",") if h.strip()] or _LOOPBACK
    origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


class Bridge:
    def __init__(self) -> None:
        self._server = build_server()
        self._app = self._server.streamable_http_app(
            streamable_http_path=PATH,
            stateless_http=True,
            json_response=True,
            transport_security=_security(),
            max_request_body_size=config.MAX_BODY_BYTES,
        )
        # The OAuth authorization server's endpoints (mcp/oauth_routes.py) beside the MCP path.
        from chalicelib.mcp.oauth_routes import routes as oauth_routes  # cycle: it builds on the SDK loaded here

        self._app.router.routes.extend(oauth_routes())
        self._loop = asyncio.new_event_loop()
        threading.Thread(target=self._loop.run_forever, name="mcp-loop", daemon=True).start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=30)

    async def _start(self) -> None:
        """Enters the session manager in a task that never leaves it: the process ends first."""
        ready = asyncio.Event()

        async def hold() -> None:
            async with self._server.session_manager.run():
                ready.set()
                await asyncio.Event().wait()

        self._holder = asyncio.ensure_future(hold())
        await ready.wait()

    def handle(
        self,
        method: str,
        headers: dict[str, str],
        body: bytes,
        caller: CallContext | None,
        client_ip: str | None,
        path: str = PATH,
        query: str = "",
    ) -> Answer:
        """One request to the SDK's app: the MCP endpoint with the caller the key check found, or an
        OAuth endpoint (`path`, `query`) with none (those authenticate clients themselves)."""
        future: Future[Answer] = asyncio.run_coroutine_threadsafe(
            self._call(method, headers, body, caller, client_ip, path, query), self._loop
        )
        return future.result(timeout=TIMEOUT_SECONDS)

    async def _call(
        self,
        method: str,
        headers: dict[str, str],
        body: bytes,
        caller: CallContext | None,
        client_ip: str | None,
        path: str,
        query: str,
    ) -> Answer:
        host = headers.get("host", "localhost")
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": headers.get("x-forwarded-proto", "http"),
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode("latin-1"),
            "root_path": "",
            "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
            "client": (client_ip or "127.0.0.1", 0),
            "server": (host.split(":")[0], 443),
            "state": {},
            CONTEXT_KEY: caller,
        }
        sent = False
        status, out_headers, chunks = 500, {}, []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if sent:
                await asyncio.Event().wait()  # the body was read: nothing more will come
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                out_headers.update({k.decode("latin-1"): v.decode("latin-1") for k, v in message.get("headers", [])})
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self._app(scope, receive, send)
        return Answer(status, out_headers, b"".join(chunks))


_bridge: Bridge | None = None
_lock = threading.Lock()


def bridge() -> Bridge:
    """The process's bridge, started on first use (importing the SDK costs ~750 ms, which the
    REST operations never pay)."""
    global _bridge
    with _lock:
        if _bridge is None:
            _bridge = Bridge()
        return _bridge
