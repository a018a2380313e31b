"""Events shaped as AWS documents them, and the services' side of each event source:

- API Gateway (REST API, Lambda proxy integration, payload 1.0): the route chosen from the
  template's own paths (literal segments before {parameters}), the integration's function
  from its URI, multi-value headers and query strings, a base64 body for the binary media
  types, and the function's answer read back as API Gateway reads it (502 when malformed).
- DynamoDB Streams: records read from the table's stream (TRIM_HORIZON), in Lambda's record
  form (numbers for times, base64 for binary attributes, the stream's ARN), passed through the
  event source's FilterCriteria, in batches of its BatchSize.
- SQS: messages received with all attributes (a FIFO queue's group, sequence and
  deduplication ids), in batches of the event source's BatchSize; with ReportBatchItemFailures
  the messages the answer does not name are deleted, the named ones stay for a retry.
- EventBridge's scheduled event.
- CloudWatch Logs: a subscription filter's batch of the log lines its pattern matches
  (base64 of gzip of JSON), as the function it names receives it."""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import json
import re
import urllib.parse
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatch
from typing import Any

from infra.lambda_check.functions import Running
from infra.lambda_check.stand_in import StandIn
from infra.lambda_check.template import ACCOUNT, REGION, Template, TemplateError

SOURCE_IP = "198.51.100.23"  # documentation range: a caller on the internet


# API Gateway --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, list[str]]  # lower-case names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    def header(self, name: str) -> str | None:
        values = self.headers.get(name.lower())
        return values[-1] if values else None


class Gateway:
    def __init__(self, template: Template, functions: Mapping[str, Running]) -> None:
        self.routes = template.api_paths()
        self.binary_types = template.binary_media_types()
        self.stage = template.stage_name()
        self.by_physical = {running.physical_name: running for running in functions.values()}
        self.api_id = "lambdacheck"

    def route(self, method: str, path: str) -> tuple[str, dict[str, str], dict[str, Any]]:
        """The resource path template, the path parameters and the integration."""
        segments = path.strip("/").split("/")
        best: tuple[tuple[int, ...], str, dict[str, str]] | None = None
        for template_path, methods in self.routes.items():
            parts = template_path.strip("/").split("/")
            if len(parts) != len(segments) or method.upper() not in methods:
                continue
            params: dict[str, str] = {}
            rank: list[int] = []
            for part, segment in zip(parts, segments, strict=True):
                if part.startswith("{") and part.endswith("}"):
                    params[part[1:-1]] = urllib.parse.unquote(segment)
                    rank.append(0)
                elif part == segment:
                    rank.append(1)
                else:
                    break
            else:
                if best is None or tuple(rank) > best[0]:
                    best = (tuple(rank), template_path, params)
        if best is None:
            raise LookupError(f"no route for {method} {path}: API Gateway answers 403/404 itself")
        return best[1], best[2], self.routes[best[1]][method.upper()]

    def function_of(self, integration: dict[str, Any]) -> Running:
        if integration.get("type") != "aws_proxy":
            raise TemplateError(f"integration type {integration.get('type')}: the check knows aws_proxy")
        found = re.search(r":function:([^/]+)/invocations$", str(integration.get("uri")))
        if not found or found.group(1) not in self.by_physical:
            raise TemplateError(f"integration URI {integration.get('uri')} names no function of the template")
        return self.by_physical[found.group(1)]

    def request(
        self,
        method: str,
        path_and_query: str,
        *,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
    ) -> Answer:
        parsed = urllib.parse.urlsplit(path_and_query)
        resource, params, integration = self.route(method, parsed.path)
        running = self.function_of(integration)
        event = self.event(method, parsed.path, parsed.query, resource, params, dict(headers or {}), body)
        return self.read_answer(running.call(event))

    def event(
        self,
        method: str,
        path: str,
        query: str,
        resource: str,
        params: dict[str, str],
        headers: dict[str, str],
        body: bytes | None,
    ) -> dict[str, Any]:
        now = dt.datetime.now(dt.UTC)
        request_id = str(uuid.uuid4())
        host = f"{self.api_id}.execute-api.{REGION}.amazonaws.com"
        sent = {
            "Host": host,
            "X-Forwarded-For": SOURCE_IP,
            "X-Forwarded-Port": "443",
            "X-Forwarded-Proto": "https",
            "X-Amzn-Trace-Id": f"Root=1-{int(now.timestamp()):08x}-{uuid.uuid4().hex[:24]}",
            "User-Agent": "lambda-check",
            **headers,
        }
        pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        multi_query: dict[str, list[str]] = {}
        for name, value in pairs:
            multi_query.setdefault(name, []).append(value)
        content_type = next((v for k, v in sent.items() if k.lower() == "content-type"), "")
        binary = body is not None and any(fnmatch(content_type.split(";")[0].strip(), t) for t in self.binary_types)
        return {
            "resource": resource,
            "path": path,
            "httpMethod": method.upper(),
            "headers": sent,
            "multiValueHeaders": {k: [v] for k, v in sent.items()},
            "queryStringParameters": {k: v[-1] for k, v in multi_query.items()} or None,
            "multiValueQueryStringParameters": multi_query or None,
            "pathParameters": params or None,
            "stageVariables": None,
            "requestContext": {
                "resourceId": "abc123",
                "resourcePath": resource,
                "httpMethod": method.upper(),
                "extendedRequestId": base64.b64encode(uuid.uuid4().bytes)[:16].decode(),
                "requestTime": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
                "path": f"/{self.stage}{path}",
                "accountId": ACCOUNT,
                "protocol": "HTTP/1.1",
                "stage": self.stage,
                "domainPrefix": self.api_id,
                "requestTimeEpoch": int(now.timestamp() * 1000),
                "requestId": request_id,
                "identity": {
                    "cognitoIdentityPoolId": None,
                    "accountId": None,
                    "cognitoIdentityId": None,
                    "caller": None,
                    "sourceIp": SOURCE_IP,
                    "principalOrgId": None,
                    "accessKey": None,
                    "cognitoAuthenticationType": None,
                    "cognitoAuthenticationProvider": None,
                    "userArn": None,
                    "userAgent": sent["User-Agent"],
                    "user": None,
                },
                "domainName": host,
                "apiId": self.api_id,
            },
            "body": None if body is None else base64.b64encode(body).decode() if binary else body.decode("utf-8"),
            "isBase64Encoded": binary,
        }

    @staticmethod
    def read_answer(result: Any) -> Answer:
        """As API Gateway reads a proxy integration's answer: a malformed one is a 502."""
        if not isinstance(result, dict) or not isinstance(result.get("statusCode"), int):
            return Answer(502, {}, b'{"message": "Internal server error"}')
        headers: dict[str, list[str]] = {}
        for name, value in (result.get("headers") or {}).items():
            headers[name.lower()] = [str(value)]
        for name, values in (result.get("multiValueHeaders") or {}).items():
            headers[name.lower()] = [str(v) for v in values]
        raw = result.get("body") or ""
        body = base64.b64decode(raw) if result.get("isBase64Encoded") else str(raw).encode()
        return Answer(result["statusCode"], headers, body)


