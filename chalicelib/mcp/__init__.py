"""The MCP server: eight meta-tools over the registry's domain tools (see server.py)."""
