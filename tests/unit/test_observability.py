"""Observability: metrics as CloudWatch EMF lines (names, units, dimensions; silent off
Lambda), secrets redacted from every log line, and a Lambda invocation end to end (logger
keys, metrics, X-Ray subsegments) in a process of its own."""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from chalice import Response  # type: ignore[attr-defined]

from chalicelib import clock, http, observability
from chalicelib.errors import NotFound
from chalicelib.events import deliveries
from chalicelib.events.sender import Outcome
from chalicelib.log import logger, redact_text
from chalicelib.store import mailed_codes
from chalicelib.store.deliveries import StoredDelivery, get_delivery
from tests.unit.test_deliveries import _webhook

ROOT = Path(__file__).resolve().parents[2]
KEY = "pm_live_" + "k" * 30 + "chk123"  # the shape of an API key
TEST_KEY = "pm_test_" + "t" * 30 + "chk456"
WEBHOOK_SECRET = "whsec_" + "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"
SANDBOX_KEY = "pm_sandbox_" + "s" * 30 + "chk789"
MAILED_CODE = "K7XM-4QPT"  # the shape of a mailed sign-up or sign-in code
SESSION = "Zm9vYmFyLXNlc3Npb24tdG9rZW4tMzItYnl0ZXM"  # a console session cookie's value


@pytest.fixture()
def metrics_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    monkeypatch.setenv("PM_STAGE", "prod")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "propertymanagement")  # must not become a dimension
    monkeypatch.delenv("POWERTOOLS_METRICS_NAMESPACE", raising=False)


def emf_lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith('{"_aws"')]


def definition(line: dict[str, Any]) -> dict[str, Any]:
    (directive,) = line["_aws"]["CloudWatchMetrics"]
    return directive  # type: ignore[no-any-return]


def units(line: dict[str, Any]) -> dict[str, str]:
    return {m["Name"]: m["Unit"] for m in definition(line)["Metrics"]}


def value(line: dict[str, Any], name: str) -> float:
    raw = line[name]
    return float(raw[0] if isinstance(raw, list) else raw)


# ---------------------------------------------------------------------------------- metrics


def test_a_request_is_one_emf_line_per_operation_and_summed_over_operations(
    metrics_on: None, capsys: pytest.CaptureFixture[str]
) -> None:
    observability.record_request("contacts.show", 200, 12.5)
    (line,) = emf_lines(capsys)
    assert definition(line)["Namespace"] == "PropertyManagement"
    assert definition(line)["Dimensions"] == [["stage", "operation"], ["stage"]]
    assert units(line) == {"Requests": "Count", "Errors": "Count", "ClientErrors": "Count", "Latency": "Milliseconds"}
    assert line["stage"] == "prod" and line["operation"] == "contacts.show" and "service" not in line
    assert (value(line, "Requests"), value(line, "Errors"), value(line, "ClientErrors"), value(line, "Latency")) == (
        1,
        0,
        0,
        12.5,
    )


@pytest.mark.parametrize(
    ("status", "errors", "client_errors"), [(200, 0, 0), (404, 0, 1), (429, 0, 1), (500, 1, 0), (503, 1, 0)]
)
def test_status_classes_count_as_errors_or_client_errors(
    metrics_on: None, capsys: pytest.CaptureFixture[str], status: int, errors: int, client_errors: int
) -> None:
    observability.record_request("contacts.show", status, 1.0)
    (line,) = emf_lines(capsys)
    assert (value(line, "Errors"), value(line, "ClientErrors")) == (errors, client_errors)


def test_the_namespace_follows_powertools_env(
    metrics_on: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "PM-Staging")
    observability.record_delivery("delivered")
    (line,) = emf_lines(capsys)
    assert definition(line)["Namespace"] == "PM-Staging"


@pytest.mark.parametrize(
    ("env", "emitted"),
    [
        ({}, False),  # make serve, tests, pmctl
        ({"AWS_LAMBDA_FUNCTION_NAME": "pm-prod-api"}, True),
        ({"AWS_LAMBDA_FUNCTION_NAME": "pm-prod-api", "POWERTOOLS_METRICS_DISABLED": "true"}, False),
        ({"AWS_LAMBDA_FUNCTION_NAME": "pm-prod-api", "POWERTOOLS_DEV": "true"}, False),
        ({"POWERTOOLS_METRICS_DISABLED": "false"}, True),
    ],
)
def test_metrics_are_off_outside_lambda_unless_asked_for(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], env: dict[str, str], emitted: bool
) -> None:
    for name in ("AWS_LAMBDA_FUNCTION_NAME", "POWERTOOLS_METRICS_DISABLED", "POWERTOOLS_DEV"):
        monkeypatch.delenv(name, raising=False)
    for name, setting in env.items():
        monkeypatch.setenv(name, setting)
    observability.record_request("contacts.show", 200, 1.0)
    observability.record_upload_registered(10)
    out = capsys.readouterr().out
    assert len([line for line in out.splitlines() if line.startswith('{"_aws"')]) == (2 if emitted else 0)
    assert emitted or out == ""