# DynamoDB Streams ---------------------------------------------------------------------------------
def matches(pattern: Any, value: Any) -> bool:
    """Lambda's event filtering (the subset the template uses: exact values, prefix,
    anything-but, exists); an unknown operator is an error, not a match."""
    if isinstance(pattern, dict):
        if not isinstance(value, dict):
            return False
        return all(matches(sub, value.get(key, _MISSING)) for key, sub in pattern.items())
    if isinstance(pattern, list):
        return any(_one(rule, value) for rule in pattern)
    raise TemplateError(f"filter pattern leaf {pattern!r} is not a list")


_MISSING = object()


def _one(rule: Any, value: Any) -> bool:
    if isinstance(rule, dict):
        ((operator, operand),) = rule.items()
        if operator == "exists":
            return (value is not _MISSING) == operand
        if value is _MISSING:
            return False
        if operator == "prefix":
            return isinstance(value, str) and value.startswith(operand)
        if operator == "anything-but":
            return value not in (operand if isinstance(operand, list) else [operand])
        raise TemplateError(f"filter operator {operator} is not known to the check")
    return value is not _MISSING and value == rule


def _lambda_form(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {k: _lambda_form(v) for k, v in value.items()}
    if isinstance(value, list | set | tuple):
        return [_lambda_form(v) for v in value]
    if isinstance(value, dt.datetime):
        return value.timestamp()
    return value


class Stream:
    def __init__(self, stand_in: StandIn, source: dict[str, Any]) -> None:
        props = source["Properties"]
        self.arn = props["Stream"]
        self.batch_size = int(props.get("BatchSize", 100))
        self.filters = [json.loads(f["Pattern"]) for f in props.get("FilterCriteria", {}).get("Filters", [])]
        self.client = stand_in.client("dynamodbstreams")
        position = props.get("StartingPosition", "LATEST")
        shards = self.client.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]
        self.iterators = [
            self.client.get_shard_iterator(StreamArn=self.arn, ShardId=s["ShardId"], ShardIteratorType=position)[
                "ShardIterator"
            ]
            for s in shards
        ]
        self.filtered_out = 0

    def read(self) -> list[dict[str, Any]]:
        """Every record written since the last read, in Lambda's form, filtered."""
        records: list[dict[str, Any]] = []
        for index, iterator in enumerate(self.iterators):
            while iterator:
                page = self.client.get_records(ShardIterator=iterator, Limit=1000)
                iterator = page.get("NextShardIterator")
                records += page["Records"]
                if not page["Records"]:
                    break
            self.iterators[index] = iterator
        shaped = [{**_lambda_form(r), "eventSourceARN": self.arn} for r in records]
        kept = [r for r in shaped if not self.filters or any(matches(f, r) for f in self.filters)]
        self.filtered_out += len(shaped) - len(kept)
        return kept

    def deliver(self, running: Running) -> list[dict[str, Any]]:
        """Reads the stream and invokes the function batch by batch; the answers."""
        records = self.read()
        answers = []
        for start in range(0, len(records), self.batch_size):
            answers.append(running.call({"Records": records[start : start + self.batch_size]}))
        return answers


