"""The OAuth authorization server (issue 35, work in progress), over HTTP as an agent host meets it:
its metadata, dynamic registration of public clients, and the authorize request that sends the
person to the console's consent page."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import threading
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from chalicelib import config, paths
from tests.client import Api, Tenant
from tests.console_client import Person, invite, owner_of

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


def _token(api: Api, **form: str) -> Any:
    body = urllib.parse.urlencode(form).encode()
    return api.request("POST", "/token", body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})


def _approve(api: Api, tenant: Tenant, person: Person, scopes: list[str], verifier: str = "v" * 50) -> dict[str, Any]:
    """Registration, authorize, consent by the signed-in person: the code's redirect's parameters."""
    client_id = _register(api).body["client_id"]
    sent = _authorize(api, client_id, code_challenge=_challenge(verifier))
    consent_path = urllib.parse.urlsplit(sent.headers["location"])
    page = person.get(f"{consent_path.path.removeprefix('/console')}?{consent_path.query}")
    assert page.status == 200, page.text()
    request_id = urllib.parse.parse_qs(consent_path.query)["request"][0]
    form = [("request", request_id), ("decision", "approve"), ("agentName", "Claude Desktop")]
    done = person.post("/oauth/consent", form + [("scope", scope) for scope in scopes])
    assert done.status == 303 and done.location.startswith(REDIRECT), done.text()
    params = {k: v[0] for k, v in urllib.parse.parse_qs(urllib.parse.urlsplit(done.location).query).items()}
    assert params["state"] == "st4te" and params["iss"] == config.public_url()
    return {**params, "client_id": client_id}


def test_a_person_approves_and_the_host_gets_a_key_that_refreshes_and_ends_on_a_replay(
    api: Api, tenant: Tenant
) -> None:
    person = owner_of(tenant)
    approved = _approve(api, tenant, person, ["read", "write:contacts"])
    resource = config.public_url() + paths.MCP
    exchange = {
        "grant_type": "authorization_code",
        "code": approved["code"],
        "redirect_uri": REDIRECT,
        "client_id": approved["client_id"],
        "code_verifier": "v" * 50,
        "resource": resource,
    }
    tokens = _token(api, **exchange)
    assert tokens.status == 200, tokens.body
    assert tokens.body["token_type"] == "Bearer" and tokens.body["scope"] == "read write:contacts"
    access, refresh = tokens.body["access_token"], tokens.body["refresh_token"]
    assert api.query("info", key=access).status == 200
    assert (
        api.command(
            "contacts.create", {"contact": {"lastName": "Via OAuth", "personType": "natural"}}, key=access
        ).status
        == 200
    )
    assert api.command("units.create", {"unit": {}}, key=access).status == 403, "a scope not granted"
    assert _token(api, **exchange).body["error"] == "invalid_grant", "a code used twice"

    renewed = _token(api, grant_type="refresh_token", refresh_token=refresh, client_id=approved["client_id"])
    assert renewed.status == 200, renewed.body
    assert api.query("info", key=access).status == 401, "the previous access key ends with its refresh"
    assert api.query("info", key=renewed.body["access_token"]).status == 200

    replay = _token(api, grant_type="refresh_token", refresh_token=refresh, client_id=approved["client_id"])
    assert replay.status == 400 and replay.body["error"] == "invalid_grant"
    assert api.query("info", key=renewed.body["access_token"]).status == 401, "a replay revokes the grant"
    later = _token(
        api, grant_type="refresh_token", refresh_token=renewed.body["refresh_token"], client_id=approved["client_id"]
    )
    assert later.status == 400, "and its newest refresh token with it"


def test_a_wrong_verifier_and_scopes_past_the_role_are_refused(api: Api, tenant: Tenant) -> None:
    person = owner_of(tenant)
    approved = _approve(api, tenant, person, ["read"])
    wrong = _token(
        api,
        grant_type="authorization_code",
        code=approved["code"],
        redirect_uri=REDIRECT,
        client_id=approved["client_id"],
        code_verifier="w" * 50,
        resource=config.public_url() + paths.MCP,
    )
    assert wrong.status == 400 and wrong.body["error"] == "invalid_grant"
    viewer = invite(person, f"viewer-{uuid.uuid4().hex[:8]}@example.org", "viewer")
    client_id = _register(api).body["client_id"]
    consent = urllib.parse.urlsplit(_authorize(api, client_id).headers["location"])
    request_id = urllib.parse.parse_qs(consent.query)["request"][0]
    assert viewer.get(f"/oauth/consent?{consent.query}").status == 200
    widened = viewer.post(
        "/oauth/consent",
        [("request", request_id), ("decision", "approve"), ("agentName", "x"), ("scope", "write:contacts")],
    )
    assert widened.status == 400, "a viewer cannot grant write"


def test_a_person_arriving_from_the_agent_host_signs_in_and_comes_back_to_consent(api: Api, tenant: Tenant) -> None:
    client_id = _register(api).body["client_id"]
    consent = urllib.parse.urlsplit(_authorize(api, client_id).headers["location"])
    person = Person(api, tenant.email)
    first = person.get(f"/oauth/consent?{consent.query}")
    assert first.status == 200 and 'http-equiv="refresh"' in first.html, "a same-site hop first"
    hop = re.search(r'url=([^"]+)"', first.html)
    assert hop is not None and "hop=1" in hop.group(1)
    second = person.get(html.unescape(hop.group(1)).removeprefix("/console"))
    assert second.status == 303 and second.location.startswith("/console/signin")
    person.post("/signin", {"email": person.email})
    done = person.post("/signin/code", {"email": person.email, "code": api.mailed_code(person.email)})
    assert done.status == 303 and done.location.startswith("/console/oauth/consent?"), done.location
    back = person.get(done.location.removeprefix("/console"))
    assert back.status == 200 and "Allow" in back.text()


def test_a_sign_in_returns_only_to_console_pages(api: Api, tenant: Tenant) -> None:
    person = Person(api, tenant.email)
    person.cookies["pm_next"] = urllib.parse.quote("//evil.example/x", safe="")
    person.post("/signin", {"email": person.email})
    done = person.post("/signin/code", {"email": person.email, "code": api.mailed_code(person.email)})
    assert done.status == 303 and done.location == "/console/", done.location


def test_an_admin_sees_the_connected_agents_and_revoking_one_ends_its_key_and_refresh(api: Api, tenant: Tenant) -> None:
    person = owner_of(tenant)
    approved = _approve(api, tenant, person, ["read"])
    tokens = _token(
        api,
        grant_type="authorization_code",
        code=approved["code"],
        redirect_uri=REDIRECT,
        client_id=approved["client_id"],
        code_verifier="v" * 50,
        resource=config.public_url() + paths.MCP,
    ).body
    listed = person.get("/keys/oauth")
    assert listed.status == 200 and "Claude Desktop" in listed.text() and "read" in listed.text()
    grant_id = re.search(r'action="/console/keys/oauth/([^/"]+)/revoke"', listed.html)
    assert grant_id is not None
    assert person.post(f"/keys/oauth/{grant_id.group(1)}/revoke").status == 303
    assert api.query("info", key=tokens["access_token"]).status == 401
    refreshed = _token(
        api, grant_type="refresh_token", refresh_token=tokens["refresh_token"], client_id=approved["client_id"]
    )
    assert refreshed.status == 400 and refreshed.body["error"] == "invalid_grant"
    assert "Claude Desktop" not in person.get("/keys/oauth").text()


def test_a_client_named_by_its_metadata_document_needs_no_registration(api: Api) -> None:
    """A client id that is a URL (the local stage allows loopback http, as for webhooks) names a
    JSON document there; an address the service may not reach is refused without a redirect."""
    served: dict[str, bytes] = {}

    class Documents(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = served.get(self.path, b"")
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Documents)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client_id = f"http://127.0.0.1:{server.server_address[1]}/client.json"
        document = {"client_id": client_id, "client_name": "Doc Client", "redirect_uris": [REDIRECT]}
        served["/client.json"] = json.dumps(document).encode()
        sent = _authorize(api, client_id)
        assert sent.status == 302 and "/console/oauth/consent?" in sent.headers["location"], sent.body
        served["/other.json"] = json.dumps({**document, "client_id": "http://elsewhere.example/x"}).encode()
        mismatched = _authorize(api, client_id.replace("client.json", "other.json"))
        assert mismatched.status in (400, 401) and "location" not in mismatched.headers
    finally:
        server.shutdown()
    private = _authorize(api, "https://10.0.0.7/client.json")
    assert private.status in (400, 401) and "location" not in private.headers
