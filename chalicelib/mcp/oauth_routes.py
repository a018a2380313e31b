"""The OAuth authorization server's endpoints (issue 35, work in progress), served by the MCP
function beside the MCP endpoint: the `mcp` SDK's handlers (`create_auth_routes`) over our provider
(mcp/oauth_provider.py). The issuer is the service's public base address.

RFC 8414's metadata is served at `/.well-known/oauth-authorization-server` and, for an issuer with a
path (API Gateway's stage address, `.../dev`), at `/.well-known/openid-configuration` too: the SDK's
client tries `<issuer>/.well-known/openid-configuration`, which the stage serves."""

from __future__ import annotations

import html
import json
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from mcp.server.auth.routes import AUTHORIZATION_PATH, REVOCATION_PATH, TOKEN_PATH, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chalicelib import config, paths
from chalicelib.mcp.oauth_paths import METADATA_PATH, OIDC_PATH
from chalicelib.mcp.oauth_provider import ASKED_RESOURCE, LOOPBACK_HOSTS, Provider
from chalicelib.scopes import KEY_SCOPES


def metadata() -> dict[str, Any]:
    """RFC 8414 metadata as the SDK builds it, corrected where this server differs: its clients
    are public (`none`, PKCE) and its issuer is written as the protected resource metadata names
    it (no trailing slash)."""
    issuer = config.public_url()
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/authorize",
        "token_endpoint": f"{issuer}/token",
        "registration_endpoint": f"{issuer}/register",
        "revocation_endpoint": f"{issuer}/revoke",
        "scopes_supported": list(KEY_SCOPES),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": True,
        "client_id_metadata_document_supported": True,
    }


async def _metadata(_request: Request) -> JSONResponse:
    return JSONResponse(
        metadata(), headers={"Cache-Control": "public, max-age=3600", "Access-Control-Allow-Origin": "*"}
    )


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The request's body, and a receive that replays it to the app (the SDK's own limit bounds
    it inside, API Gateway's outside)."""
    messages: list[Message] = []
    body = b""
    while True:
        message = await receive()
        messages.append(message)
        body += message.get("body", b"")
        if not message.get("more_body"):
            break

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return body, replay


def _naming_the_resource(app: ASGIApp) -> ASGIApp:
    """The token endpoint with the request's RFC 8707 `resource` told to the provider
    (ASKED_RESOURCE): the SDK checks the code's PKCE and redirect URI but hands the provider neither
    the token request's resource nor its form. The body (bounded by the SDK's own limit inside, and
    by API Gateway's outside) is read here and replayed to the handler."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        body, replay = await _buffered(receive)
        asked = parse_qs(body.decode("utf-8", "replace")).get("resource", [""])[0]
        token = ASKED_RESOURCE.set(asked or None)
        try:
            await app(scope, replay, send)
        finally:
            ASKED_RESOURCE.reset(token)

    return wrapped


def _public_revocation(app: ASGIApp) -> ASGIApp:
    """The revocation endpoint for public clients (RFC 7009, 2.1: a client that has no secret sends
    the token and its client_id): the SDK's request model requires a `client_secret` field even
    where the client authenticates with none, so a request without one gets an empty one before the
    handler reads it (a client with a secret is still checked against it: the SDK's authenticator)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        body, replay = await _buffered(receive)
        if "client_secret" in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True):
            await app(scope, replay, send)
            return
        body += b"&client_secret=" if body else b"client_secret="
        headers = [(n, v) for n, v in scope.get("headers", []) if n.lower() != b"content-length"]
        scope = {**scope, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        sent = [{"type": "http.request", "body": body, "more_body": False}]

        async def with_secret() -> Message:
            return sent.pop(0) if sent else await receive()

        await app(scope, with_secret, send)

    return wrapped


def trusted_redirect(asked: str | None, location: str) -> bool:
    """May an authorize error go to `location` (the SDK's redirect to the client)? The request is
    anonymous: no person has signed in, and anyone may register a client (RFC 7591, no
    verification) or name one by a document on their own host, with a redirect URI of their
    choosing, so an exact match of a registered URI proves nothing about whose page it leads to
    (RFC 9700, 4.11.2: an erroneous request would make this server's address bounce the browser to
    a phishing page). RFC 6749, 4.1.2.1 already forbids redirecting for an unknown client or a
    redirect URI that is missing, wrong or not registered (the SDK answers those itself, without a
    redirect). Of the rest, an error about the request (invalid_request, invalid_scope,
    invalid_target, unsupported_response_type, server_error) goes to the redirect URI only when
    the request named it (`asked`: not the client's only one, defaulted), the SDK matched it
    exactly to one the known client registered, and it is a loopback one (RFC 8252: http to
    127.0.0.1, [::1] or localhost): that leads to the person's own machine, where the native client
    waits for its answer, not to anyone's page. Every other error is answered on our own page
    (`_error_page`). After sign-in the consent page shows where it returns to, and the person's
    own decision (deny included) goes there (console/pages/oauth_consent.py)."""
    if not asked:
        return False
    target, named = urlsplit(location), urlsplit(asked)
    return (
        target.scheme == "http"
        and (target.hostname or "") in LOOPBACK_HOSTS
        and (target.scheme, target.netloc, target.path) == (named.scheme, named.netloc, named.path)
    )


ERROR_TEXTS = {
    "de": (
        "Die Anfrage der Anwendung ist ungültig",
        "Die Anwendung, mit der Sie einen Agenten verbinden wollten, hat eine fehlerhafte Anfrage geschickt. "
        "Schließen Sie diese Seite und starten Sie die Verbindung in der Anwendung neu; geschieht es wieder, "
        "wenden Sie sich an ihren Anbieter.",
        "Fehler",
    ),
    "en": (
        "The application's request is invalid",
        "The application you wanted to connect an agent with sent a request this server cannot serve. Close "
        "this page and start connecting again in the application; if it happens again, tell its maker.",
        "Error",
    ),
}


def _error_page(error: str, description: str, accept_language: str) -> list[Message]:
    """Our own page for an authorize error (trusted_redirect: it goes nowhere else), in the
    person's language (German or English, by Accept-Language), naming the error for the client's
    maker. It offers no link on to the client's redirect URI."""
    lang = "de" if accept_language.strip().lower().startswith("de") else "en"
    title, text, label = ERROR_TEXTS[lang]
    page = (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title></head><body><main><h1>{html.escape(title)}</h1>"
        f"<p>{html.escape(text)}</p><p>{label}: <code>{html.escape(error)}</code>"
        + (f" ({html.escape(description)})" if description else "")
        + "</p></main></body></html>"
    ).encode()
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(len(page)).encode()),
        (b"cache-control", b"no-store"),
        (
            b"content-security-policy",
            b"default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ),
        (b"referrer-policy", b"no-referrer"),
    ]
    return [
        {"type": "http.response.start", "status": 400, "headers": headers},
        {"type": "http.response.body", "body": page},
    ]


