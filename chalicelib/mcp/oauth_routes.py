"""The OAuth authorization server's endpoints (issue 35, work in progress), served by the MCP
function beside the MCP endpoint: the `mcp` SDK's handlers (`create_auth_routes`) over our provider
(mcp/oauth_provider.py). The issuer is the service's public base address.

RFC 8414's metadata is served at `/.well-known/oauth-authorization-server` and, for an issuer with a
path (API Gateway's stage address, `.../dev`), at `/.well-known/openid-configuration` too: the SDK's
client tries `<issuer>/.well-known/openid-configuration`, which the stage serves."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from mcp.server.auth.routes import TOKEN_PATH, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chalicelib import config
from chalicelib.mcp.oauth_paths import METADATA_PATH, OIDC_PATH
from chalicelib.mcp.oauth_provider import ASKED_RESOURCE, Provider
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


def _naming_the_resource(app: ASGIApp) -> ASGIApp:
    """The token endpoint with the request's RFC 8707 `resource` told to the provider
    (ASKED_RESOURCE): the SDK checks the code's PKCE and redirect URI but hands the provider neither
    the token request's resource nor its form. The body (bounded by the SDK's own limit inside, and
    by API Gateway's outside) is read here and replayed to the handler."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        messages: list[Message] = []
        body = b""
        while scope["type"] == "http":
            message = await receive()
            messages.append(message)
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        asked = parse_qs(body.decode("utf-8", "replace")).get("resource", [""])[0]

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        token = ASKED_RESOURCE.set(asked or None)
        try:
            await app(scope, replay, send)
        finally:
            ASKED_RESOURCE.reset(token)

    return wrapped


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
    return own + [route for route in handled if route.path != METADATA_PATH]
