"""The two Lambda-hosted faces behind one address, used by `make serve`, the tests and the
benches: the MCP path goes to the MCP function's app (mcp_app.py), every other path to the
REST function's (app.py), as the deployed API Gateway routes them; and /docs the docs site
(docs_site.py), which deployed lives on a static host.

`Gateways.answer` answers one request in this process; Chalice's local HTTP server calls it
for every request it reads off a socket, and the functional tests call it directly (no
socket: tests/client.py), so both get the same answers.

Off the socket, before any route, the server answers only the Host names it is reached by on
this machine (`host_allowed`): a page of another origin whose name an attacker rebinds to
127.0.0.1 sends its own name as Host, and is refused (421) instead of reading the outbox or
acting with the developer's cookies. API Gateway's own host checking does this in the cloud."""

from __future__ import annotations

import base64
import threading
import uuid
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

from chalice import Chalice  # type: ignore[attr-defined]
from chalice.config import Config
from chalice.local import (
    ChaliceRequestHandler,
    ForbiddenError,
    LocalChalice,
    LocalDevServer,
    LocalGateway,
    LocalGatewayException,
)

from chalicelib import config
from chalicelib.errors import Misdirected, no_route
from chalicelib.local import docs_site
from chalicelib.mcp.oauth_paths import PATHS as OAUTH_PATHS
from chalicelib.paths import MCP as MCP_PATH

Headers = dict[str, Any]  # a value is a string, or a list of them for a repeated header

# The names of this machine's loopback, as the MCP endpoint allows them (mcp/bridge.py), at any port.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def host_allowed(host: str | None) -> bool:
    """A Host header this server answers: a loopback name, with or without a port, or the
    host of the service's public address (PM_PUBLIC_URL, where its mail links point)."""
    host = (host or "").strip().lower()
    if not host:
        return False
    if host == urlsplit(config.public_url()).netloc.lower():
        return True
    if host.endswith("]") or ":" not in host:
        name, port = host, ""  # no port (an IPv6 literal's own colons are inside its brackets)
    else:
        name, _, port = host.rpartition(":")
    return name in LOOPBACK_NAMES and (port == "" or port.isdigit())


def _local(app: Chalice) -> Chalice:
    """What chalice.local.create_local_server does to an app, once."""
    if not isinstance(app, LocalChalice):
        app.__class__ = type("LocalApp", (LocalChalice, app.__class__), {})
    return app


class Gateways:
    def __init__(self) -> None:
        # cold start: the apps load when the gateways are made (serve.py first sets sys.path and
        # the stage environment)
        import app as rest_module  # cold start: as above
        import mcp_app as mcp_module  # cold start: as above

        self.rest_app = _local(rest_module.app)
        self.rest = LocalGateway(self.rest_app, Config(chalice_stage="local"))
        self.mcp = LocalGateway(_local(mcp_module.app), Config(chalice_stage="local"))

    def answer(self, method: str, path: str, headers: Headers, body: bytes | None) -> tuple[int, Headers, bytes | None]:
        """Status, headers and body of one request, as the deployment's gateway answers it; under
        /docs the docs site's files (local only: deployed, a static host serves them)."""
        if docs_site.handles(path):
            return docs_site.answer(method, path)
        gateway = self.mcp if path.split("?", 1)[0] in (MCP_PATH, *OAUTH_PATHS) else self.rest
        try:
            response = gateway.handle_request(method=method, path=path, headers=headers, body=body)
        except ForbiddenError:
            # A path no route serves: the problem+json 404 the deployment's gateway response gives
            # (API Gateway itself says 403 "Missing Authentication Token"). The app has no
            # authorizers, so chalice's local gateway raises ForbiddenError for nothing else.
            return refusal(no_route(method, path.split("?", 1)[0]))
        except LocalGatewayException as error:
            return error.CODE, dict(error.headers), _bytes(error.body)
        answered = {**response["headers"], **response["multiValueHeaders"]}
        content = response["body"]
        if response.get("isBase64Encoded"):
            content = base64.b64decode(content)
        return response["statusCode"], answered, _bytes(content)


