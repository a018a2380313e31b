"""The service's structured logger (Powertools): one JSON object per line on stdout.

Request id, operation, tenant and agent are appended per request by http.answer; in Lambda
the invocation's keys (function_request_id, cold_start, ...) by the middleware in
chalicelib/observability.py.

No secret reaches a log line: the formatter redacts, in every field of every record
(message, extra keys, exception text), API keys (`pm_live_...`, `pm_test_...`,
`pm_sandbox_...`), webhook signing secrets (`whsec_...`), mailed one-time codes (`ABCD-EFGH`,
codeformat.py), console session cookies (`pm_session=...`), bearer tokens, and the value of
anything named Authorization / authorizationHeader / secret / Cookie / Set-Cookie, whether a
key of a logged dict or text such as `Authorization: Basic ...`. What is kept shows that
something was there: `pm_live_[REDACTED]`.

Other loggers of the process (botocore at DEBUG logs every request's parameters: a mail's
subject and text, an item's fields) are redacted too: a record factory installed here redacts
the message, its arguments and the exception text of every record any logger makes."""

from __future__ import annotations

import logging
import re
from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

from chalicelib.codeformat import CODE

REDACTED = "[REDACTED]"
SENSITIVE_NAMES = frozenset(
    {"authorization", "authorizationheader", "proxy-authorization", "secret", "x-api-key", "cookie", "set-cookie"}
)

# No pattern matches a quote or a backslash, so each can also run over the serialised JSON
# line (which then still parses): that pass catches what json's default=str turned into
# text after the structured pass.
_TOKENS = re.compile(
    r"(pm_(?:live|test|sandbox)_|whsec_|pm_session=)[A-Za-z0-9+/=_-]+|(?i:\b(bearer)\s+)[A-Za-z0-9._~+/=-]{8,}"
)
_LABELLED = re.compile(
    r"(?i)\b((?:proxy-)?authorization(?:header)?|x-api-key|(?:set-)?cookie)((?:\\?[\"'])?\s*[:=]\s*(?:\\?[\"'])?)(?!\[REDACTED\])[^\s\"'\\,;}\]][^\"'\\,;}\]\r\n]*"
)
# A code also right after an escaped line break or tab (`\nABCD-EFGH` in a logged JSON text).
_CODES = re.compile(rf"(?:(?<![\w-])|(?<=\\[nrt])){CODE}(?![\w-])")


def redact_text(text: str) -> str:
    if "-" in text:
        text = _CODES.sub(REDACTED, text)
    lowered = text.lower()
    if "_" not in text and not any(word in lowered for word in ("bearer", "authorization", "api-key", "cookie")):
        return text  # the common case: nothing else that could match
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


def redact_record(record: logging.LogRecord) -> None:
    """A record's message (with its arguments) and exception text, redacted in place."""
    if not isinstance(record.msg, str):
        record.msg = redact(record.msg)  # Powertools logs a dict as JSON
    else:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # arguments that do not fit: the formatter reports it
            message = str(record.msg)
        record.msg, record.args = redact_text(message), None
    if record.exc_info and not record.exc_text:
        record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))


class RedactingFilter(logging.Filter):
    """On the logger itself, so it runs before any handler sees the record, the root
    logger's included (pytest's caplog, anything a host process attaches): message,
    arguments, extra keys and exception text, redacted in place. (The record factory below
    sees a record before its extra keys are set: they are redacted here.)"""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        for name, value in list(vars(record).items()):
            if name not in _RECORD_ATTRIBUTES:
                setattr(record, name, REDACTED if name.lower() in SENSITIVE_NAMES else redact(value))
        return True


def _install_redacting_record_factory() -> None:
    """Every logger's records, botocore's and the Lambda runtime's included, are made
    redacted: only records a logger emits are made, so a level that is off costs nothing."""
    make = logging.getLogRecordFactory()
    if getattr(make, "redacts", False):
        return  # this module was imported again (a test reloading it)

    def redacted(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = make(*args, **kwargs)
        redact_record(record)
        return record

    redacted.redacts = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(redacted)


_install_redacting_record_factory()


class RedactingFormatter(LambdaPowertoolsFormatter):
    """Powertools' JSON formatter, redacting the structured record and then the line."""

    def serialize(self, log: dict[str, Any]) -> str:  # type: ignore[override]
        return redact_text(super().serialize(redact(log)))


logger = Logger(service="propertymanagement", logger_formatter=RedactingFormatter())
logger.addFilter(RedactingFilter())
