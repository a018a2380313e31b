"""Typed errors. Each carries its HTTP status and stable code; http.py renders them as
application/problem+json in one place, so a status is never picked by matching text."""

from __future__ import annotations

from typing import Any

from chalicelib import error_codes as codes
from chalicelib import paths
from chalicelib.error_codes import ErrorCode


class ApiError(Exception):
    """`code` names an entry of error_codes.py; without one, the class's own default stands.
    Each class's status is its default entry's (tests/unit/test_error_codes.py holds them equal)."""

    status = 500
    code = codes.INTERNAL_ERROR.code
    title = "Internal error"

    def __init__(
        self,
        detail: str,
        *,
        code: ErrorCode | None = None,
        errors: list[dict[str, str]] | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code.code
        self.errors = errors
        self.headers = headers or {}
        self.extra = extra or {}

    def problem(self, request_id: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": f"urn:pm:problem:{self.code}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        if self.errors:
            body["errors"] = self.errors
        body.update(self.extra)
        if request_id:
            body["requestId"] = request_id
        return body


class Invalid(ApiError):
    status, code, title = 400, codes.INVALID_REQUEST.code, "Invalid request"


class Unauthorized(ApiError):
    status, code, title = 401, codes.UNAUTHORIZED.code, "Unauthorized"


class Forbidden(ApiError):
    status, code, title = 403, codes.FORBIDDEN.code, "Forbidden"


class NotFound(ApiError):
    status, code, title = 404, codes.NOT_FOUND.code, "Not found"


class MethodNotAllowed(ApiError):
    status, code, title = 405, codes.METHOD_NOT_ALLOWED.code, "Method not allowed"


class Misdirected(ApiError):
    status, code, title = 421, codes.MISDIRECTED_REQUEST.code, "Misdirected request"


class UnsupportedMediaType(ApiError):
    status, code, title = 415, codes.UNSUPPORTED_MEDIA_TYPE.code, "Unsupported media type"


class Conflict(ApiError):
    status, code, title = 409, codes.CONFLICT.code, "Conflict"


class Gone(ApiError):
    status, code, title = 410, codes.GONE.code, "Gone"


class PayloadTooLarge(ApiError):
    status, code, title = 413, codes.PAYLOAD_TOO_LARGE.code, "Payload too large"


class Throttled(ApiError):
    status, code, title = 429, codes.THROTTLED.code, "Too many requests"


class Unavailable(ApiError):
    status, code, title = 503, codes.UNAVAILABLE.code, "Service unavailable"


def invalid_at(path: str, message: str, *, code: ErrorCode = codes.INVALID_REQUEST) -> Invalid:
    """A 400 about one argument, with its path in `errors`."""
    return Invalid(f"{path}: {message}", code=code, errors=[{"path": path, "message": message}])


def no_route(method: str, path: str) -> NotFound:
    """A method and path nothing serves: what the local server and API Gateway (a gateway
    response in the deployment template, infra/resources.py) answer alike."""
    return NotFound(
        f"Nothing is served at {method} {path}. Queries are GET {paths.V2}/query/<name>, commands are"
        f" POST {paths.V2}/command/<name>; GET {paths.V2}/query/openapi.spec lists them.",
        code=codes.NO_ROUTE,
    )


def not_found_at(path: str, message: str) -> NotFound:
    return NotFound(f"{path}: {message}", errors=[{"path": path, "message": message}])
