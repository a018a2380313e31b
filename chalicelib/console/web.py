"""The console's HTTP plumbing: a request as the pages see it (path, query, form, cookies,
language, session) and the answers they give (HTML with the security headers, redirects,
cookies). No page touches Chalice directly."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlencode

from chalice import Response  # type: ignore[attr-defined]

from chalicelib import config, paths, schemas
from chalicelib.context import CallContext

SESSION_COOKIE = "pm_session"
CHOICE_COOKIE = "pm_choice"  # a code redeemed, the company not yet chosen (store/choices.py)
COMPANY_COOKIE = "pm_company"  # the company this browser opened last: the default at the next sign-in
LANGUAGE_COOKIE = "pm_lang"
NEXT_COOKIE = "pm_next"  # the console page a sign-in returns to (a GET that found no session)
_RETURN_PATH = re.compile(r"^/[A-Za-z0-9/_.-]{0,200}(\?[A-Za-z0-9=&_.%~-]{0,500})?$")


def return_path(value: str) -> str | None:
    """A page below /console a sign-in may return to (its path and query as the request named
    them); None for anything else (another site, a scheme-relative URL)."""
    return value if _RETURN_PATH.match(value) and "//" not in value else None


LANGUAGES = ("de", "en")
MAX_FORM_BYTES = 64 * 1024  # the largest console form (a webhook with its events) is a few KB

# Every page: scripts and styles from the console's own files only (no inline script or
# style), no framing, no referrer leaking ids to other sites, no sniffing.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; connect-src 'self'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


_EMAIL = re.compile(schemas.EMAIL_PATTERN)


def is_email(text: str) -> bool:
    """An address the operations would take (the schemas' rule), checked before one is mailed."""
    return len(text) <= schemas.EMAIL_MAX and _EMAIL.match(text) is not None


@dataclass
class Request:
    method: str
    path: str  # below /console, "/" for the console's start
    query: dict[str, str]
    form: dict[str, list[str]]
    cookies: dict[str, str]
    headers: dict[str, str]
    source_ip: str | None
    lang: str = "en"
    params: dict[str, str] = field(default_factory=dict)  # what the route's pattern captured
    base: str = paths.CONSOLE  # where the browser sees the console: /dev/console at API Gateway's own address

    def arg(self, name: str, default: str = "") -> str:
        values = self.form.get(name)
        return values[0].strip() if values else default

    def args(self, name: str) -> list[str]:
        return [value.strip() for value in self.form.get(name, [])]

    member: dict[str, Any] | None = None  # the signed-in person (store/members.py wire), once known
    ctx: CallContext | None = None  # who the operations run as: the person, channel console
    csrf: str = ""  # the session's form token
    signed_in_at: dt.datetime | None = None  # the session's sign-in with a code (a switch keeps it)

    @property
    def secure(self) -> bool:
        """Whether cookies must be Secure: always in the cloud (API Gateway serves HTTPS only),
        and wherever the request says it came over HTTPS; `make serve` is plain HTTP on loopback,
        where a Secure cookie would not be sent back."""
        return config.stage() != "local" or self.headers.get("x-forwarded-proto", "") == "https"

    @property
    def role(self) -> str:
        return (self.member or {}).get("role", "")


def language_of(cookies: dict[str, str], query: dict[str, str], accept: str) -> str:
    """The page's language: an explicit choice (?lang=, then the cookie), else German for a
    browser whose first language is German, else English."""
    for chosen in (query.get("lang"), cookies.get(LANGUAGE_COOKIE)):
        if chosen in LANGUAGES:
            return chosen
    first = accept.split(",", 1)[0].strip().lower()
    return "de" if first.startswith("de") else "en"


def parse_cookies(header: str) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header or "")
    except CookieError:
        return {}
    return {name: morsel.value for name, morsel in jar.items()}


def parse_form(raw: bytes, content_type: str) -> dict[str, list[str]]:
    if not raw or not content_type.lower().startswith("application/x-www-form-urlencoded"):
        return {}
    return parse_qs(raw[:MAX_FORM_BYTES].decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=500)


@dataclass
class Answer:
    status: int
    body: str | bytes
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    cookies: list[str] = field(default_factory=list)

    def set_cookie(self, name: str, value: str, *, request: Request, max_age: int | None = None) -> None:
        parts = [f"{name}={value}", f"Path={request.base}", "HttpOnly", "SameSite=Strict"]
        if request.secure:
            parts.append("Secure")
        if max_age is not None:
            parts.append(f"Max-Age={max_age}")
        self.cookies.append("; ".join(parts))

    def clear_cookie(self, name: str, request: Request) -> None:
        self.set_cookie(name, "", request=request, max_age=0)

    def response(self, base: str = paths.CONSOLE) -> Response:
        """The HTTP answer; a redirect to a console path goes where the browser sees the console (`base`)."""
        headers: dict[str, str | list[str]] = {**SECURITY_HEADERS, "Content-Type": self.content_type, **self.headers}
        location = self.headers.get("Location", "")
        if location.startswith(paths.CONSOLE):
            headers["Location"] = base + location[len(paths.CONSOLE) :]
        if self.cookies:
            headers["Set-Cookie"] = self.cookies
        return Response(body=self.body, status_code=self.status, headers=headers)


def redirect(path: str, **query: str) -> Answer:
    """303 to a console path (after a POST: the browser GETs the result; a reload repeats nothing)."""
    target = paths.CONSOLE + path + (f"?{urlencode(query)}" if query else "")
    return Answer(303, "", headers={"Location": target})


Handler = Callable[[Request], Answer]


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern[str]
    handler: Handler
    public: bool  # served without a session (sign-up, sign-in, static files)
    role: str  # the least role that may use it: viewer, admin or owner


ROUTES: list[Route] = []


def page(method: str, path: str, *, public: bool = False, role: str = "viewer") -> Callable[[Handler], Handler]:
    """Declares a console route; `{name}` in `path` captures one path segment."""
    pattern = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[A-Za-z0-9_.-]{1,100})", path) + "$")

    def register(handler: Handler) -> Handler:
        ROUTES.append(Route(method, pattern, handler, public, role))
        return handler

    return register


def find_route(method: str, path: str) -> tuple[Route | None, dict[str, str], bool]:
    """The route, what it captured, and whether the path is served with another method."""
    other_method = False
    for route in ROUTES:
        found = route.pattern.match(path)
        if found:
            if route.method == method:
                return route, found.groupdict(), False
            other_method = True
    return None, {}, other_method
