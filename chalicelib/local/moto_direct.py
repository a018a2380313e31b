"""Calls of this process to the embedded stack's JSON services (DynamoDB, its stream, SQS),
handed to moto's handler for the service without an HTTP exchange in between
(chalicelib/local/moto_transport.py installs it).

A DynamoDB call is most of what a local request costs, and of each call's cost less than
half was DynamoDB's work: botocore signed the request and sent it through its HTTP layer,
werkzeug built an environment for it, Flask routed it to moto's handler, and moto read the
request back out of that environment (measured with cProfile on four functional test
files: 26 of 38 s of the calls outside moto's backend and its two serialisations). Of what
was left, a fifth was moto serialising its answer to JSON and botocore parsing it back
(py-spy, sampling only the thread that holds the GIL, on eight files).

What stays is everything that decides an answer: botocore validates and serialises the
parameters as for AWS; moto parses that body with its own protocol parser and runs the same
handler and backend its server runs; botocore's parser walks the answer's shape. Skipped are
the envelope (signing, the sockets' stand-in, routing) and, for an answer that is not a
refusal, its JSON: botocore's parser walks the values moto's handler built instead (bytes
where the JSON would carry base64, a datetime where it would carry seconds). A refusal (a
transaction's cancellation reasons among its modelled fields) is serialised and parsed as
before. tests/functional/test_moto_direct.py parses a broad workload's answers both ways and
compares them.

The stream poller's reads and the queue pollers' receives (a third of a test process's CPU
between them) take the same way. S3, whose requests carry more in their URL and headers
than in a body, keeps the WSGI transport; so does anything outside this process."""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any
from urllib.parse import urlsplit

from botocore.awsrequest import AWSResponse
from botocore.endpoint import convert_to_response_dict
from botocore.model import OperationModel, Shape
from botocore.parsers import JSONParser, create_parser
from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.botocore_stubber import MockRawResponse
from moto.core.common_types import TYPE_RESPONSE
from moto.core.parse import PROTOCOL_PARSERS
from moto.core.responses import ActionResult, BaseResponse
from moto.core.serialize import JSONSerializer, TimestampSerializer
from moto.core.utils import get_service_model
from moto.dynamodb.responses import DynamoHandler, DynamoResult
from moto.dynamodbstreams.responses import DynamoDBStreamsHandler
from moto.sqs.responses import SQSResponse
from moto.utilities.utils import get_partition
from werkzeug.datastructures import Headers

# The answers moto serialises as they are (a PaginatedResult, say, pages while it serialises).
_PLAIN_RESULTS = (ActionResult, DynamoResult)
# Set to a list, every answer parsed from moto's values is parsed from its JSON too, and the
# operation is added to it with what differed, or None (tests/functional/test_moto_direct.py).
CROSS_CHECK: list[tuple[str, str | None]] | None = None


class _Keeps(BaseResponse):
    """A handler that keeps a plain answer as it built it instead of serialising it (a refusal,
    or an answer of another kind, is serialised as before)."""

    kept: ActionResult | None = None

    def serialized(self, action_result: ActionResult) -> TYPE_RESPONSE:
        if type(action_result) not in _PLAIN_RESULTS or isinstance(action_result.result, Exception):
            return super().serialized(action_result)
        self.kept = action_result
        return 200, {}, ""


class _DynamoHandler(_Keeps, DynamoHandler):
    pass


class _StreamsHandler(_Keeps, DynamoDBStreamsHandler):
    pass


class _SQSHandler(_Keeps, SQSResponse):
    pass


# botocore's service name -> moto's handler for it, as moto's server routes a request
HANDLERS: dict[str, type[_Keeps]] = {
    "dynamodb": _DynamoHandler,
    "dynamodbstreams": _StreamsHandler,
    "sqs": _SQSHandler,
}


