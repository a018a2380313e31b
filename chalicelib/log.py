"""The service's structured logger (Powertools): one JSON object per line on stdout.

Request id, operation, tenant and agent are appended per request by http.answer; in Lambda
the invocation's keys (function_request_id, cold_start, ...) by the middleware in
chalicelib/observability.py.

No secret reaches a log line: the formatter redacts, in every field of every record
(message, extra keys, exception text), API keys (`pm_live_...`, `pm_test_...`), webhook
signing secrets (`whsec_...`), bearer tokens, and the value of anything named
Authorization / authorizationHeader / secret, whether a key of a logged dict or text such
as `Authorization: Basic ...`. What is kept shows that something was there:
`pm_live_[REDACTED]`."""

from __future__ import annotations

import logging
import re
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

REDACTED = "[REDACTED]"
SENSITIVE_NAMES = frozenset({"authorization", "authorizationheader", "proxy-authorization", "secret", "x-api-key"})

# Neither pattern matches a quote or a backslash, so both can also run over the serialised
# JSON line (which then still parses): that pass catches what json's default=str turned
# into text after the structured pass.
_TOKENS = re.compile(r"(pm_(?:live|test)_|whsec_)[A-Za-z0-9+/=_-]+|(?i:\b(bearer)\s+)[A-Za-z0-9._~+/=-]{8,}")
_LABELLED = re.compile(
    r"(?i)\b((?:proxy-)?authorization(?:header)?|x-api-key)((?:\\?[\"'])?\s*[:=]\s*(?:\\?[\"'])?)(?!\[REDACTED\])[^\s\"'\\,;}\]][^\"'\\,;}\]\r\n]*"
)


def redact_text(text: str) -> str:
    lowered = text.lower()
    if "_" not in text and "bearer" not in lowered and "authorization" not in lowered and "api-key" not in lowered:
        return text  # the common case: nothing that could match
    text = _LABELLED.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)  # first: it takes a whole "Bearer ..."
    return _TOKENS.sub(lambda m: (m.group(1) or m.group(2) + " ") + REDACTED, text)


def redact(value: Any) -> Any:
    """A copy of `value` (dicts, lists and strings, however nested) with secrets replaced."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {
            k: REDACTED if isinstance(k, str) and k.lower() in SENSITIVE_NAMES else redact(v) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value


_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class RedactingFilter(logging.Filter):
    """On the logger itself, so it runs before any handler sees the record, the root
    logger's included (pytest's caplog, anything a host process attaches): message,
    arguments, extra keys and exception text, redacted in place."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not isinstance(record.msg, str):
            record.msg = redact(record.msg)  # Powertools logs a dict as JSON
        else:
            try:
                message = record.getMessage()
            except (TypeError, ValueError):  # arguments that do not fit: the formatter reports it
                message = str(record.msg)
            record.msg, record.args = redact_text(message), None
        for name, value in list(vars(record).items()):
            if name not in _RECORD_ATTRIBUTES:
                setattr(record, name, REDACTED if name.lower() in SENSITIVE_NAMES else redact(value))
        if record.exc_info and not record.exc_text:
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
        return True


class RedactingFormatter(LambdaPowertoolsFormatter):
    """Powertools' JSON formatter, redacting the structured record and then the line."""

    def serialize(self, log: dict[str, Any]) -> str:  # type: ignore[override]
        return redact_text(super().serialize(redact(log)))


logger = Logger(service="propertymanagement", logger_formatter=RedactingFormatter())
logger.addFilter(RedactingFilter())
