"""An agent host's OAuth flow against the service, step by step over HTTP (tests of the
authorization server, and of what its grants become: keys, audit records, console pages)."""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.parse
from typing import Any

from chalicelib import config, paths
from tests.client import Api, Tenant
from tests.console_client import Person

REDIRECT = "http://127.0.0.1:33418/callback"
# the REST interface as a grant's resource: its tokens are keys of that face only (their audience)
REST = config.public_url() + paths.V2


def post(api: Api, path: str, body: dict[str, Any]) -> Any:
    return api.request("POST", path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})


def register(api: Api, **metadata: Any) -> Any:
    body = {"client_name": "Claude", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none", **metadata}
    return post(api, "/register", body)


def challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def authorize(api: Api, client_id: str, **params: str) -> Any:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge("v" * 50),
        "code_challenge_method": "S256",
        "state": "st4te",
        "scope": "read write:contacts",
        "resource": config.public_url() + paths.MCP,
        **params,
    }
    return api.request("GET", "/authorize?" + urllib.parse.urlencode(query))


def token(api: Api, **form: str) -> Any:
    body = urllib.parse.urlencode(form).encode()
    return api.request("POST", "/token", body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})


def approve(
    api: Api,
    tenant: Tenant,
    person: Person,
    scopes: list[str],
    verifier: str = "v" * 50,
    agent: str = "Claude Desktop",
    asked: str | None = None,
    resource: str | None = None,
) -> dict[str, Any]:
    """Registration, authorize (asking for `asked`, else the scopes chosen; for `resource`, else the
    MCP server), consent by the signed-in person: the code's redirect's parameters."""
    client_id = register(api).body["client_id"]
    extra = {"resource": resource} if resource else {}
    sent = authorize(api, client_id, code_challenge=challenge(verifier), scope=asked or " ".join(scopes), **extra)
    consent_path = urllib.parse.urlsplit(sent.headers["location"])
    page = person.get(f"{consent_path.path.removeprefix('/console')}?{consent_path.query}")
    assert page.status == 200, page.text()
    request_id = urllib.parse.parse_qs(consent_path.query)["request"][0]
    form = [("request", request_id), ("decision", "approve"), ("agentName", agent)]
    done = person.post("/oauth/consent", form + [("scope", scope) for scope in scopes])
    assert done.status == 303 and done.location.startswith(REDIRECT), done.text()
    params = {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(done.location).query).items()}
    assert params["state"] == "st4te" and params["iss"] == config.public_url()
    return {**params, "client_id": client_id}


def exchange(api: Api, approved: dict[str, Any], verifier: str | None = "v" * 50, resource: str = "") -> Any:
    """The approved code for tokens (for the MCP endpoint unless `resource` says another; no
    verifier when None)."""
    form = {
        "grant_type": "authorization_code",
        "code": approved["code"],
        "redirect_uri": REDIRECT,
        "client_id": approved["client_id"],
        "resource": resource or config.public_url() + paths.MCP,
    }
    return token(api, **form, **({"code_verifier": verifier} if verifier is not None else {}))
