"""AWS calls of this process to the embedded stack go straight into moto's WSGI application:
no socket, no HTTP server thread, no new connection per call. Measured on a list page, the
two HTTP ends between the service and moto (botocore's urllib3 and moto's werkzeug server)
took a third of a local request's CPU.

Only the transport changes: the request botocore signed is handed to the same application
moto's server runs (chalicelib/local/stack.py), with the same URL, headers and body, and its
answer is parsed by botocore as any other. What lives outside the process (a browser or curl
uploading to a presigned URL, `pmctl --local`, the tests' HTTP clients) still reaches the
same moto through its server on the port: both serve the same in-memory backends.

The calls to DynamoDB, its stream and SQS go further still: they skip the HTTP exchange
altogether and reach moto's handler from botocore's `before-call`, their parameters unserialised
(`_make_api_call`, chalicelib/local/moto_direct.py). PM_LOCAL_TRANSPORT=wsgi turns that path off:
every call is then serialised by botocore and parsed by moto as over HTTP, which is what the direct
path must answer like (CI runs the cross-check test and a write-heavy file so)."""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import urlsplit

from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.client import BaseClient
from botocore.handlers import BUILTIN_HANDLERS, REGISTER_LAST
from botocore.model import OperationModel
from moto.core.botocore_stubber import MockRawResponse
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.test import EnvironBuilder, run_wsgi_app

from chalicelib import config
from chalicelib.local import moto_direct

_lock = threading.Lock()
_endpoint: str | None = None
_application: DomainDispatcherApplication | None = None


def install(endpoint: str) -> None:
    """Serve calls to `endpoint` in process from now on: for every botocore session made
    after this (pynamodb's, boto3's default) and boto3's default session if it exists."""
    global _endpoint, _application
    with _lock:
        _endpoint = endpoint.rstrip("/")
        if _application is None:
            _application = DomainDispatcherApplication(create_backend_app)
        handlers = _handlers()
        for event, handler in handlers:
            if (event, handler, REGISTER_LAST) not in BUILTIN_HANDLERS:
                BUILTIN_HANDLERS.append((event, handler, REGISTER_LAST))
        if config.local_transport() == "direct":
            BaseClient._make_api_call = _make_api_call  # type: ignore[method-assign]
    import boto3  # cold start: boto3 loads with the local stack

    if boto3.DEFAULT_SESSION is not None:
        for event, handler in handlers:
            boto3.DEFAULT_SESSION.events.unregister(event, handler)
            boto3.DEFAULT_SESSION.events.register_last(event, handler)


def uninstall(endpoint: str) -> None:
    """The stack at `endpoint` stops; calls to another stack's endpoint keep their way."""
    global _endpoint
    with _lock:
        if _endpoint == endpoint.rstrip("/"):
            _endpoint = None


_botocore_make_api_call = BaseClient._make_api_call


def _make_api_call(client: BaseClient, operation_name: str, api_params: dict[str, Any]) -> Any:
    """A call of a client of the stack's JSON services goes on with its parameters unserialised
    (moto_direct.call); any other as botocore makes it."""
    endpoint = _endpoint
    if (
        endpoint is not None
        and (client.meta.endpoint_url or "").rstrip("/") == endpoint
        and client.meta.service_model.service_name in moto_direct.HANDLERS
    ):
        return moto_direct.call(client, operation_name, api_params)
    return _botocore_make_api_call(client, operation_name, api_params)


def _call(
    model: OperationModel, params: dict[str, Any], context: dict[str, Any], **_: Any
) -> tuple[AWSResponse, dict[str, Any]] | None:
    endpoint = _endpoint
    if endpoint is None or not params["url"].startswith(endpoint + "/"):
        return None  # not ours: signed and sent, over HTTP or by _send
    return moto_direct.answer(params["url"], model, params, context["client_region"])


def _send(request: AWSPreparedRequest, **_: Any) -> AWSResponse | None:
    endpoint, application = _endpoint, _application
    if endpoint is None or application is None or not request.url.startswith(endpoint + "/"):
        return None  # not ours: botocore sends it over HTTP
    url = urlsplit(request.url)
    body = request.body
    if hasattr(body, "read"):
        body = body.read()
    environ = EnvironBuilder(
        method=request.method,
        base_url=f"{url.scheme}://{url.netloc}",
        path=url.path or "/",
        query_string=url.query,
        headers=[
            (name, value.decode() if isinstance(value, bytes) else str(value))
            for name, value in request.headers.items()
        ],
        data=body or b"",
    ).get_environ()
    answer, status, headers = run_wsgi_app(application, environ, buffered=True)
    try:
        content = b"".join(answer)
    finally:
        close = getattr(answer, "close", None)
        if close is not None:
            close()
    return AWSResponse(request.url, int(status.split(" ", 1)[0]), dict(headers), MockRawResponse(content))


# Registered last, so a handler a client registers itself still comes first (the tests' fault
# injector answers `before-call` with the error it injects).
_DIRECT = (
    ("before-call.dynamodb", _call),
    ("before-call.dynamodb-streams", _call),
    ("before-call.sqs", _call),
)
_WSGI = (("before-send", _send),)


def _handlers() -> tuple[tuple[str, Any], ...]:
    """The direct path's handlers and the WSGI one, or (PM_LOCAL_TRANSPORT=wsgi) the WSGI one alone."""
    return (*_DIRECT, *_WSGI) if config.local_transport() == "direct" else _WSGI
