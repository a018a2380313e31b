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
than in a body, keeps the WSGI transport; so does anything outside this process.

The parameters skip their JSON too (`call`, in botocore's `_make_api_call` stead): botocore
validates them as for AWS and runs the same events (`provide-client-params`,
`before-parameter-build`, `before-call`, `after-call`), but serialises them only if a
`before-call` handler reads the body (the tests' fault injector does); moto's own request
parser walks the values instead of the JSON (`_ValueRequestParser`). Serialising, resolving
the endpoint and moto's parse were a sixth of a write-heavy test's CPU (py-spy, three
functional files). Under CROSS_CHECK every request is parsed both ways and compared too."""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any
from urllib.parse import urlsplit

from botocore.awsrequest import AWSResponse
from botocore.client import BaseClient
from botocore.endpoint import convert_to_response_dict
from botocore.exceptions import ParamValidationError
from botocore.model import OperationModel, Shape
from botocore.parsers import JSONParser, create_parser
from botocore.serialize import JSONSerializer as BotocoreJSONSerializer
from botocore.serialize import create_serializer
from botocore.validate import ParamValidator
from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.botocore_stubber import MockRawResponse
from moto.core.common_types import TYPE_RESPONSE
from moto.core.parse import PROTOCOL_PARSERS
from moto.core.parse import JSONParser as MotoJSONParser
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
            return self._attribute_value(shape, value)
        return super()._handle_structure(shape, value)

    def _attribute_value(self, shape: Shape, value: dict[str, Any]) -> Any:
        """Each value of every item (a dict of one member): what the parser makes of it, made
        directly for the kinds that hold only text, flags and more such values, which it would
        copy as they are; its one member looked up for the others, instead of all ten tried."""
        ((tag, inner),) = value.items()
        if tag in _TEXT_OR_FLAG and inner is not None:
            return {tag: inner}
        if tag == "M" and type(inner) is dict and all(_one_member(v) for v in inner.values()):
            return {"M": {key: self._attribute_value(shape, v) for key, v in inner.items()}}
        if tag == "L" and type(inner) is list and all(_one_member(v) for v in inner):
            return {"L": [self._attribute_value(shape, v) for v in inner]}
        member = shape.members.get(tag)
        if member is None:
            return super()._handle_structure(shape, value)
        return {} if inner is None else {tag: self._parse_shape(member, inner)}


# The members of an AttributeValue that botocore's parser hands on as they are: text (a string,
# a number's digits) and flags.
_TEXT_OR_FLAG = frozenset({"S", "N", "BOOL", "NULL"})


def _one_member(value: Any) -> bool:
    return type(value) is dict and len(value) == 1


_botocore_parser = create_parser("json")
_value_parser = _ValueParser()


@functools.cache
def _moto_parser(service: str, operation: str) -> Any:
    """Moto's request parser for one operation, as its server makes one per request."""
    operation_model = get_service_model(service).operation_model(operation)
    return PROTOCOL_PARSERS["json"](operation_model, map_type=HANDLERS[service].PROTOCOL_PARSER_MAP_TYPE)


class _ValueRequestParser(MotoJSONParser):  # type: ignore[misc]
    """Moto's JSON request parser, walking the parameters as botocore holds them before it
    serialises them: what it makes of them is what it makes of their JSON (the members under
    their own names, a blob as its bytes, a timestamp through the seconds botocore would send)."""

    _botocore = BotocoreJSONSerializer()  # its conversions of a blob and a timestamp for the wire

    def parse_values(self, params: dict[str, Any]) -> Any:
        shape = self.operation_model.input_shape
        return self.MAP_TYPE() if shape is None else self._parse_shape(shape, params)

    def _parse_structure(self, shape: Shape, value: Any) -> Any:
        if shape.is_document_type or value is None:
            return value
        parsed = self.MAP_TYPE()
        for name, member in shape.members.items():
            raw = value.get(name)
            if raw is not None:
                parsed[name] = self._parse_shape(member, raw)
        return parsed

    def _parse_blob(self, shape: Shape, value: Any) -> Any:
        if isinstance(value, (bytes, bytearray)):
            return bytes(value)
        if isinstance(value, str):
            return value.encode("utf-8")
        return super()._parse_blob(shape, self._botocore._get_base64(value))

    def _parse_timestamp(self, shape: Shape, value: Any) -> Any:
        wire_format = shape.serialization.get("timestampFormat") or self._botocore.TIMESTAMP_FORMAT
        return super()._parse_timestamp(shape, self._botocore._convert_timestamp_to_str(value, wire_format))


@functools.cache
def _value_parser_for(service: str, operation: str) -> _ValueRequestParser:
    operation_model = get_service_model(service).operation_model(operation)
    return _ValueRequestParser(operation_model, map_type=HANDLERS[service].PROTOCOL_PARSER_MAP_TYPE)


_header_serializer = create_serializer("json", include_validation=False)
_validator = ParamValidator()  # holds nothing between calls


@functools.cache
def _json_headers(model: OperationModel) -> dict[str, str]:
    """The headers botocore's JSON serialiser gives a request of the operation (its target, the
    content type): they do not depend on the parameters."""
    return dict(_header_serializer.serialize_to_request({}, model)["headers"])


class Unserialised(dict[str, Any]):
    """The request botocore's `before-call` hands its handlers, made without serialising the
    parameters (`api_params`): the rest of a request (its body, path and query) is made from them
    on first read, as botocore would have made it."""

    def __init__(self, client: BaseClient, model: OperationModel, api_params: dict[str, Any], context: dict[str, Any]):
        url = client.meta.endpoint_url
        super().__init__(url=url + "/", method="POST", headers=dict(_json_headers(model)), context=context)
        self.api_params, self._client, self._model, self._serialised = api_params, client, model, False

    def _serialise(self) -> None:
        if not self._serialised:
            self._serialised = True
            made = self._client._convert_to_request_dict(
                self.api_params, self._model, self._client.meta.endpoint_url, self["context"]
            )
            made["headers"].update(self["headers"])
            self.update(made)

    def __missing__(self, key: str) -> Any:
        self._serialise()
        if key in self:
            return self[key]
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        if key not in self:
            self._serialise()
        return super().get(key, default)


def call(client: BaseClient, operation_name: str, api_params: dict[str, Any]) -> Any:
    """botocore's `_make_api_call` for a client of our stack's JSON services, its parameters
    handed on as values (see the module's doc)."""
    model = client.meta.service_model.operation_model(operation_name)
    context = {
        "client_region": client.meta.region_name,
        "client_config": client.meta.config,
        "has_streaming_input": model.has_streaming_input,
        "auth_type": model.resolved_auth_type,
        "unsigned_payload": model.unsigned_payload,
        "auth_options": client.meta.service_model.metadata.get("auth"),
    }
    api_params = client._emit_api_params(api_params=api_params, operation_model=model, context=context)
    if client.meta.config.parameter_validation:
        report = _validator.validate(api_params, model.input_shape)
        if report.has_errors():
            raise ParamValidationError(report=report.generate_report())
    service_id = client.meta.service_model.service_id.hyphenize()
    request = Unserialised(client, model, api_params, context)
    _, answered = client.meta.events.emit_until_response(
        f"before-call.{service_id}.{operation_name}",
        model=model,
        params=request,
        request_signer=client._request_signer,
        context=context,
    )
    assert answered is not None, f"{operation_name}: no before-call handler answered (moto_transport installs one)"
    http, parsed = answered
    client.meta.events.emit(
        f"after-call.{service_id}.{operation_name}", http_response=http, parsed=parsed, model=model, context=context
    )
    if http.status_code >= 300:
        code = context.get("error_code_override") or parsed.get("Error", {}).get("Code")
        raise client.exceptions.from_code(code)(parsed, operation_name)
    return parsed


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
    handler = HANDLERS[service]()
    # a handler that parses its parameters (DynamoDB's, SQS's) reads no body: an unserialised
    # request's is not made for it
    unread = isinstance(request, Unserialised) and handler.automated_parameter_parsing
    body = b"" if unread else _bytes(request["body"])
    headers = Headers({name: _text(value) for name, value in request["headers"].items()})
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
        handler.params = _parsed_request(service, operation, request, body, headers)
    return handler


def _parsed_request(service: str, operation: str, request: dict[str, Any], body: bytes, headers: Headers) -> Any:
    """Moto's parse of the request: of its values when it comes unserialised (`call`), else of its body."""
    if not isinstance(request, Unserialised):
        return _wire_request(service, operation, body, headers)
    parsed = _value_parser_for(service, operation).parse_values(request.api_params)
    if CROSS_CHECK is not None:
        wire = _wire_request(service, operation, _bytes(request["body"]), headers)
        difference = None if wire == parsed else f"from the JSON {wire!r}, from the values {parsed!r}"
        CROSS_CHECK.append((f"{operation} request", difference))
    return parsed


def _wire_request(service: str, operation: str, body: bytes, headers: Headers) -> Any:
    return _moto_parser(service, operation).parse(
        {"method": "POST", "values": {}, "headers": headers, "body": body, "url_path": "/", "url_params": {}}
    )


def _bytes(value: Any) -> bytes:
    return value.encode() if isinstance(value, str) else bytes(value)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
