"""The app on Chalice's local HTTP server, used by `make serve`, the tests and the benches."""

from __future__ import annotations

import threading
import uuid
from typing import Any

from chalice.config import Config
from chalice.local import ChaliceRequestHandler, ForbiddenError, LocalChalice, LocalDevServer, LocalGatewayException


class _Handler(ChaliceRequestHandler):
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
            from chalicelib.errors import no_route
            from chalicelib.http import problem_response

            answer = problem_response(no_route(self.command, self.path.split("?", 1)[0]), str(uuid.uuid4()))
            self._send_http_response(answer.status_code, dict(answer.headers), answer.body)
            return
        super()._send_error_response(error)


class _QuietHandler(_Handler):
    def log_message(self, format: str, *args: Any) -> None:
        """The service logs each request itself (structured); no second access log."""


def create_server(port: int, *, quiet: bool = True) -> LocalDevServer:
    import app as app_module

    app = app_module.app
    if not isinstance(app, LocalChalice):  # what chalice.local.create_local_server does, once
        from chalice.local import CustomLocalChalice

        CustomLocalChalice.__bases__ = (LocalChalice, app.__class__)
        app.__class__ = CustomLocalChalice
    handler = _QuietHandler if quiet else _Handler
    return LocalDevServer(app, Config(chalice_stage="local"), "127.0.0.1", port, handler_cls=handler)


def serve_in_thread(port: int) -> LocalDevServer:
    server = create_server(port)
    threading.Thread(target=server.server.serve_forever, daemon=True).start()
    return server
