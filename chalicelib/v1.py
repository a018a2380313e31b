"""Version 1 of the property-management interface, deprecated and switched off on
2027-01-01 (UTC). Until then a v1 path answers as its v2 namesake, marked with `Deprecation`
(RFC 9745), `Sunset` (RFC 8594) and a `Link` to the successor; from then on, 410 with a
problem body pointing to v2. Two catch-all routes serve it (not one per operation: API
Gateway counts routes, and v1 needs no per-operation metering)."""

from __future__ import annotations

import datetime as dt
from email.utils import format_datetime

from chalice import Chalice, Response  # type: ignore[attr-defined]

from chalicelib import clock, http, paths
from chalicelib import error_codes as codes
from chalicelib.errors import Gone

DEPRECATED_AT = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)  # since the v2 release
SUNSET_AT = dt.datetime(2027, 1, 1, tzinfo=dt.UTC)
PREFIX = paths.V1


def headers(successor: str) -> dict[str, str]:
    return {
        "Deprecation": f"@{int(DEPRECATED_AT.timestamp())}",
        "Sunset": format_datetime(SUNSET_AT, usegmt=True),
        "Link": f'<{successor}>; rel="successor-version"',
    }


def handle(app: Chalice, name: str, kind: str) -> Response:
    successor = f"{paths.V2}/{kind}/{name}"
    request = app.current_request
    assert request is not None, "Chalice sets current_request before calling a view"
    if clock.now() >= SUNSET_AT:
        retired = Gone(
            f"Version 1 of this interface was switched off on {SUNSET_AT.date().isoformat()}. "
            f"Use version 2: {successor} "
            f"(same names and arguments; see GET {paths.V2}/query/openapi.spec).",
            code=codes.VERSION_RETIRED,
            extra={"successor": successor},
            headers={
                "Link": f'<{successor}>; rel="successor-version"',
                "Sunset": format_datetime(SUNSET_AT, usegmt=True),
            },
        )
        return http.problem_response(retired, http.request_id_of(request))
    response = http.handle(app, name, kind, "v2")
    response.headers.update(headers(successor))
    return response


def register(app: Chalice) -> None:
    for kind in ("query", "command"):

        def view(name: str, kind: str = kind) -> Response:
            return handle(app, name, kind)

        app.route(
            f"{PREFIX}/{kind}/{{name}}",
            methods=["GET", "POST"],
            name=f"v1_{kind}",
            content_types=[http.JSON, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"],
        )(view)
