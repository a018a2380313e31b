"""Tool names for hosts that refuse dots (issue 52): the interface names its meta-tools with dots
(`meta.tools.search`); several agent hosts accept only `^[a-zA-Z0-9_-]{1,64}$`. A connection made
with `?toolNames=underscore` on the MCP URL (or the header `X-PM-Tool-Names: underscore`) lists
them as `meta_tools_search` and so on; every connection accepts both spellings, so a client may
switch without breaking."""

from __future__ import annotations

PARAM = "toolNames"  # the MCP URL's query parameter
HEADER = "x-pm-tool-names"  # the same as a header (what the route hands the SDK)
UNDERSCORE = "underscore"


def spelled(name: str, style: str | None) -> str:
    """A tool's name as a connection of `style` lists it."""
    return name.replace(".", "_") if style == UNDERSCORE else name


def canonical(name: str, known: tuple[str, ...]) -> str:
    """The interface's name of a tool called in either spelling (unknown names unchanged)."""
    return next((tool for tool in known if name in (tool, tool.replace(".", "_"))), name)