def test_uploads_count_registrations_refusals_and_bytes(metrics_on: None, capsys: pytest.CaptureFixture[str]) -> None:
    observability.record_upload_registered(2048)
    observability.record_upload_refused("size_mismatch")
    registered, refused = emf_lines(capsys)
    assert (
        units(registered) == {"UploadsRegistered": "Count", "UploadBytes": "Bytes"}
        and value(registered, "UploadBytes") == 2048
    )
    assert definition(registered)["Dimensions"] == [["stage"]]
    assert units(refused) == {"UploadsRefused": "Count"} and definition(refused)["Dimensions"] == [["stage"]]
    assert refused["code"] == "size_mismatch"  # metadata: in the log line, not a dimension


def test_mcp_tool_calls_are_counted_per_tool(metrics_on: None, capsys: pytest.CaptureFixture[str]) -> None:
    observability.record_tool_call("meta.tool.execute", True, 40.0)
    (line,) = emf_lines(capsys)
    assert units(line) == {"ToolCalls": "Count", "ToolErrors": "Count", "ToolLatency": "Milliseconds"}
    assert (
        definition(line)["Dimensions"] == [["stage", "tool"]]
        and line["tool"] == "meta.tool.execute"
        and value(line, "ToolErrors") == 1
    )


def test_a_broken_metric_is_logged_never_raised(metrics_on: None, capsys: pytest.CaptureFixture[str]) -> None:
    observability.emit({"Odd": ("Parsecs", 1)})
    assert emf_lines(capsys) == []


def _request() -> SimpleNamespace:
    return SimpleNamespace(context={"requestId": "req-1"}, method="GET", headers={})


def test_answer_counts_each_request_under_its_registered_name(
    metrics_on: None, capsys: pytest.CaptureFixture[str]
) -> None:
    http.answer(_request(), "mcp", lambda scope: Response(body="{}", status_code=200))
    http.answer(_request(), "invented.name.4711", lambda scope: (_ for _ in ()).throw(NotFound("no such query")))
    http.answer(_request(), "mcp", lambda scope: 1 / 0)
    ok, unknown, crashed = emf_lines(capsys)
    assert ok["operation"] == "mcp" and value(ok, "Requests") == 1
    assert unknown["operation"] == "unknown" and value(unknown, "ClientErrors") == 1  # callers cannot invent metrics
    assert value(crashed, "Errors") == 1


T0 = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture()
def frozen() -> Iterator[None]:
    clock.set_clock(lambda: T0)
    yield
    clock.set_clock(None)


def _delivery(event_id: str) -> StoredDelivery:
    body = {"id": event_id, "type": "contact.created", "timestamp": clock.now_iso(), "tenantId": "ten_A", "data": {}}
    assert deliveries.create("ten_A", "whk_1", body, entity_key=f"contact#{event_id}")
    found = get_delivery("ten_A", "whk_1", event_id)
    assert found is not None
    return found


def test_each_delivery_attempt_counts_under_its_outcome(
    memory_table: None, frozen: None, metrics_on: None, capsys: pytest.CaptureFixture[str]
) -> None:
    _webhook()
    deliveries.settle(_delivery("evt_1"), Outcome(204, None, 5.0))
    deliveries.settle(_delivery("evt_2"), Outcome(503, "http_5xx", 5.0))
    exhausted = _delivery("evt_3")
    exhausted.data["attempts"] = len(deliveries.SCHEDULE)
    deliveries.settle(exhausted, Outcome(500, "http_5xx", 5.0))
    deliveries.settle(_delivery("evt_4"), Outcome(410, "http_410", 5.0))
    lines = emf_lines(capsys)
    assert [line["outcome"] for line in lines] == ["delivered", "retry", "failed", "gone"]
    assert all(
        units(line) == {"WebhookDeliveries": "Count"} and definition(line)["Dimensions"] == [["stage", "outcome"]]
        for line in lines
    )


# ---------------------------------------------------------------------------------- logging


