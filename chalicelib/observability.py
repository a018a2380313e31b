"""Metrics and traces (Powertools), and the switches that keep both quiet off Lambda.

Metrics are CloudWatch embedded-metric-format (EMF) lines on stdout: Lambda hands stdout
to CloudWatch Logs, which turns each line into metric data points; nothing else is called.
Namespace `PropertyManagement` (or POWERTOOLS_METRICS_NAMESPACE); every metric carries the
dimension `stage` (PM_STAGE, default `local`). Each event is written as one line the moment
it happens (`emit`), from its own Powertools EMF provider: nothing is buffered, so nothing
is lost when an invocation ends or fails and nothing is flushed twice; no dimension of one
request can leak into another's line; and the thread pools (webhook senders, upload
registration) never share a metric set. A shared `Metrics` object would need all three
guarded, and a flush at the end of every invocation; `single_metric` ignores
POWERTOOLS_METRICS_DISABLED in Powertools 3.37 and holds one metric per line.

What is emitted:
  Requests, Errors, ClientErrors (Count), Latency (Milliseconds)   per REST/MCP request
      dimensions [stage, operation] and [stage]; Errors 1 for status >= 500, ClientErrors
      1 for 4xx, 0 otherwise (their Average is the error rate)
  ToolCalls, ToolErrors (Count), ToolLatency (Milliseconds)        per MCP tool call
      dimensions [stage, tool]
  WebhookDeliveries (Count)                                        per delivery attempt
      dimensions [stage, outcome], outcome delivered | retry | failed | gone
  UploadsRegistered (Count) + UploadBytes (Bytes), UploadsRefused (Count)
      dimensions [stage]; a refusal's code as EMF metadata (in the log line, not a metric)

Switches (environment):
  metrics  on where AWS_LAMBDA_FUNCTION_NAME is set (in Lambda), off elsewhere (`make
           serve`, tests, pmctl); POWERTOOLS_METRICS_DISABLED=true|false overrides either
           way (and POWERTOOLS_DEV=true without it turns them off, as in Powertools).
  traces   Powertools' own rule: on in Lambda (LAMBDA_TASK_ROOT set, and neither SAM local
           nor `chalice local`), off elsewhere; POWERTOOLS_TRACE_DISABLED=true turns them
           off. X-Ray records them only with active tracing on the function (Chalice's
           `"xray": true`). aws_xray_sdk is imported, and boto3/httplib patched, on the
           first traced invocation, never by `import app`.

The Chalice middleware (`middleware`, registered in app.py for every event type) opens one
X-Ray subsegment per invocation and, in Lambda, puts the invocation's keys on the logger."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any, cast

from aws_lambda_powertools import Tracer
from aws_lambda_powertools.logging.lambda_context import build_lambda_context_model
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider
from aws_lambda_powertools.shared.functions import strtobool

from chalicelib import config
from chalicelib.log import logger

SERVICE = "propertymanagement"
DEFAULT_NAMESPACE = "PropertyManagement"
_REQUEST_KEYS = ("request_id", "operation", "tenant", "agent")


def _flag(name: str) -> bool | None:
    value = config.flag(name)
    if value is None or not value.strip():
        return None
    try:
        return strtobool(value.strip())
    except ValueError:
        return None


def metrics_enabled() -> bool:
    disabled = _flag("POWERTOOLS_METRICS_DISABLED")
    if disabled is not None:
        return not disabled
    if _flag("POWERTOOLS_DEV"):
        return False
    return config.in_lambda()


def tracing_enabled() -> bool:
    if _flag("POWERTOOLS_TRACE_DISABLED"):
        return False
    return config.lambda_task_root()


def namespace() -> str:
    return config.metrics_namespace(DEFAULT_NAMESPACE)


# ---------------------------------------------------------------------------------- metrics

_write_lock = threading.Lock()


def emit(
    metrics: Mapping[str, tuple[str, float]],
    dimensions: Mapping[str, str] | None = None,
    *,
    rollup: bool = False,
    metadata: Mapping[str, Any] | None = None,
) -> None:
    """Writes one EMF line: `metrics` (name -> (unit, value)) under `stage` plus
    `dimensions`; `rollup` adds the dimension set [stage] (the same data points summed over
    all values of `dimensions`). Never raises: a metric is not worth a failed request."""
    if not metrics_enabled():
        return
    try:
        # service="" keeps Powertools from adding a `service` dimension (POWERTOOLS_SERVICE_NAME)
        provider = AmazonCloudWatchEMFProvider(
            namespace=namespace(),
            service="",
            metric_set={},
            dimension_set={},
            default_dimensions={"stage": config.stage()},
        )
        for name, (unit, value) in metrics.items():
            provider.add_metric(name=name, unit=unit, value=value)
        for key, dim in (dimensions or {}).items():
            provider.add_dimension(name=key, value=dim or "none")
        if rollup and dimensions:
            provider.add_dimensions(stage=config.stage())
        for key, meta in (metadata or {}).items():
            provider.add_metadata(key=key, value=meta)
        line = json.dumps(provider.serialize_metric_set(), separators=(",", ":")) + "\n"
    except Exception:  # noqa: BLE001 - see the docstring
        logger.exception("metric not emitted", extra={"metrics": sorted(metrics)})
        return
    with _write_lock:  # one write per line: lines from the thread pools never interleave
        sys.stdout.write(line)
        sys.stdout.flush()


def record_request(operation: str, status: int, ms: float) -> None:
    emit(
        {
            "Requests": ("Count", 1),
            "Errors": ("Count", 1 if status >= 500 else 0),
            "ClientErrors": ("Count", 1 if 400 <= status < 500 else 0),
            "Latency": ("Milliseconds", ms),
        },
        {"operation": operation},
        rollup=True,
    )


def record_tool_call(tool: str, is_error: bool, ms: float) -> None:
    emit(
        {"ToolCalls": ("Count", 1), "ToolErrors": ("Count", 1 if is_error else 0), "ToolLatency": ("Milliseconds", ms)},
        {"tool": tool},
    )


def record_delivery(outcome: str) -> None:
    """outcome: delivered, retry (failed, tried again later), failed (given up), gone (410 or
    the webhook was deleted)."""
    emit({"WebhookDeliveries": ("Count", 1)}, {"outcome": outcome})


def record_upload_registered(size: int) -> None:
    emit({"UploadsRegistered": ("Count", 1), "UploadBytes": ("Bytes", size)})


def record_upload_refused(code: str) -> None:
    emit({"UploadsRefused": ("Count", 1)}, metadata={"code": code})


# ----------------------------------------------------------------------------------- traces

_tracer: Tracer | None = None
_tracer_lock = threading.Lock()


def tracer() -> Tracer:
    """The one Tracer, made on first use (it imports aws_xray_sdk and patches boto3)."""
    global _tracer
    with _tracer_lock:
        if _tracer is None:
            _tracer = Tracer(service=SERVICE)
        return _tracer


def annotate(**annotations: str | int | bool | None) -> None:
    """Annotations on the current subsegment (searchable in X-Ray); never a key or header.
    A no-op unless tracing is on, and outside a subsegment."""
    if _tracer is None or _tracer.disabled:
        return
    try:
        for key, value in annotations.items():
            if value is not None:
                _tracer.put_annotation(key=key, value=cast(Any, value))  # int is a Number; mypy does not know
    except Exception:  # noqa: BLE001 - e.g. no open subsegment in this thread
        logger.debug("trace annotation skipped", exc_info=True)


# ------------------------------------------------------------------------------- middleware

_cold_start = True


def _kind(event: Any) -> str:
    name = type(event).__name__
    return {
        "Request": "http",
        "SQSEvent": "sqs",
        "DynamoDBEvent": "dynamodb_stream",
        "CloudWatchEvent": "schedule",
    }.get(name, name)


def middleware(event: Any, get_response: Callable[[Any], Any]) -> Any:
    """Chalice middleware for every event type: the invocation's logger keys (in Lambda)
    and one subsegment named after the event kind, annotated ColdStart and Service."""
    global _cold_start
    cold, _cold_start = _cold_start, False
    context = getattr(event, "lambda_context", None) or getattr(event, "context", None)
    if config.in_lambda():
        _log_invocation(context, cold)
    if not tracing_enabled():
        return get_response(event)
    with tracer().provider.in_subsegment(name=f"## {_kind(event)}") as subsegment:
        subsegment.put_annotation(key="ColdStart", value=cold)
        subsegment.put_annotation(key="Service", value=SERVICE)
        return get_response(event)


def _log_invocation(context: Any, cold: bool) -> None:
    """A warm Lambda keeps the logger: drop the previous request's keys, add this
    invocation's (function_request_id is Lambda's request id; http.answer adds request_id,
    API Gateway's, which X-Request-Id answers)."""
    logger.remove_keys(_REQUEST_KEYS)
    keys: dict[str, Any] = {"cold_start": cold}
    if context is not None and hasattr(context, "aws_request_id"):
        keys.update(build_lambda_context_model(context).__dict__)
    logger.append_keys(**keys)
