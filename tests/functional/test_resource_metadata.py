"""The service as an OAuth protected resource (issue 35, RFC 9728): every 401 of REST and of the MCP
endpoint names where the resource's metadata is, the metadata names the resource, its authorization
server and scopes, and a missing scope's 403 says which scope (`insufficient_scope`)."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

from chalicelib import config, paths
from tests.client import Api, Tenant

MCP_URL = paths.MCP
REST_URL = paths.V2


def _params(header: str) -> dict[str, str]:
    assert header.startswith("Bearer "), header
    return dict(re.findall(r'(\w+)="([^"]*)"', header))


def _metadata(url: str) -> tuple[dict[str, Any], dict[str, str]]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read()), {k.lower(): v for k, v in answer.headers.items()}


def _mcp_401(api: Api) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    return api.request("POST", MCP_URL, body=body, headers=headers)


def test_a_401_of_the_mcp_endpoint_leads_to_its_metadata_and_its_authorization_server(api: Api) -> None:
    refused = _mcp_401(api)
    assert refused.status == 401
    params = _params(refused.headers["www-authenticate"])
    assert params["realm"] == "propertymanagement"
    assert params["resource_metadata"] == f"{config.public_url()}/.well-known/oauth-protected-resource{MCP_URL}"
    document, headers = _metadata(api.base + params["resource_metadata"].removeprefix(config.public_url()))
    assert document["resource"] == config.public_url() + MCP_URL
    assert document["authorization_servers"] == [config.public_url()]
    assert document["bearer_methods_supported"] == ["header"]
    assert {"read", "write", "write:contacts", "read:exports"} <= set(document["scopes_supported"])
    assert headers["access-control-allow-origin"] == "*" and "max-age" in headers["cache-control"]
    root, _ = _metadata(api.base + "/.well-known/oauth-protected-resource")
    assert root == document, "the well-known root describes the MCP endpoint"


def test_a_401_of_rest_names_the_rest_interface_as_its_resource(api: Api) -> None:
    for refused in (api.query("info"), api.query("info", key="pm_test_" + "x" * 40), api.command("contacts.create")):
        assert refused.status == 401, refused.body
        params = _params(refused.headers["www-authenticate"])
        assert params["resource_metadata"] == f"{config.public_url()}/.well-known/oauth-protected-resource{REST_URL}"
    document, _ = _metadata(api.base + f"/.well-known/oauth-protected-resource{REST_URL}")
    assert document["resource"] == config.public_url() + REST_URL


def test_a_missing_scope_says_which_scope_the_request_needs(tenant: Tenant) -> None:
    reader = tenant.new_key(["read"])
    refused = tenant.command("contacts.create", {"contact": {"lastName": "X", "personType": "natural"}}, key=reader)
    assert refused.status == 403 and refused.body["code"] == "missing_scope"
    params = _params(refused.headers["www-authenticate"])
    assert params["error"] == "insufficient_scope" and params["scope"] == "write:contacts"
    assert params["resource_metadata"].endswith(f"/.well-known/oauth-protected-resource{REST_URL}")
    served = tenant.query("info", key=reader)
    assert served.status == 200 and "www-authenticate" not in served.headers