@pytest.fixture()
def log_output() -> Iterator[io.StringIO]:
    """What the service logger writes, at INFO."""
    stream = io.StringIO()
    handler = logger.registered_handler
    assert isinstance(handler, logging.StreamHandler)
    previous_stream, previous_level = handler.setStream(stream), logger.log_level
    logger.setLevel("INFO")
    yield stream
    handler.setStream(previous_stream)
    logger.setLevel(previous_level)


def _lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


class _Leaky:
    def __str__(self) -> str:
        return f"Leaky(key={KEY})"


def test_no_secret_reaches_a_log_line(log_output: io.StringIO) -> None:
    logger.info(f"authenticating {KEY}")
    logger.info(
        "calling a webhook",
        extra={"headers": {"Authorization": "Basic dXNlcjpwYXNz", "Content-Type": "application/json"}},
    )
    logger.info(
        "webhook", extra={"hook": {"authorizationHeader": "Token abc", "secret": WEBHOOK_SECRET, "events": ["*"]}}
    )
    logger.info("nested", extra={"items": [{"note": f"signed with {WEBHOOK_SECRET}"}, TEST_KEY]})
    logger.info("raw header line: Authorization: Bearer abc.def-ghi and more")
    logger.info({"AUTHORIZATION": "Basic eHl6eHl6", "line": "X-API-KEY: QUJDREVGR0g="})
    logger.info("an object", extra={"ctx": _Leaky()})  # turned into text by json's default=str
    try:
        raise ValueError(f"refused key {KEY}")
    except ValueError:
        logger.exception("failed")
    logger.info("mail sent", extra={"subject": f"Ihr Anmeldecode / Your sign-in code: {MAILED_CODE}"})
    logger.info("link", extra={"url": f"/console/signup/confirm?email=a%40b.example&code={MAILED_CODE}"})
    logger.info("headers", extra={"headers": {"Cookie": f"pm_lang=en; pm_session={SESSION}", "Set-Cookie": "x"}})
    logger.info(f"request with Cookie: pm_session={SESSION}; pm_lang=de and key {SANDBOX_KEY}")
    logger.info("mail", extra={"params": {"body": f'{{"Data": "Code:\\n{MAILED_CODE}\\nOr"}}'}})
    text = log_output.getvalue()
    lines = _lines(log_output)  # still one JSON object per line
    assert len(lines) == 13
    for secret in (
        KEY,
        TEST_KEY,
        SANDBOX_KEY,
        WEBHOOK_SECRET,
        "dXNlcjpwYXNz",
        "Token abc",
        "abc.def-ghi",
        "eHl6eHl6",
        "QUJDREVGR0g",
        "k" * 30,
        "s" * 30,
        MAILED_CODE,
        SESSION,
    ):
        assert secret not in text
    assert lines[0]["message"] == "authenticating pm_live_[REDACTED]"
    assert lines[1]["headers"] == {"Authorization": "[REDACTED]", "Content-Type": "application/json"}
    assert lines[2]["hook"]["events"] == ["*"]
    assert lines[4]["message"].startswith("raw header line: Authorization: [REDACTED]")
    assert lines[5]["message"] == {"AUTHORIZATION": "[REDACTED]", "line": "X-API-KEY: [REDACTED]"}
    assert "pm_live_[REDACTED]" in lines[7]["exception"]
    assert lines[8]["subject"] == "Ihr Anmeldecode / Your sign-in code: [REDACTED]"
    assert lines[10]["headers"] == {"Cookie": "[REDACTED]", "Set-Cookie": "[REDACTED]"}


def test_every_mailed_code_is_redacted_wherever_it_stands() -> None:
    for _ in range(200):
        code = mailed_codes.new_code()
        for text in (code, f"code: {code}.", f"?code={code}&x=1", f'"{code}"', f"Code:\\n{code}\\n", f"({code})"):
            redacted = redact_text(text)
            assert code not in redacted and "[REDACTED]" in redacted, (text, redacted)
            assert mailed_codes.code_in(redacted) is None


def test_records_of_every_other_logger_are_redacted_too() -> None:
    """botocore at DEBUG logs a call's parameters: a mail's code, an item's signing secret."""
    seen: list[logging.LogRecord] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = seen.append  # type: ignore[method-assign]
    other = logging.getLogger("botocore.endpoint.redaction-test")
    other.addHandler(handler)
    other.setLevel(logging.DEBUG)
    try:
        other.debug("Making request with params: %s", {"Subject": f"code: {MAILED_CODE}", "secret": WEBHOOK_SECRET})
        try:
            raise RuntimeError(f"failed for {KEY}")
        except RuntimeError:
            other.exception("call failed")
    finally:
        other.removeHandler(handler)
    formatted = [logging.Formatter().format(record) for record in seen]
    assert len(formatted) == 2
    assert "code: [REDACTED]" in formatted[0] and "whsec_[REDACTED]" in formatted[0]
    assert "pm_live_[REDACTED]" in formatted[1]
    for secret in (MAILED_CODE, WEBHOOK_SECRET, KEY):
        assert not any(secret in text for text in formatted)


