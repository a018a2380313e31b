"""Calls of this process to the embedded stack's JSON services (DynamoDB, its stream, SQS),
handed to moto's handler for the service without an HTTP exchange in between
(chalicelib/local/moto_transport.py installs it).

A DynamoDB call is most of what a local request costs, and of each call's cost less than
half was DynamoDB's work: botocore signed the request and sent it through its HTTP layer,
werkzeug built an environment for it, Flask routed it to moto's handler, and moto read the
request back out of that environment (measured with cProfile on four functional test
files: 26 of 38 s of the calls outside moto's backend and its two serialisations).

What stays is everything that decides an answer: botocore validates and serialises the
parameters as for AWS; moto parses that body with its own protocol parser, runs the same
handler and backend its server runs, and serialises its answer; botocore parses that answer
(and a refusal's modelled fields, a transaction's cancellation reasons among them) with the
parser it uses for AWS's. Only the envelope is skipped: signing, the sockets' stand-in,
routing. The stream poller's reads and the queue pollers' receives (a third of a test
process's CPU between them) take the same way. S3, whose requests carry more in their URL
and headers than in a body, keeps the WSGI transport; so does anything outside this process."""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import urlsplit

from botocore.awsrequest import AWSResponse
from botocore.endpoint import convert_to_response_dict
from botocore.model import OperationModel
from botocore.parsers import create_parser
from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.botocore_stubber import MockRawResponse
from moto.core.parse import PROTOCOL_PARSERS
from moto.core.responses import BaseResponse
from moto.core.utils import get_service_model
from moto.dynamodb.responses import DynamoHandler
from moto.dynamodbstreams.responses import DynamoDBStreamsHandler
from moto.sqs.responses import SQSResponse
from moto.utilities.utils import get_partition
from werkzeug.datastructures import Headers

# botocore's service name -> moto's handler for it, as moto's server routes a request
HANDLERS: dict[str, type[BaseResponse]] = {
    "dynamodb": DynamoHandler,
    "dynamodbstreams": DynamoDBStreamsHandler,
    "sqs": SQSResponse,
}
_botocore_parser = create_parser("json")


@functools.cache
def _moto_parser(service: str, operation: str) -> Any:
    """Moto's request parser for one operation, as its server makes one per request."""
    operation_model = get_service_model(service).operation_model(operation)
    return PROTOCOL_PARSERS["json"](operation_model, map_type=HANDLERS[service].PROTOCOL_PARSER_MAP_TYPE)


def answer(url: str, model: OperationModel, request: dict[str, Any], region: str) -> tuple[AWSResponse, dict[str, Any]]:
    """What botocore's `before-call` wants for a call to our stack: the HTTP answer and its parse."""
    status, headers, body = _handle(url, model.service_model.service_name, model.name, request, region)
    http_response = AWSResponse(url, status, headers, MockRawResponse(body))
    response = convert_to_response_dict(http_response, model)
    parsed = _botocore_parser.parse(response, model.output_shape)
    if status >= 300:  # a refusal's modelled fields (CancellationReasons, Item), as botocore's endpoint adds them
        error_shape = model.service_model.shape_for_error_code(parsed.get("Error", {}).get("Code"))
        if error_shape is not None:
            parsed.update(_botocore_parser.parse(response, error_shape))
    parsed.setdefault("ResponseMetadata", {})["RetryAttempts"] = 0
    return http_response, parsed


def _handle(
    url: str, service: str, operation: str, request: dict[str, Any], region: str
) -> tuple[int, dict[str, str], str | bytes]:
    """Moto's handler set up as its `setup_class` sets it up for a request of this
    process's client (credentials of the stack's default account, the region in the URL's
    stead), then run as its server runs it."""
    body = request["body"]
    if isinstance(body, str):
        body = body.encode()
    headers = Headers({name: _text(value) for name, value in request["headers"].items()})
    handler = HANDLERS[service]()
    handler.is_werkzeug_request = False
    handler.uri = url
    handler.path = handler.raw_path = urlsplit(url).path or "/"
    handler.method = request["method"]
    handler.headers = headers
    handler.raw_body = body
    handler.body = body.decode()
    handler.querystring = handler.data = {}
    handler.uri_match = {}
    handler.region = region
    handler.partition = get_partition(region)
    handler.response_headers = {"server": "amazon.com"}
    handler.access_key = "local"
    handler.current_account = DEFAULT_ACCOUNT_ID
    if handler.automated_parameter_parsing:  # the others read their parameters from the body
        handler.params = _moto_parser(service, operation).parse(
            {"method": "POST", "values": {}, "headers": headers, "body": body, "url_path": "/", "url_params": {}}
        )
    status, answer_headers, answer_body = handler.call_action()
    return int(status), {name: str(value) for name, value in answer_headers.items()}, answer_body


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