def _errors_on_our_page(app: ASGIApp) -> ASGIApp:
    """The authorize endpoint with its errors placed by trusted_redirect: the SDK's handler
    answers (a redirect to the consent page, an error redirect to the client, or a JSON 400), and
    an error goes to the client only where trusted_redirect allows it (then with `iss`, RFC
    9207, which the metadata promises); else our page."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        # read per request, as the provider builds the consent address (a process's routes outlive a
        # change of the public address: a test's, or a stage's)
        consent = f"{config.public_url()}{paths.CONSOLE}/oauth/consent?"
        body, replay = await _buffered(receive)
        raw = scope.get("query_string", b"") if scope.get("method") == "GET" else body
        params = parse_qs(raw.decode("utf-8", "replace"))
        answered: list[Message] = []

        async def keep(message: Message) -> None:
            answered.append(message)

        await app(scope, replay, keep)
        start = answered[0]
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in start.get("headers", [])}
        location = headers.get("location", "")
        if start["status"] == 302 and location.startswith(consent):
            pass  # the request is served: on to sign-in and consent
        elif start["status"] == 302 and trusted_redirect(params.get("redirect_uri", [""])[0], location):
            told = f"{location}{'&' if urlsplit(location).query else '?'}{urlencode({'iss': config.public_url()})}"
            start["headers"] = [(n, v) for n, v in start["headers"] if n.lower() != b"location"]
            start["headers"].append((b"location", told.encode("latin-1")))
        elif start["status"] in (302, 400):
            error, description = _error_of(start["status"], location, answered)
            answered = _error_page(error, description, _language(scope))
        for message in answered:
            await send(message)

    return wrapped


def _error_of(status: int, location: str, answered: list[Message]) -> tuple[str, str]:
    """The error and its description from the SDK's answer: the redirect's query, or its JSON."""
    if status == 302:
        told = parse_qs(urlsplit(location).query)
        return told.get("error", ["invalid_request"])[0], told.get("error_description", [""])[0]
    try:
        found = json.loads(b"".join(m.get("body", b"") for m in answered[1:]))
    except ValueError:
        found = {}
    found = found if isinstance(found, dict) else {}
    return str(found.get("error") or "invalid_request"), str(found.get("error_description") or "")


def _language(scope: Scope) -> str:
    return next((v.decode("latin-1") for n, v in scope.get("headers", []) if n.lower() == b"accept-language"), "")


def routes() -> list[Route]:
    """The SDK's authorize, token, register and revoke handlers, and our metadata in place of its."""
    handled = create_auth_routes(
        Provider(),
        AnyHttpUrl(config.public_url()),
        client_registration_options=ClientRegistrationOptions(
            enabled=True, valid_scopes=list(KEY_SCOPES), default_scopes=list(KEY_SCOPES)
        ),
        revocation_options=RevocationOptions(enabled=True),
    )
    own = [Route(path, endpoint=_metadata, methods=["GET"]) for path in (METADATA_PATH, OIDC_PATH)]
    for route in handled:
        if route.path == TOKEN_PATH:
            route.app = _naming_the_resource(route.app)
        elif route.path == AUTHORIZATION_PATH:
            route.app = _errors_on_our_page(route.app)
        elif route.path == REVOCATION_PATH:
            route.app = _public_revocation(route.app)
    return own + [route for route in handled if route.path != METADATA_PATH]
