"""Failures of AWS itself (DynamoDB above all, S3 and SQS alike) as typed API errors,
decided here once. The REST and MCP surfaces pass every error they do not know through
`translate`, and `model.Transaction` does so for a refused TransactWriteItems; nothing
else matches error codes of AWS.

  throttled     ProvisionedThroughputExceededException, ThrottlingException,
                RequestLimitExceeded (and S3's SlowDown), or a transaction cancelled for
                ProvisionedThroughputExceeded / ThrottlingError
                -> 429 `throttled`, Retry-After: 1
  conflict      a transaction cancelled for TransactionConflict (another transaction held
                one of its items) with no condition failed; TransactionConflictException
                -> 503 `transaction_conflict`, Retry-After: 1
  unavailable   connection refused, reset or timed out; InternalServerError,
                ServiceUnavailable and other 5xx answers
                -> 503 `unavailable`, Retry-After: 5

Why 503 and not 409 for a transaction conflict: a 409 of this API means "the data says no"
(alias taken, stale version): sending the same request again fails again, the client must
read and decide. A transaction conflict says nothing about the request; the same request
succeeds a moment later. 503 with Retry-After is what generic HTTP clients retry on their
own (urllib3 honours Retry-After on 413, 429 and 503), and an Idempotency-Key is released
on it, so the retry runs (http._idempotent).

None of these leaves half a write: a single-item write either happened or did not, and
every write of more than one item is one TransactWriteItems (model.Transaction), which
DynamoDB applies whole or not at all. A request that takes several steps (contacts.merge
moves references one entity at a time) says so in its own documentation."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError, ConnectionError, HTTPClientError
from pynamodb.exceptions import PynamoDBException, TransactWriteError

from chalicelib import error_codes as codes
from chalicelib.errors import ApiError, Throttled, Unavailable
from chalicelib.log import logger

INTERNAL_DETAIL = "An internal error occurred; the request id identifies it in our logs."

THROTTLE_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "Throttling",
        "RequestLimitExceeded",
        "TooManyRequestsException",
        "SlowDown",
        # cancellation reasons of TransactWriteItems
        "ProvisionedThroughputExceeded",
        "ThrottlingError",
    }
)
CONFLICT_CODES = frozenset({"TransactionConflict", "TransactionConflictException", "TransactionInProgressException"})
UNAVAILABLE_CODES = frozenset(
    {"InternalServerError", "InternalFailure", "InternalError", "ServiceUnavailable", "ServiceUnavailableException"}
)

THROTTLED_RETRY_AFTER = 1
CONFLICT_RETRY_AFTER = 1
UNAVAILABLE_RETRY_AFTER = 5


def throttled() -> Throttled:
    return Throttled(
        "The data store is throttling requests; this request did not complete. Retry after the time in Retry-After.",
        headers={"Retry-After": str(THROTTLED_RETRY_AFTER)},
    )


def conflict() -> Unavailable:
    return Unavailable(
        "The write collided with a concurrent transaction on the same data and was not applied; "
        "send the same request again.",
        code=codes.TRANSACTION_CONFLICT,
        headers={"Retry-After": str(CONFLICT_RETRY_AFTER)},
    )


def unavailable() -> Unavailable:
    return Unavailable(
        "A service this request depends on is unavailable; this request did not complete. "
        "Retry after the time in Retry-After.",
        headers={"Retry-After": str(UNAVAILABLE_RETRY_AFTER)},
    )


def _code_and_status(error: ClientError) -> tuple[str, int]:
    response: dict[str, Any] = getattr(error, "response", None) or {}
    code = str((response.get("Error") or {}).get("Code") or "")
    status = int((response.get("ResponseMetadata") or {}).get("HTTPStatusCode") or 0)
    return code, status


def cancellation(error: TransactWriteError) -> ApiError | None:
    """A refused transaction that no condition refused: throttled or in conflict. None when
    a condition failed (the caller explains which) or the cause is something else."""
    reasons = {reason.code for reason in error.cancellation_reasons if reason is not None}
    if "ConditionalCheckFailed" in reasons:
        return None
    if reasons & THROTTLE_CODES:
        return throttled()
    if reasons & CONFLICT_CODES:
        return conflict()
    return None


def translate(error: BaseException) -> ApiError | None:
    """The typed error for a failure of AWS, or None when `error` is not one."""
    cause: BaseException | None = error
    if isinstance(error, PynamoDBException):
        if isinstance(error, TransactWriteError) and error.cause_response_code == "TransactionCanceledException":
            return cancellation(error)
        cause = error.cause
    if isinstance(cause, ClientError):
        code, status = _code_and_status(cause)
        if code in THROTTLE_CODES:
            return throttled()
        if code in CONFLICT_CODES:
            return conflict()
        if code in UNAVAILABLE_CODES or status >= 500:
            return unavailable()
        return None
    if isinstance(cause, ConnectionError | HTTPClientError):  # refused, reset, timed out (botocore's own classes)
        return unavailable()
    return None


def as_api_error(error: BaseException, *, where: str, **context: Any) -> ApiError:
    """Any failure as the typed error each face renders in its own shape (REST problem+json, an
    MCP tool error, a console page): an ApiError as it is; a failure of AWS as 429 / 503 (logged
    as a warning); anything else as a 500 whose detail tells nothing of it (logged with its
    stack, `where` and `context` saying where)."""
    if isinstance(error, ApiError):
        return error
    fault = translate(error)
    if fault is not None:
        detail = {"error": f"{type(error).__name__}: {error}", "status": fault.status, **context}
        logger.warning(f"{where}: dependency failure", extra=detail)
        return fault
    logger.exception(f"{where}: unhandled error", extra=context)
    return ApiError(INTERNAL_DETAIL)
