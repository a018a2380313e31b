"""Where the interface is served: the path prefixes of its surfaces and the MCP endpoint, in one
place (routes, the registry's paths, the docs and the errors that name them all read these)."""

from __future__ import annotations

V2 = "/propertymanagement/v2"  # the property-management interface, version 2
V1 = "/propertymanagement/v1"  # version 1, deprecated (v1.py)
PLATFORM = "/api/platform/v1"  # sign-up, version
MCP = f"{V2}/mcp"
CONSOLE = "/console"  # the web application for people (chalicelib/console)

SURFACES = {"v2": V2, "platform": PLATFORM}  # registry.Surface -> prefix