class _ValueParser(JSONParser):  # type: ignore[misc]
    """botocore's JSON parser, walking an answer as moto's handler built it: where the JSON
    would carry a blob in base64 and a timestamp in seconds, the value holds bytes and a datetime."""

    _timestamps = TimestampSerializer(JSONSerializer.DEFAULT_TIMESTAMP_FORMAT)

    def parse_value(self, shape: Shape, value: Any) -> dict[str, Any]:
        return self._parse_shape(shape, value)  # type: ignore[no-any-return]

    def _handle_blob(self, shape: Shape, value: Any) -> Any:
        return value if isinstance(value, bytes) else super()._handle_blob(shape, value)

    def _handle_timestamp(self, shape: Shape, value: Any) -> Any:
        if isinstance(value, dt.datetime):  # into the seconds moto's serialiser would write
            wire: dict[str, Any] = {}
            self._timestamps.serialize(wire, value, shape, "value")
            value = wire["value"]
        return super()._handle_timestamp(shape, value)

    def _handle_structure(self, shape: Shape, value: Any) -> Any:
        if shape.name == "AttributeValue" and isinstance(value, dict) and len(value) == 1:
            # each value of every item: its one member looked up, instead of all ten tried
            ((tag, inner),) = value.items()
            member = shape.members.get(tag)
            if member is not None:
                return {} if inner is None else {tag: self._parse_shape(member, inner)}
        return super()._handle_structure(shape, value)


_botocore_parser = create_parser("json")
_value_parser = _ValueParser()


@functools.cache
def _moto_parser(service: str, operation: str) -> Any:
    """Moto's request parser for one operation, as its server makes one per request."""
    operation_model = get_service_model(service).operation_model(operation)
    return PROTOCOL_PARSERS["json"](operation_model, map_type=HANDLERS[service].PROTOCOL_PARSER_MAP_TYPE)


def answer(url: str, model: OperationModel, request: dict[str, Any], region: str) -> tuple[AWSResponse, dict[str, Any]]:
    """What botocore's `before-call` wants for a call to our stack: the HTTP answer and its parse."""
    handler = _handler(url, model.service_model.service_name, model.name, request, region)
    status, answer_headers, body = handler.call_action()
    headers = {name: str(value) for name, value in answer_headers.items()}
    if handler.kept is not None and int(status) < 300:
        parsed = _parse_value(model, handler.kept.result, headers)
        if CROSS_CHECK is not None:
            _cross_check(model, handler, parsed)
        return AWSResponse(url, int(status), headers, MockRawResponse(b"")), parsed
    http_response = AWSResponse(url, int(status), headers, MockRawResponse(body))
    return http_response, _parse_wire(model, http_response)


def _parse_wire(model: OperationModel, http_response: AWSResponse) -> dict[str, Any]:
    """botocore's parse of a serialised answer, a refusal's modelled fields (CancellationReasons,
    Item) included as its endpoint adds them."""
    response = convert_to_response_dict(http_response, model)
    parsed: dict[str, Any] = _botocore_parser.parse(response, model.output_shape)
    if http_response.status_code >= 300:
        error_shape = model.service_model.shape_for_error_code(parsed.get("Error", {}).get("Code"))
        if error_shape is not None:
            parsed.update(_botocore_parser.parse(response, error_shape))
    parsed.setdefault("ResponseMetadata", {})["RetryAttempts"] = 0
    return parsed


def _parse_value(model: OperationModel, value: Any, headers: dict[str, str]) -> dict[str, Any]:
    """botocore's parse of an answer before serialisation, with the metadata its parser adds."""
    parsed = {} if model.output_shape is None else _value_parser.parse_value(model.output_shape, value)
    parsed["ResponseMetadata"] = {
        "RequestId": headers.get("x-amzn-requestid", ""),
        "HTTPStatusCode": 200,
        "HTTPHeaders": {name.lower(): value for name, value in headers.items()},
        "RetryAttempts": 0,
    }
    return parsed


def _cross_check(model: OperationModel, handler: _Keeps, parsed: dict[str, Any]) -> None:
    assert handler.kept is not None and CROSS_CHECK is not None
    status, headers, body = BaseResponse.serialized(handler, handler.kept)
    wire = _parse_wire(model, AWSResponse("", int(status), headers, MockRawResponse(body)))
    wire.pop("ResponseMetadata")
    mine = {name: value for name, value in parsed.items() if name != "ResponseMetadata"}
    CROSS_CHECK.append((model.name, None if wire == mine else f"from the JSON {wire!r}, from the values {mine!r}"))


def _handler(url: str, service: str, operation: str, request: dict[str, Any], region: str) -> _Keeps:
    """Moto's handler set up as its `setup_class` sets it up for a request of this process's
    client (credentials of the stack's default account, the region in the URL's stead)."""
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
    return handler


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