# SQS -------------------------------------------------------------------------------------------------
class Queue:
    def __init__(self, stand_in: StandIn, source: dict[str, Any]) -> None:
        props = source["Properties"]
        self.arn = props["Queue"]
        self.batch_size = int(props.get("BatchSize", 10))
        self.reports_items = "ReportBatchItemFailures" in props.get("FunctionResponseTypes", [])
        self.client = stand_in.client("sqs")
        name = self.arn.rsplit(":", 1)[1]
        self.url = self.client.get_queue_url(QueueName=name)["QueueUrl"]

    def receive(self) -> list[dict[str, Any]]:
        return list(
            self.client.receive_message(
                QueueUrl=self.url,
                MaxNumberOfMessages=self.batch_size,
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
                WaitTimeSeconds=0,
            ).get("Messages", [])
        )

    def record(self, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": message.get("Attributes", {}),
            "messageAttributes": {
                name: {
                    "stringValue": a.get("StringValue"),
                    "binaryValue": base64.b64encode(a["BinaryValue"]).decode() if "BinaryValue" in a else None,
                    "stringListValues": [],
                    "binaryListValues": [],
                    "dataType": a["DataType"],
                }
                for name, a in message.get("MessageAttributes", {}).items()
            },
            "md5OfBody": message["MD5OfBody"],
            "eventSource": "aws:sqs",
            "eventSourceARN": self.arn,
            "awsRegion": REGION,
        }

    def deliver(self, running: Running) -> tuple[list[dict[str, Any]], Any]:
        """One batch: the records sent and the function's answer; the messages it handled
        are deleted, those it names as failures (or all, should it fail) stay."""
        messages = self.receive()
        if not messages:
            return [], None
        records = [self.record(m) for m in messages]
        invocation = running.invoke({"Records": records})
        failed: set[str] = {r["messageId"] for r in records}
        if invocation.error is None:
            answer = invocation.result
            if self.reports_items:
                if not isinstance(answer, dict) or not isinstance(answer.get("batchItemFailures"), list):
                    raise AssertionError(f"{running.function.name}: no batchItemFailures in {answer!r}")
                failed = {f["itemIdentifier"] for f in answer["batchItemFailures"]}
            else:
                failed = set()
        for message, record in zip(messages, records, strict=True):
            if record["messageId"] not in failed:
                self.client.delete_message(QueueUrl=self.url, ReceiptHandle=message["ReceiptHandle"])
        return records, invocation.result if invocation.error is None else invocation.error


# EventBridge -------------------------------------------------------------------------------------
def scheduled(rule: str) -> dict[str, Any]:
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": ACCOUNT,
        "time": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": REGION,
        "resources": [f"arn:aws:events:{REGION}:{ACCOUNT}:rule/{rule}"],
        "detail": {},
    }


# CloudWatch Logs ---------------------------------------------------------------------------------
_JSON_EQUALS = re.compile(r'^\{\s*\$\.([A-Za-z_][\w.]*)\s*=\s*"([^"*]*)"\s*\}$')


def log_filter_matches(pattern: str, message: str) -> bool:
    """CloudWatch Logs' filter pattern for JSON log events, in the one form the template uses
    (`{ $.a.b = "value" }`: a string property equal to a value); any other pattern is refused,
    so a template that starts using one fails here instead of passing untested."""
    found = _JSON_EQUALS.match(pattern.strip())
    if found is None:
        raise TemplateError(f'filter pattern {pattern!r}: only {{ $.path = "value" }} is understood here')
    try:
        value: Any = json.loads(message)
    except ValueError:
        return False
    for step in found.group(1).split("."):
        if not isinstance(value, dict) or step not in value:
            return False
        value = value[step]
    return value == found.group(2)


def subscription_event(messages: list[str], log_group: str, filter_name: str, pattern: str) -> dict[str, Any]:
    """What a subscription filter hands a Lambda function: `{"awslogs": {"data": ...}}`, the
    base64 of the gzip of the batch's JSON, holding the log events that match the pattern."""
    now = int(dt.datetime.now(dt.UTC).timestamp() * 1000)
    batch = {
        "messageType": "DATA_MESSAGE",
        "owner": ACCOUNT,
        "logGroup": log_group,
        "logStream": f"{dt.date.today():%Y/%m/%d}/[$LATEST]{uuid.uuid4().hex}",
        "subscriptionFilters": [filter_name],
        "logEvents": [
            {"id": str(36_000_000_000_000_000_000_000_000 + n), "timestamp": now, "message": message}
            for n, message in enumerate(messages)
            if log_filter_matches(pattern, message)
        ],
    }
    return {"awslogs": {"data": base64.b64encode(gzip.compress(json.dumps(batch).encode())).decode()}}
