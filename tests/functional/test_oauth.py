"""The OAuth authorization server (issue 35, work in progress), over HTTP as an agent host meets it:
its metadata, dynamic registration of public clients, and the authorize request that sends the
person to the console's consent page."""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.parse
from typing import Any

from chalicelib import config, paths
from tests.client import Api

REDIRECT = "http://127.0.0.1:33418/callback"


def _post(api: Api, path: str, body: dict[str, Any]) -> Any:
    return api.request("POST", path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})


def _register(api: Api, **metadata: Any) -> Any:
    body = {"client_name": "Claude", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none", **metadata}
    return _post(api, "/register", body)


def _challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def _authorize(api: Api, client_id: str, **params: str) -> Any:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": _challenge("v" * 50),
        "code_challenge_method": "S256",
        "state": "st4te",
        "scope": "read write:contacts",
        "resource": config.public_url() + paths.MCP,
        **params,
    }
    return api.request("GET", "/authorize?" + urllib.parse.urlencode(query))


def test_the_metadata_names_the_endpoints_public_clients_and_pkce(api: Api) -> None:
    for path in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
        answer = api.request("GET", path)
        assert answer.status == 200, answer.body
        metadata = answer.body
        assert metadata["issuer"] == config.public_url()
        assert metadata["authorization_endpoint"] == config.public_url() + "/authorize"
        assert metadata["code_challenge_methods_supported"] == ["S256"]
        assert metadata["token_endpoint_auth_methods_supported"] == ["none"]
        assert "write:contacts" in metadata["scopes_supported"]


def test_public_clients_register_with_https_or_loopback_redirects_only(api: Api) -> None:
    registered = _register(api)
    assert registered.status == 201, registered.body
    assert registered.body["token_endpoint_auth_method"] == "none" and "client_secret" not in registered.body
    confidential = _register(api, token_endpoint_auth_method="client_secret_post")
    assert confidential.status == 400 and confidential.body["error"] == "invalid_client_metadata"
    plain_http = _register(api, redirect_uris=["http://attacker.example/cb"])
    assert plain_http.status == 400 and plain_http.body["error"] == "invalid_redirect_uri"


def test_an_authorize_request_sends_the_person_to_consent_and_refuses_what_it_must(api: Api) -> None:
    client_id = _register(api).body["client_id"]
    sent = _authorize(api, client_id)
    assert sent.status == 302, sent.body
    location = urllib.parse.urlsplit(sent.headers["location"])
    assert location.path == "/console/oauth/consent" and "request" in urllib.parse.parse_qs(location.query)

    plain = _authorize(api, client_id, code_challenge_method="plain", code_challenge="v" * 50)
    assert plain.status == 302 and plain.headers["location"].startswith(REDIRECT)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(plain.headers["location"]).query)["error"] == ["invalid_request"]

    foreign = _authorize(api, client_id, resource="https://other.example/mcp")
    assert foreign.status == 302
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(foreign.headers["location"]).query)["error"] == [
        "invalid_target"
    ]

    unregistered = _authorize(api, client_id, redirect_uri="http://127.0.0.1:9/elsewhere")
    assert unregistered.status == 400 and "location" not in unregistered.headers, "never redirects to it"
