"""The two Lambda-hosted faces on Chalice's local HTTP server, used by `make serve`, the
tests and the benches: the MCP path goes to the MCP function's app (mcp_app.py), every
other path to the REST function's (app.py), as the deployed API Gateway routes them."""

from __future__ import annotations

import threading
import uuid
from typing import Any

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

from chalicelib.errors import no_route
from chalicelib.paths import MCP as MCP_PATH


class _Handler(ChaliceRequestHandler):
    mcp_app: Chalice  # set by create_server

    def __init__(self, request: Any, client_address: Any, server: Any, app_object: Chalice, config: Config) -> None:
        self.mcp_gateway = LocalGateway(self.mcp_app, config)
        super().__init__(request, client_address, server, app_object, config)

    def _generic_handle(self) -> None:
        if self.path.split("?", 1)[0] == MCP_PATH:
            self.local_gateway = self.mcp_gateway
        super()._generic_handle()

    # chalice binds every method to its own _generic_handle
    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _generic_handle

    def _parse_payload(self) -> tuple[dict[str, Any], bytes | None]:
        """Chalice keeps the first of a repeated header and drops the others; here they are
        joined with commas (RFC 9110 5.3), so the service sees that there were several."""
        headers, body = super()._parse_payload()
        for name in headers:
            values = self.headers.get_all(name) or []
            if len(values) > 1:
                headers[name] = ", ".join(values)
        return headers, body

    def _send_error_response(self, error: LocalGatewayException) -> None:
        """A path no route serves: the problem+json 404 the deployment's gateway response
        gives (API Gateway itself says 403 "Missing Authentication Token"). The app has no
        authorizers, so chalice's local gateway raises ForbiddenError for nothing else."""
        if isinstance(error, ForbiddenError):
            from chalicelib.http import (  # cold start: the REST face (and its logger) loads with the apps,
                # see create_server
                problem_response,
            )

            answer = problem_response(no_route(self.command, self.path.split("?", 1)[0]), str(uuid.uuid4()))
            self._send_http_response(answer.status_code, dict(answer.headers), answer.body)
            return
        super()._send_error_response(error)


class _QuietHandler(_Handler):
    def log_message(self, format: str, *args: Any) -> None:
        """The service logs each request itself (structured); no second access log."""


def _local(app: Chalice) -> Chalice:
    """What chalice.local.create_local_server does to an app, once."""
    if not isinstance(app, LocalChalice):
        app.__class__ = type("LocalApp", (LocalChalice, app.__class__), {})
    return app


def create_server(port: int, *, quiet: bool = True) -> LocalDevServer:
    # cold start: the apps load when a server is made (serve.py first sets sys.path and the stage
    # environment)
    import app as rest_module  # cold start: as above
    import mcp_app as mcp_module  # cold start: as above

    base = _QuietHandler if quiet else _Handler
    handler = type("Handler", (base,), {"mcp_app": _local(mcp_module.app)})
    return LocalDevServer(
        _local(rest_module.app), Config(chalice_stage="local"), "127.0.0.1", port, handler_cls=handler
    )


def serve_in_thread(port: int) -> LocalDevServer:
    server = create_server(port)
    threading.Thread(target=server.server.serve_forever, daemon=True).start()
    return server
