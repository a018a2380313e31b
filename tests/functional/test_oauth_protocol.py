"""OAuth protocol rules (issue 51, 9): a replayed authorization code revokes what its first use
got (RFC 6749 4.1.2); a token is for the resource it was granted for (RFC 8707: its audience,
recorded on the key), refused on the other face; an access token can be revoked at /revoke
(RFC 7009)."""

from __future__ import annotations

import json
from typing import Any

from chalicelib import config, paths
from tests.client import Api, Tenant
from tests.console_client import owner_of
from tests.oauth_flow import approve, authorize, exchange, token

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def _mcp_status(api: Api, key: str) -> int:
    headers = {
        "Authorization": f"Bearer {key}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    return api.request("POST", paths.MCP, body=json.dumps(INITIALIZE).encode(), headers=headers).status


def _refresh(api: Api, tokens: dict[str, Any], approved: dict[str, Any]) -> Any:
    return token(
        api, grant_type="refresh_token", refresh_token=tokens["refresh_token"], client_id=approved["client_id"]
    )


def test_a_replayed_code_revokes_the_tokens_of_its_first_use(api: Api, tenant: Tenant) -> None:
    approved = approve(api, tenant, owner_of(tenant), ["read"])
    first = exchange(api, approved)
    assert first.status == 200, first.body
    assert _mcp_status(api, first.body["access_token"]) == 200
    replay = exchange(api, approved)
    assert replay.status == 400 and replay.body["error"] == "invalid_grant"
    assert _mcp_status(api, first.body["access_token"]) == 401, "the first use's key ends"
    refreshed = _refresh(api, first.body, approved)
    assert refreshed.status == 400 and refreshed.body["error"] == "invalid_grant", "and its refresh token"


def test_a_token_for_the_mcp_server_is_refused_on_rest_and_the_reverse(api: Api, tenant: Tenant) -> None:
    for_mcp = exchange(api, approve(api, tenant, owner_of(tenant), ["read"])).body["access_token"]
    assert _mcp_status(api, for_mcp) == 200
    refused = api.query("info", key=for_mcp)
    assert (refused.status, refused.body["code"]) == (401, "wrong_audience"), refused.body
    assert "resource_metadata" in refused.headers.get("www-authenticate", "")

    rest = config.public_url() + paths.V2
    person = owner_of(tenant)
    approved = approve(api, tenant, person, ["read"], agent="REST host", resource=rest)
    for_rest = exchange(api, approved, resource=rest).body["access_token"]
    assert api.query("info", key=for_rest).status == 200
    assert _mcp_status(api, for_rest) == 401
    keys = tenant.get("apikeys.list", {"limit": 100, "offset": 0})["apiKeys"]
    audiences = {k["agentName"]: k.get("audience") for k in keys if k.get("oauthGrantId")}
    assert audiences == {"Claude Desktop": "mcp", "REST host": "rest"}, audiences
    assert authorize(api, approved["client_id"]).status in (302, 303, 307)


def _revoke(api: Api, form: str) -> None:
    answer = api.request(
        "POST", "/revoke", body=form.encode(), headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert answer.status == 200, answer.raw


def test_an_access_token_can_be_revoked(api: Api, tenant: Tenant) -> None:
    approved = approve(api, tenant, owner_of(tenant), ["read"])
    tokens = exchange(api, approved).body
    assert _mcp_status(api, tokens["access_token"]) == 200
    _revoke(api, f"token={tokens['access_token']}&client_id={approved['client_id']}&client_secret=")
    assert _mcp_status(api, tokens["access_token"]) == 401
    assert _refresh(api, tokens, approved).status == 200, "the grant lives on: only its access token ended"


def test_a_public_client_revokes_its_grant_with_its_client_id_alone(api: Api, tenant: Tenant) -> None:
    """RFC 7009 for a public client (token_endpoint_auth_method none, as the metadata promises): the
    token and the client_id, no secret at all."""
    approved = approve(api, tenant, owner_of(tenant), ["read"])
    tokens = exchange(api, approved).body
    _revoke(api, f"token={tokens['refresh_token']}&client_id={approved['client_id']}")
    assert _refresh(api, tokens, approved).status == 400, "the grant ended"
    assert _mcp_status(api, tokens["access_token"]) == 401, "and its access key with it"
