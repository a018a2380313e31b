"""An agent host connects as agent hosts do (issue 35): the MCP SDK's own OAuth client
(`OAuthClientProvider`) meets the MCP endpoint's 401, discovers the protected resource and the
authorization server, registers, sends the person's browser (Chromium, driven here) to sign in and
consent, exchanges the code with PKCE and calls tools with the token."""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from playwright.sync_api import Page, Route

from chalicelib import paths
from tests.browser.conftest import check_accessibility
from tests.browser.console import signed_in_owner
from tests.client import Api

CALLBACK = "http://127.0.0.1:33419/callback"


class Memory:
    """The host's token storage."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def _host(url: str, to_browser: queue.Queue[str], from_browser: queue.Queue[AuthorizationCodeResult]) -> Any:
    """The agent host in a thread of its own (the SDK is async, Playwright's sync API keeps to the
    test's thread): it connects with OAuth, lists the tools and runs one; answers what it saw."""

    async def redirect(authorization_url: str) -> None:
        to_browser.put(authorization_url)

    async def callback() -> AuthorizationCodeResult:
        return await asyncio.get_running_loop().run_in_executor(None, lambda: from_browser.get(timeout=120))

    async def connect() -> Any:
        storage = Memory()
        auth = OAuthClientProvider(
            server_url=url,
            client_metadata=OAuthClientMetadata(
                client_name="Test Agent Host",
                redirect_uris=[CALLBACK],  # type: ignore[list-item]
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=storage,
            redirect_handler=redirect,
            callback_handler=callback,
        )
        async with httpx2.AsyncClient(auth=auth, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                tools = await client.list_tools()
                listed = await client.call_tool(
                    "meta.tool.execute", {"name": "contacts", "arguments": {"limit": 5, "offset": 0}}
                )
        return [tool.name for tool in tools.tools], listed, storage

    return asyncio.run(connect())


@pytest.mark.timeout(180)
@pytest.mark.full_chromium
def test_the_sdk_oauth_client_connects_through_consent_in_the_browser(
    page: Page, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PM_PUBLIC_URL", api.base)  # the addresses the metadata names are the server's
    signed_in_owner(page, api)
    to_browser: queue.Queue[str] = queue.Queue()
    from_browser: queue.Queue[AuthorizationCodeResult] = queue.Queue()
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = _host(api.base + paths.MCP, to_browser, from_browser)
        except BaseException as err:  # noqa: BLE001 - reported by the test
            outcome["error"] = err

    host = threading.Thread(target=run, daemon=True)
    host.start()

    def catch(route: Route) -> None:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(route.request.url).query)
        from_browser.put(
            AuthorizationCodeResult(code=query["code"][0], state=query.get("state", [None])[0], iss=query["iss"][0])
        )
        route.fulfill(status=200, body="You may close this window.")

    page.route(CALLBACK + "*", catch)
    page.goto(to_browser.get(timeout=60))  # /authorize, then the consent page (its same-site hop)
    page.wait_for_url("**/console/oauth/consent?**")
    assert "Test Agent Host" in page.locator("main").inner_text()
    check_accessibility(page)
    page.locator("input[name=scope][value=write]").uncheck()
    page.locator("button[value=approve]").click()
    for _ in range(1200):  # Playwright answers the callback route only while this thread is in one of its calls
        if not host.is_alive():
            break
        page.wait_for_timeout(100)
    assert "error" not in outcome, outcome.get("error")
    names, listed, storage = outcome["value"]
    assert "meta.tool.execute" in names and len(names) == 8
    assert not listed.is_error, listed
    assert storage.tokens is not None and "write" not in (storage.tokens.scope or "").split()
    assert storage.tokens.refresh_token and storage.client is not None

    # the host refreshes: a new access key, the old one ends
    refresh = {"grant_type": "refresh_token", "client_id": str(storage.client.client_id)}
    status, renewed = _post_form(api.base + "/token", {**refresh, "refresh_token": storage.tokens.refresh_token})
    assert status == 200, renewed
    assert _mcp_status(api, storage.tokens.access_token) == 401
    assert _mcp_status(api, renewed["access_token"]) == 200

    # the person revokes it in the console: the next call is 401, the refresh token ends with it
    page.goto(api.base + "/console/keys")
    assert "Test Agent Host" in page.locator("#oauth ~ table").inner_text()
    check_accessibility(page)  # the keys page with a grant listed
    page.locator("main form[action*='/keys/oauth/'] button[type=submit]").first.click()
    page.wait_for_url("**/console/keys?done=revoked")
    assert _mcp_status(api, renewed["access_token"]) == 401
    status, refused = _post_form(api.base + "/token", {**refresh, "refresh_token": renewed["refresh_token"]})
    assert status == 400 and refused["error"] == "invalid_grant"


def _post_form(url: str, form: dict[str, str]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, data=urllib.parse.urlencode(form).encode(), headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def _mcp_status(api: Api, token: str) -> int:
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    headers = {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    return int(api.request("POST", paths.MCP, body=message, headers=headers).status)
