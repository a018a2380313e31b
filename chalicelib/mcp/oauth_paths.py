"""Where the OAuth authorization server's endpoints are (mcp/oauth_routes.py serves them): read by
the MCP function's routes, the local server and the template without loading the SDK."""

from __future__ import annotations

METADATA_PATH = "/.well-known/oauth-authorization-server"
OIDC_PATH = "/.well-known/openid-configuration"
PATHS = (METADATA_PATH, OIDC_PATH, "/authorize", "/token", "/register", "/revoke")
