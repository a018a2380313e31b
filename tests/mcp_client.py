"""The MCP SDK's own client, over HTTP, wrapped for synchronous tests: one event loop per
session, the bearer key in every request's headers."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import Future
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

MCP_PATH = "/propertymanagement/v2/mcp"
MODES = ("legacy", "2026-07-28")  # legacy: the initialize handshake, which negotiates 2025-11-25


class McpSession:
    """The client lives in one task on a loop of its own thread (anyio insists that a task
    group is left by the task that entered it); each call is submitted to that loop."""

    def __init__(self, base: str, key: str, mode: str = "legacy") -> None:
        self.url, self.key, self.mode = base + MCP_PATH, key, mode
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.statuses: list[int] = []  # every HTTP status the client saw

    async def _record(self, response: httpx2.Response) -> None:
        self.statuses.append(response.status_code)

    def __enter__(self) -> McpSession:
        self._thread.start()
        self._opened: Future[Client] = Future()
        self._closing = asyncio.Event()
        self._holder = asyncio.run_coroutine_threadsafe(self._hold(), self._loop)
        try:
            self.client = self._opened.result(timeout=60)
        except BaseException:
            self._stop_loop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._closing.set)
        self._holder.result(timeout=60)
        self._stop_loop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    async def _hold(self) -> None:
        try:
            auth = {"Authorization": f"Bearer {self.key}"}
            async with httpx2.AsyncClient(headers=auth, timeout=60, event_hooks={"response": [self._record]}) as http:
                async with Client(streamable_http_client(self.url, http_client=http), mode=self.mode) as client:
                    self._opened.set_result(client)
                    await self._closing.wait()
        except BaseException as err:
            if not self._opened.done():
                self._opened.set_exception(err)
            else:
                raise

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=120)

    @property
    def protocol_version(self) -> str:
        return str(self.client.protocol_version)

    def list_tools(self) -> list[types.Tool]:
        return list(self._run(self.client.list_tools()).tools)

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> types.CallToolResult:
        return self._run(self.client.call_tool(name, arguments or {}))  # type: ignore[no-any-return]

    def ok(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """Call a meta-tool and insist it succeeded; answers its structured content."""
        result = self.call(name, arguments)
        assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
        assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
        return result.structured_content

    def execute(self, tool: str, arguments: dict[str, Any] | None = None, **extra: Any) -> types.CallToolResult:
        return self.call("meta.tool.execute", {"name": tool, "arguments": arguments or {}, **extra})


def error_text(result: types.CallToolResult) -> str:
    assert result.is_error, result.structured_content
    return str(result.content[0].text)  # type: ignore[union-attr]
