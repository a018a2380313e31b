"""Runs the Chalice app as Lambda would, in a process of its own (the X-Ray SDK patches
boto3 for good): the environment says Lambda, an X-Ray "daemon" is a UDP socket here. Three
invocations: an unknown query with a key in its Authorization header, a request whose
caller is known (a probe route), and a scheduled event. Prints one JSON object: the
statuses and the trace documents the daemon received; the app's own lines (logs, metrics)
go to stdout before it. Used by tests/unit/test_observability.py."""

from __future__ import annotations

import json
import os
import socket
import sys
from typing import Any

KEY = "pm_live_" + "k" * 30 + "chk123"  # the shape of a key; no key anywhere


class Context:
    function_name = "propertymanagement-dev-api"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:eu-central-1:123456789012:function:propertymanagement-dev-api"

    def __init__(self, request_id: str) -> None:
        self.aws_request_id = request_id

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


def api_event(
    resource: str, path: str, request_id: str, path_parameters: dict[str, str] | None = None
) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {KEY}"}
    return {
        "resource": resource,
        "path": path,
        "httpMethod": "GET",
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": None,
        "multiValueQueryStringParameters": None,
        "pathParameters": path_parameters,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": resource,
            "httpMethod": "GET",
            "requestId": request_id,
            "identity": {"sourceIp": "203.0.113.9"},
        },
        "body": None,
        "isBase64Encoded": False,
    }


SCHEDULED = {
    "version": "0",
    "id": "evt-1",
    "detail-type": "Scheduled Event",
    "source": "aws.events",
    "account": "123456789012",
    "time": "2026-03-01T12:00:00Z",
    "region": "eu-central-1",
    "resources": [],
    "detail": {},
}


def main() -> None:
    daemon = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    daemon.bind(("127.0.0.1", 0))
    os.environ["AWS_XRAY_DAEMON_ADDRESS"] = f"127.0.0.1:{daemon.getsockname()[1]}"

    from chalice import Response  # type: ignore[attr-defined]

    import app as app_module
    from chalicelib import http
    from chalicelib.context import CallContext
    from chalicelib.log import logger
    from chalicelib.request_scope import RequestScope

    app = app_module.app
    http.requests_log.record = lambda *args, **kwargs: None  # type: ignore[assignment] # no table here

    def known_caller(scope: RequestScope) -> Response:
        scope.caller = CallContext(tenant_id="ten_probe", key_id="key_1", agent_name="probe-agent", scopes=frozenset())
        logger.append_keys(tenant="ten_probe", agent="probe-agent")
        return Response(body="{}", status_code=200)

    @app.route("/probe", name="probe")
    def probe() -> Response:
        assert app.current_request is not None
        return http.answer(app.current_request, "mcp", known_caller)

    @app.schedule("rate(1 hour)", name="probe_schedule")
    def probe_schedule(event: Any) -> None:
        logger.warning("scheduled probe")

    unknown = api_event(
        "/propertymanagement/v2/query/{name}",
        "/propertymanagement/v2/query/no.such.thing",
        "apigw-1",
        {"name": "no.such.thing"},
    )
    statuses = [
        app(unknown, Context("lambda-1"))["statusCode"],
        app(api_event("/probe", "/probe", "apigw-2"), Context("lambda-2"))["statusCode"],
    ]
    probe_schedule(SCHEDULED, Context("lambda-3"))
    sys.stdout.flush()

    documents = []
    daemon.settimeout(2.0)
    try:
        while len(documents) < 3:
            documents.append(json.loads(daemon.recv(65536).decode().split("\n", 1)[1]))
            daemon.settimeout(0.5)
    except TimeoutError:
        pass
    print(json.dumps({"statuses": statuses, "trace": documents}))


if __name__ == "__main__":
    main()
