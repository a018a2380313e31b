"""The OAuth authorization server's endpoints (issue 35, work in progress), served by the MCP
function beside the MCP endpoint: the `mcp` SDK's handlers (`create_auth_routes`) over our provider
(mcp/oauth_provider.py). The issuer is the service's public base address.

RFC 8414's metadata is served at `/.well-known/oauth-authorization-server` and, for an issuer with a
path (API Gateway's stage address, `.../dev`), at `/.well-known/openid-configuration` too: the SDK's
client tries `<issuer>/.well-known/openid-configuration`, which the stage serves."""

from __future__ import annotations

from typing import Any

from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from pydantic import AnyHttpUrl
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from chalicelib import config
from chalicelib.mcp.oauth_paths import METADATA_PATH, OIDC_PATH
from chalicelib.mcp.oauth_provider import Provider
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
    return own + [route for route in handled if route.path != METADATA_PATH]