def refusal(error: Any) -> tuple[int, Headers, bytes | None]:
    """An ApiError as the problem+json answer the apps give it."""
    from chalicelib.http import problem_response  # cold start: loaded with the apps (Gateways)

    problem = problem_response(error, str(uuid.uuid4()))
    return problem.status_code, dict(problem.headers), _bytes(problem.body)


def _bytes(body: str | bytes | None) -> bytes | None:
    return body.encode() if isinstance(body, str) else body


class _Handler(ChaliceRequestHandler):
    gateways: Gateways  # set by create_server
    # An answer leaves in one write: the socket's writes are buffered (BaseHTTPRequestHandler
    # flushes after each request) and Nagle's algorithm is off. Chalice's handler writes the
    # headers, then the body, unbuffered: on a kept-alive connection the body waited for the
    # client's delayed ACK of the headers, 40 ms an answer (4 ms on a new connection).
    wbufsize = -1
    disable_nagle_algorithm = True

    def __init__(self, request: Any, client_address: Any, server: Any, app_object: Chalice, config: Config) -> None:
        # chalice's handler makes a gateway per request; the shared ones serve instead
        BaseHTTPRequestHandler.__init__(self, request, client_address, server)

    def _generic_handle(self) -> None:
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1 or not host_allowed(hosts[0]):  # two Hosts: which one the apps read is anyone's guess
            self._refuse_host()
            return
        headers, body = self._parse_payload()
        status, answered, content = self.gateways.answer(self.command, self.path, headers, body)
        self._send_http_response(status, answered, content)

    # chalice binds every method to its own _generic_handle
    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _generic_handle

    def __getattr__(self, name: str) -> Any:
        """Any other method too (TRACE, PROPFIND, any token): BaseHTTPRequestHandler looks up
        `do_<METHOD>` and, finding none, answers its own 501 HTML page. The apps refuse it as
        they refuse every method a route does not list: 405 problem+json with `Allow` (404
        `no_route` where nothing serves the path, as for any method)."""
        if name.startswith("do_"):
            return self._generic_handle
        raise AttributeError(name)

    def _refuse_host(self) -> None:
        """421 before the body is read; the connection closes, so an unread body does no harm."""
        names = ", ".join(f"{name}:<port>" for name in LOOPBACK_NAMES)
        error = Misdirected(f"This server answers the Host names {names} only; the request's Host is none of them.")
        self.close_connection = True
        status, answered, content = refusal(error)
        self._send_http_response(status, {**answered, "Connection": "close"}, content)

    def _parse_payload(self) -> tuple[dict[str, Any], bytes | None]:
        """Chalice keeps the first of a repeated header and drops the others; here they are
        joined with commas (RFC 9110 5.3), so the service sees that there were several."""
        headers, body = super()._parse_payload()
        for name in headers:
            values = self.headers.get_all(name) or []
            if len(values) > 1:
                headers[name] = ", ".join(values)
        return headers, body


class _QuietHandler(_Handler):
    def log_message(self, format: str, *args: Any) -> None:
        """The service logs each request itself (structured); no second access log."""


def create_server(port: int, *, quiet: bool = True, gateways: Gateways | None = None) -> LocalDevServer:
    gateways = gateways or Gateways()
    handler = type("Handler", (_QuietHandler if quiet else _Handler,), {"gateways": gateways})
    return LocalDevServer(gateways.rest_app, Config(chalice_stage="local"), "127.0.0.1", port, handler_cls=handler)


def serve_in_thread(port: int, gateways: Gateways | None = None) -> LocalDevServer:
    server = create_server(port, gateways=gateways)
    threading.Thread(target=server.server.serve_forever, daemon=True).start()
    return server
