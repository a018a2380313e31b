"""Hosts that refuse dots in tool names (issue 52, 7): the interface's names (`meta.tools.search`)
stay; the documented connection option `?toolNames=underscore` on the MCP URL advertises the same
tools as `meta_tools_search` and so on, and every connection accepts both spellings."""

from __future__ import annotations

import re

from tests.client import Api, Tenant
from tests.console_client import owner_of
from tests.mcp_client import McpSession

HOST_RULE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what such hosts accept


def test_the_option_advertises_names_without_dots_that_work(api: Api, tenant: Tenant) -> None:
    session = McpSession(api.base, tenant.key)
    session.url += "?toolNames=underscore"
    with session as mcp:
        names = [tool.name for tool in mcp.list_tools()]
        assert "meta_tools_search" in names and len(names) == 8
        assert all(HOST_RULE.match(name) for name in names), names
        found = mcp.ok("meta_tools_search", {"query": "create a contact"})
        assert found["tools"], found
        made = mcp.ok(
            "meta_tool_execute",
            {"name": "contacts.create", "arguments": {"contact": {"lastName": "Punktlos", "personType": "natural"}}},
        )
        assert made["contact"]["lastName"] == "Punktlos"


def test_without_the_option_the_interfaces_names_and_both_spellings_run(api: Api, tenant: Tenant) -> None:
    with McpSession(api.base, tenant.key) as mcp:
        names = [tool.name for tool in mcp.list_tools()]
        assert "meta.tools.search" in names and "meta_tools_search" not in names
        assert mcp.ok("meta_tools_search", {"query": "list units"})["tools"]


def test_the_connect_page_offers_the_option(tenant: Tenant) -> None:
    page = owner_of(tenant).get("/connect")
    assert page.status == 200
    assert "?toolNames=underscore" in page.text()
