"""The service as an OAuth protected resource (RFC 9728, as the MCP specification's authorization
asks of a server): what a 401 or a missing scope's 403 says in `WWW-Authenticate`, and the metadata
document that header points to, which names the resource, the authorization server and the scopes.

Two faces are resources of their own: the REST interface (`<base>/propertymanagement/v2`) and the
MCP endpoint (`<base>/propertymanagement/v2/mcp`); both name the same authorization server, the
service's public base address. The metadata lives at `<base>/.well-known/oauth-protected-resource`
followed by the resource's path (RFC 9728, 3.1, when the base is an origin: a custom domain; behind
API Gateway's stage address the base carries the stage, and clients follow the header's URL)."""

from __future__ import annotations

from typing import Any, Literal

from chalicelib import config, paths
from chalicelib.scopes import KEY_SCOPES

Face = Literal["rest", "mcp"]
WELL_KNOWN = "/.well-known/oauth-protected-resource"
RESOURCE_PATHS: dict[Face, str] = {"rest": paths.V2, "mcp": paths.MCP}
REALM = "propertymanagement"


def resource(face: Face) -> str:
    """The resource identifier (RFC 8707) of a face: its URL."""
    return config.public_url() + RESOURCE_PATHS[face]


def metadata_path(face: Face) -> str:
    return WELL_KNOWN + RESOURCE_PATHS[face]


def metadata_url(face: Face) -> str:
    return config.public_url() + metadata_path(face)


def challenge(face: Face, *, error: str | None = None, scopes: list[str] | None = None) -> str:
    """A `WWW-Authenticate` value: the realm and where the metadata is; for a missing scope
    (RFC 6750, 3.1) `error="insufficient_scope"` and the scopes the request needs."""
    params = [f'realm="{REALM}"']
    if error is not None:
        params.append(f'error="{error}"')
    if scopes:
        params.append(f'scope="{" ".join(scopes)}"')
    params.append(f'resource_metadata="{metadata_url(face)}"')
    return "Bearer " + ", ".join(params)


def document(face: Face) -> dict[str, Any]:
    """The protected resource metadata (RFC 9728, 2)."""
    names = {"rest": "Property management REST API", "mcp": "Property management MCP server"}
    return {
        "resource": resource(face),
        "authorization_servers": [config.public_url()],
        "scopes_supported": list(KEY_SCOPES),
        "bearer_methods_supported": ["header"],
        "resource_name": names[face],
    }
