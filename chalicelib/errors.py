"""Typed errors. Each carries its HTTP status and stable code; http.py renders them as
application/problem+json in one place, so a status is never picked by matching text."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    status = 500
    code = "internal_error"
    title = "Internal error"

    def __init__(
        self,
        detail: str,
        *,
        code: str | None = None,
        errors: list[dict[str, str]] | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        if code:
            self.code = code
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
    status, code, title = 400, "invalid_request", "Invalid request"


class Unauthorized(ApiError):
    status, code, title = 401, "unauthorized", "Unauthorized"


class Forbidden(ApiError):
    status, code, title = 403, "forbidden", "Forbidden"


class NotFound(ApiError):
    status, code, title = 404, "not_found", "Not found"


class MethodNotAllowed(ApiError):
    status, code, title = 405, "method_not_allowed", "Method not allowed"


class UnsupportedMediaType(ApiError):
    status, code, title = 415, "unsupported_media_type", "Unsupported media type"


class Conflict(ApiError):
    status, code, title = 409, "conflict", "Conflict"


class Gone(ApiError):
    status, code, title = 410, "gone", "Gone"


class PayloadTooLarge(ApiError):
    status, code, title = 413, "payload_too_large", "Payload too large"


class Throttled(ApiError):
    status, code, title = 429, "throttled", "Too many requests"


class Unavailable(ApiError):
    status, code, title = 503, "unavailable", "Service unavailable"


def invalid_at(path: str, message: str, *, code: str = "invalid_request") -> Invalid:
    """A 400 about one argument, with its path in `errors`."""
    return Invalid(f"{path}: {message}", code=code, errors=[{"path": path, "message": message}])


def no_route(method: str, path: str) -> NotFound:
    """A method and path nothing serves: what the local server and API Gateway (a gateway
    response in the deployment template, infra/resources.py) answer alike."""
    return NotFound(
        f"Nothing is served at {method} {path}. Queries are GET /propertymanagement/v2/query/<name>, commands are"
        " POST /propertymanagement/v2/command/<name>; GET /propertymanagement/v2/query/openapi.spec lists them.",
        code="no_route",
    )


def not_found_at(path: str, message: str) -> NotFound:
    return NotFound(f"{path}: {message}", errors=[{"path": path, "message": message}])
