"""The console face: the web application under /console, server-rendered HTML on the same
registry and dispatch as REST and MCP. A page's action is an operation run as the signed-in
person (console/operations.py): same validation, scopes and audit trail, channel `console`.

Each request: static file, or route (console/web.py `page`) -> session (cookie) -> form token
(every POST of a signed-in person carries the session's CSRF token; sign-up and sign-in forms,
which have no session yet, are refused when the browser says they came from another site, by
Fetch Metadata or by Origin) ->
role -> the page. Routes are declared by the modules of console/pages."""

from __future__ import annotations

import importlib
import mimetypes
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from chalice import Chalice, Response  # type: ignore[attr-defined]

from chalicelib import paths
from chalicelib.console import auth, web
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.request_scope import IncomingRequest
from chalicelib.store import faults

STATIC = Path(__file__).parent / "static"
PAGES = (
    "auth_pages",
    "choice",
    "overview",
    "oauth_grants",  # before keys: /keys/oauth is not a key's page (/keys/{key})
    "keys",
    "connect",
    "webhooks",
    "restore",  # before activity: /activity/restore is no audit record's page
    "activity",
    "data",
    "search",
    "members",
    "member_keys",
    "outbox",
    "oauth_consent",
    "sandboxes",
)
ROLE_RANK = {"viewer": 0, "admin": 1, "owner": 2}
MAX_DEPTH = 5  # path segments below /console a route may have


def load_pages() -> None:
    for name in PAGES:
        importlib.import_module(f"chalicelib.console.pages.{name}")


def register(app: Chalice) -> None:
    """Routes for /console and every depth of path below it (Chalice matches whole segments)."""
    load_pages()
    content_types = ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain", "application/json"]
    templates = [paths.CONSOLE] + [
        paths.CONSOLE + "".join(f"/{{p{n}}}" for n in range(depth)) for depth in range(1, MAX_DEPTH + 1)
    ]
    for number, template in enumerate(templates):

        def view(**_: str) -> Response:
            request = app.current_request
            assert request is not None
            return handle(request)

        app.route(template, methods=["GET", "POST"], name=f"console_{number}", content_types=content_types)(view)


def handle(chalice_request: IncomingRequest) -> Response:
    request = _request(chalice_request)
    try:
        return _answer(request).response(request.base)
    except Exception as err:  # noqa: BLE001 - a person gets a page, never a stack trace
        request_id = str(uuid.uuid4())
        # the faces' one translation: AWS throttling or unavailable as 429 / 503, anything else 500
        error = faults.as_api_error(err, where="console", console_request_id=request_id)
        if error.status == 429:
            shown = _t(request, "error.throttled", seconds=error.headers.get("Retry-After", "1"))
        else:
            shown = _t(request, "error.unavailable" if error.status == 503 else "error.internal", request_id=request_id)
        page = render(request, "error.html", error.status, errors=[shown]).response(request.base)
        page.headers.update({k: v for k, v in error.headers.items() if k == "Retry-After"})
        return page


def _t(request: web.Request, key: str, **values: Any) -> str:
    return translate(request.lang, key, **values)


def _request(chalice_request: IncomingRequest) -> web.Request:
    context = chalice_request.context or {}
    route_path = chalice_request.path  # the route's template, /console/{p0}/...: its segments filled in
    for name, value in (chalice_request.uri_params or {}).items():
        route_path = route_path.replace("{" + name + "}", value)
    below = route_path[len(paths.CONSOLE) :] or "/"
    query = {name: value for name, value in (chalice_request.query_params or {}).items()}
    headers = {name.lower(): value for name, value in chalice_request.headers.items()}
    cookies = web.parse_cookies(headers.get("cookie", ""))
    raw = chalice_request.raw_body or b""
    form = web.parse_form(raw if isinstance(raw, bytes) else raw.encode(), headers.get("content-type", ""))
    identity = context.get("identity") or {}
    return web.Request(
        method=chalice_request.method,
        path=below,
        query=query,
        form=form,
        cookies=cookies,
        headers=headers,
        source_ip=identity.get("sourceIp"),
        lang=web.language_of(cookies, query, headers.get("accept-language", "")),
        base=_seen_prefix(context.get("path") or route_path, route_path) + paths.CONSOLE,
    )


def _seen_prefix(seen: str, route_path: str) -> str:
    """What stands before the route in the path the browser asked for: API Gateway's
    requestContext.path carries the stage (/dev/console/keys at the API's own address) or a
    custom domain's base path; `make serve` has none. Links, redirects and the cookies' path
    must carry it, or the browser leaves the console at its first link."""
    seen, route_path = seen.rstrip("/"), route_path.rstrip("/")
    return seen[: -len(route_path)] if route_path and seen.endswith(route_path) else ""


def _answer(request: web.Request) -> web.Answer:
    if request.path.startswith("/static/"):
        return _static(request.path.removeprefix("/static/"))
    route, params, other_method = web.find_route(request.method, request.path)
    if route is None:
        status, key = (405, "error.method") if other_method else (404, "error.not_found")
        return _with_language(request, render(request, "error.html", status, errors=[_t(request, key)]))
    request.params = params
    if request.method == "POST" and not _same_site(request):
        return render(request, "error.html", 403, errors=[_t(request, "error.csrf")])
    if not route.public:
        refused = auth.admit(request)
        if refused is not None:
            return refused
        if request.method == "POST" and request.arg("csrf") != request.csrf:
            return render(request, "error.html", 403, errors=[_t(request, "error.csrf")])
        if ROLE_RANK[request.role] < ROLE_RANK[route.role]:
            return render(request, "error.html", 403, errors=[_t(request, "error.forbidden")])
    return _with_language(request, route.handler(request))


def _same_site(request: web.Request) -> bool:
    """A form posted from another site is refused (the cookie is SameSite=Strict as well, but the
    sign-up and sign-in forms have no session yet: login CSRF). Browsers say where a post came
    from in Sec-Fetch-Site; those without Fetch Metadata still send Origin with every POST, which
    must then be this host ("null", a sandboxed frame or a privacy redirect, is not). A client
    that sends neither is no browser a foreign page could drive."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site in ("same-origin", "none")
    origin = request.headers.get("origin")
    if origin is None:
        return True
    host = request.headers.get("host", "").lower()
    return bool(host) and urlsplit(origin.strip()).netloc.lower() == host


def _with_language(request: web.Request, answer: web.Answer) -> web.Answer:
    """An explicit ?lang= choice is kept for the next pages."""
    chosen = request.query.get("lang")
    if chosen in web.LANGUAGES:
        answer.set_cookie(web.LANGUAGE_COOKIE, chosen, request=request, max_age=365 * 24 * 3600)
    return answer


def _static(name: str) -> web.Answer:
    path = STATIC / name
    if "/" in name or name.startswith(".") or not path.is_file():
        return web.Answer(404, "not found", content_type="text/plain")
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    answer = web.Answer(200, path.read_text(encoding="utf-8"), content_type=f"{kind}; charset=utf-8")
    answer.headers["Cache-Control"] = "public, max-age=300"
    return answer
