"""What an agent is given to connect (issue 37): the service's addresses and each host's
configuration snippet, for the connect page (pages/connect.py) and for the page that shows a new
key's secret (pages/keys.py), the one page that fills the secret in."""

from __future__ import annotations

import json
from typing import Any

from chalicelib import config, paths, tool_names
from chalicelib.console.texts import translate

SERVER_NAME = "propertymanagement"  # the name the snippets give the server in each host


def addresses() -> dict[str, str]:
    base = config.public_url()
    return {
        "rest": base + paths.V2,
        "mcp": base + paths.MCP,
        # for hosts that refuse dots in tool names (tool_names.py)
        "mcp_no_dots": f"{base}{paths.MCP}?{tool_names.PARAM}={tool_names.UNDERSCORE}",
        "openapi": f"{base}{paths.V2}/query/openapi.spec",
        "info": f"{base}{paths.V2}/query/info",
        "resource_metadata": f"{base}/.well-known/oauth-protected-resource{paths.MCP}",
        "authorization_server": f"{base}/.well-known/oauth-authorization-server",
    }


def snippets(secret: str, mcp: str) -> list[dict[str, str]]:
    """Each host's configuration for the MCP endpoint with `Authorization: Bearer <secret>` (a
    secret or a placeholder): Claude Code's command line; Claude Desktop's config file, whose
    entries start local programs, so through the `mcp-remote` bridge (its custom connectors take
    the URL alone, by OAuth); Cursor's `mcpServers` with `url` and `headers`; VS Code's `servers`
    with `type: http`."""
    bearer = f"Bearer {secret}"
    desktop = {
        "mcpServers": {
            SERVER_NAME: {
                "command": "npx",
                "args": ["-y", "mcp-remote", mcp, "--header", f"Authorization:{bearer}"],
            }
        }
    }
    cursor = {"mcpServers": {SERVER_NAME: {"url": mcp, "headers": {"Authorization": bearer}}}}
    vscode = {"servers": {SERVER_NAME: {"type": "http", "url": mcp, "headers": {"Authorization": bearer}}}}
    return [
        {
            "id": "claude-code",
            "host": "Claude Code",
            "where": "connect.where.claude_code",
            "text": f'claude mcp add --transport http {SERVER_NAME} {mcp} \\\n  --header "Authorization: {bearer}"',
        },
        {
            "id": "claude-desktop",
            "host": "Claude Desktop",
            "where": "connect.where.claude_desktop",
            "text": json.dumps(desktop, indent=2, ensure_ascii=False),
        },
        {
            "id": "cursor",
            "host": "Cursor",
            "where": "connect.where.cursor",
            "text": json.dumps(cursor, indent=2, ensure_ascii=False),
        },
        {
            "id": "vscode",
            "host": "VS Code",
            "where": "connect.where.vscode",
            "text": json.dumps(vscode, indent=2, ensure_ascii=False),
        },
    ]


def placeholder(lang: str, key: dict[str, Any] | None) -> str:
    if key and key.get("prefix"):
        return translate(lang, "connect.placeholder.key", prefix=key["prefix"])
    return translate(lang, "connect.placeholder.any")