def test_redaction_keeps_ordinary_text() -> None:
    ordinary = (
        "upload refused",
        "the key lacks the scope contacts:read",
        "authorization failed for ten_A",
        "pm_live_ or pm_test_ keys",
        "the bearer of news",
        "2026-11-26T14:16:02.123Z",
        "request 123E4567-ABCD-EFGH-A456-426614174000",  # a piece of an upper-case UUID is no code
        "a type-safe, well-made cookie recipe",
        "codes look like XXXX-XXXX-XXXX",
    )
    for text in ordinary:
        assert redact_text(text) == text


def test_the_middleware_puts_the_lambda_invocation_on_the_logger(
    monkeypatch: pytest.MonkeyPatch, log_output: io.StringIO
) -> None:
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "pm-prod-api")
    monkeypatch.delenv("LAMBDA_TASK_ROOT", raising=False)  # no tracing here
    context = SimpleNamespace(
        function_name="pm-prod-api",
        memory_limit_in_mb=512,
        invoked_function_arn="arn:aws:lambda:x:pm-prod-api",
        aws_request_id="lmb-7",
    )
    logger.append_keys(
        request_id="earlier", tenant="ten_earlier", agent="a", operation="x"
    )  # left by a previous request
    try:
        result = observability.middleware(
            SimpleNamespace(context=context), lambda event: logger.info("inside") or "answer"
        )
    finally:
        logger.remove_keys(
            ["cold_start", "function_name", "function_memory_size", "function_arn", "function_request_id"]
        )
    assert result == "answer"
    (line,) = _lines(log_output)
    assert line["function_request_id"] == "lmb-7" and line["function_name"] == "pm-prod-api" and "cold_start" in line
    assert not {"request_id", "tenant", "agent", "operation"} & set(line)


# ------------------------------------------------------------------------- Lambda, whole


def test_import_app_loads_no_xray_and_traces_nothing_locally() -> None:
    code = (
        "import app, sys; from chalicelib import observability as o; "
        "print('aws_xray_sdk' in sys.modules, o.tracing_enabled(), o.metrics_enabled())"
    )
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("AWS_LAMBDA_FUNCTION_NAME", "LAMBDA_TASK_ROOT", "POWERTOOLS_METRICS_DISABLED")
    }
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "False False False"


def test_a_lambda_invocation_logs_counts_and_traces_without_secrets() -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("POWERTOOLS_", "AWS_XRAY"))},
        "AWS_LAMBDA_FUNCTION_NAME": "propertymanagement-dev-api",
        "LAMBDA_TASK_ROOT": str(ROOT),
        "PM_STAGE": "dev",
        "POWERTOOLS_LOG_LEVEL": "INFO",
        "_X_AMZN_TRACE_ID": "Root=1-65f00000-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1",
    }
    run = subprocess.run(
        [sys.executable, "-m", "tests.unit.lambda_probe"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    *lines, summary = [json.loads(line) for line in run.stdout.splitlines()]
    assert "pm_live_k" not in run.stdout and "pm_live_k" not in run.stderr

    assert summary["statuses"] == [404, 200]
    metrics = [line for line in lines if "_aws" in line]
    assert [(m["operation"], m["stage"]) for m in metrics] == [("unknown", "dev"), ("mcp", "dev")]
    logs = [line for line in lines if "_aws" not in line]
    assert [(log["function_request_id"], log["cold_start"]) for log in logs] == [
        ("lambda-1", True),
        ("lambda-2", False),
        ("lambda-3", False),
    ]
    assert logs[0]["request_id"] == "apigw-1" and logs[1]["tenant"] == "ten_probe"
    assert "tenant" not in logs[2] and "request_id" not in logs[2]  # a warm Lambda forgets the previous request
    assert all(log["xray_trace_id"] == "1-65f00000-0123456789abcdef01234567" for log in logs)

    names = [(doc["name"], doc["annotations"]) for doc in summary["trace"]]
    assert names == [
        ("## http", {"ColdStart": True, "Service": "propertymanagement", "operation": "unknown", "status": 404}),
        (
            "## http",
            {
                "ColdStart": False,
                "Service": "propertymanagement",
                "operation": "mcp",
                "status": 200,
                "tenant": "ten_probe",
            },
        ),
        ("## schedule", {"ColdStart": False, "Service": "propertymanagement"}),
    ]
