"""A page's reads and changes are the registry's operations, run as the signed-in person:
the account's checks (trial), the operation's scope, validation and reference resolution
(dispatch), and the audit trail (the changes carry the person's stamp, channel `console`).
An operation's refusal (ApiError) becomes readable messages for the page."""

from __future__ import annotations

from typing import Any

from chalicelib import dispatch, registry
from chalicelib import error_codes as codes
from chalicelib.console.texts import translate
from chalicelib.console.web import Request
from chalicelib.errors import ApiError


def run(request: Request, name: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
    assert request.ctx is not None, "operations run for a signed-in person"
    return dispatch.serve(registry.REGISTRY[name], request.ctx, lambda: args or {}, dispatch.run)


def messages(request: Request, error: ApiError) -> list[str]:
    """What a person reads for a refusal: the field errors, else the detail."""
    problem = error.problem("")
    if error.code in (codes.THROTTLED.code, codes.TENANT_THROTTLED.code):
        return [translate(request.lang, "error.throttled", seconds=error.headers.get("Retry-After", "1"))]
    if error.code == codes.TRIAL_ENDED.code:
        return [translate(request.lang, "error.trial_ended")]
    found = [
        translate(request.lang, "error.field", path=item.get("path") or "-", message=item.get("message", ""))
        for item in problem.get("errors") or []
    ]
    return found or [str(problem.get("detail") or problem.get("title") or error.code)]


def run_anonymous(request: Request, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """Sign-up's steps, as the REST face runs them: limited per source address first."""
    return dispatch.serve(registry.REGISTRY[name], dispatch.anonymous(request.source_ip), lambda: args, dispatch.run)
