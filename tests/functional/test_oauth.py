"""The OAuth authorization server (issue 35, work in progress), over HTTP as an agent host meets it:
its metadata, dynamic registration of public clients, and the authorize request that sends the
person to the console's consent page."""

from __future__ import annotations

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
from tests.oauth_flow import REDIRECT, REST, approve, authorize, exchange, register, token


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
    registered = register(api)
    assert registered.status == 201, registered.body
    assert registered.body["token_endpoint_auth_method"] == "none" and "client_secret" not in registered.body
    confidential = register(api, token_endpoint_auth_method="client_secret_post")
    assert confidential.status == 400 and confidential.body["error"] == "invalid_client_metadata"
    plain_http = register(api, redirect_uris=["http://attacker.example/cb"])
    assert plain_http.status == 400 and plain_http.body["error"] == "invalid_redirect_uri"


def test_an_authorize_request_sends_the_person_to_consent_and_refuses_what_it_must(api: Api) -> None:
    client_id = register(api).body["client_id"]
    sent = authorize(api, client_id)
    assert sent.status == 302, sent.body
    location = urllib.parse.urlsplit(sent.headers["location"])
    assert location.path == "/console/oauth/consent" and "request" in urllib.parse.parse_qs(location.query)

    plain = authorize(api, client_id, code_challenge_method="plain", code_challenge="v" * 50)
    assert plain.status == 302 and plain.headers["location"].startswith(REDIRECT)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(plain.headers["location"]).query)["error"] == ["invalid_request"]

    foreign = authorize(api, client_id, resource="https://other.example/mcp")
    assert foreign.status == 302
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(foreign.headers["location"]).query)["error"] == [
        "invalid_target"
    ]

    unregistered = authorize(api, client_id, redirect_uri="http://127.0.0.1:9/elsewhere")
    assert unregistered.status == 400 and "location" not in unregistered.headers, "never redirects to it"


def test_a_person_approves_and_the_host_gets_a_key_that_refreshes_and_ends_on_a_replay(
    api: Api, tenant: Tenant
) -> None:
    person = owner_of(tenant)
    approved = approve(api, tenant, person, ["read", "write:contacts"], resource=REST)
    resource = REST  # the calls below are REST calls: a token is for the face it was granted for
    exchange = {
        "grant_type": "authorization_code",
        "code": approved["code"],
        "redirect_uri": REDIRECT,
        "client_id": approved["client_id"],
        "code_verifier": "v" * 50,
        "resource": resource,
    }
    tokens = token(api, **exchange)
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

    renewed = token(api, grant_type="refresh_token", refresh_token=refresh, client_id=approved["client_id"])
    assert renewed.status == 200, renewed.body
    assert api.query("info", key=access).status == 401, "the previous access key ends with its refresh"
    assert api.query("info", key=renewed.body["access_token"]).status == 200

    replay = token(api, grant_type="refresh_token", refresh_token=refresh, client_id=approved["client_id"])
    assert replay.status == 400 and replay.body["error"] == "invalid_grant"
    assert api.query("info", key=renewed.body["access_token"]).status == 401, "a replay revokes the grant"
    later = token(
        api, grant_type="refresh_token", refresh_token=renewed.body["refresh_token"], client_id=approved["client_id"]
    )
    assert later.status == 400, "and its newest refresh token with it"


def test_a_wrong_verifier_and_scopes_past_the_role_are_refused(api: Api, tenant: Tenant) -> None:
    person = owner_of(tenant)
    approved = approve(api, tenant, person, ["read"])
    wrong = exchange(api, approved, verifier="w" * 50)
    assert wrong.status == 400 and wrong.body["error"] == "invalid_grant"
    missing = exchange(api, approved, verifier=None)
    assert missing.status == 400 and missing.body["error"] in ("invalid_request", "invalid_grant"), missing.body
    elsewhere = exchange(api, approved, resource="https://other.example/mcp")
    assert elsewhere.status == 400 and elsewhere.body["error"] in ("invalid_target", "invalid_grant"), elsewhere.body
    rest = exchange(api, approved, resource=config.public_url() + paths.V2)
    assert rest.status == 400, "the code was granted for the MCP endpoint: another resource of ours is refused too"
    tokens = exchange(api, approved)
    assert tokens.status == 200, "the refused requests did not spend the code"
    renew = {
        "grant_type": "refresh_token",
        "refresh_token": tokens.body["refresh_token"],
        "client_id": approved["client_id"],
    }
    moved = token(api, **renew, resource="https://other.example/mcp")
    assert moved.status == 400 and moved.body["error"] == "invalid_target"
    assert token(api, **renew).status == 200, "nor did the refused refresh spend the refresh token"
    viewer = invite(person, f"viewer-{uuid.uuid4().hex[:8]}@example.org", "viewer")
    client_id = register(api).body["client_id"]
    consent = urllib.parse.urlsplit(authorize(api, client_id).headers["location"])
    request_id = urllib.parse.parse_qs(consent.query)["request"][0]
    assert viewer.get(f"/oauth/consent?{consent.query}").status == 200
    widened = viewer.post(
        "/oauth/consent",
        [("request", request_id), ("decision", "approve"), ("agentName", "x"), ("scope", "write:contacts")],
    )
    assert widened.status == 400, "a viewer cannot grant write"


def test_a_person_arriving_from_the_agent_host_signs_in_and_comes_back_to_consent(api: Api, tenant: Tenant) -> None:
    client_id = register(api).body["client_id"]
    consent = urllib.parse.urlsplit(authorize(api, client_id).headers["location"])
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


def _grants(page: Any) -> str:
    """The keys page's section of the agents connected by OAuth."""
    return str(page.text().partition("Agents connected by OAuth")[2])


def test_an_admin_sees_the_connected_agents_and_revoking_one_ends_its_key_and_refresh(api: Api, tenant: Tenant) -> None:
    person = owner_of(tenant)
    approved = approve(api, tenant, person, ["read"], resource=REST)
    tokens = exchange(api, approved, resource=REST).body
    assert api.query("info", key=tokens["access_token"]).status == 200
    listed = person.get("/keys")
    assert listed.status == 200 and "Claude Desktop" in _grants(listed) and "read" in _grants(listed)
    grant_id = re.search(r'action="/console/keys/oauth/([^/"]+)/revoke"', listed.html)
    assert grant_id is not None
    assert person.post(f"/keys/oauth/{grant_id.group(1)}/revoke").status == 303
    assert api.query("info", key=tokens["access_token"]).status == 401
    refreshed = token(
        api, grant_type="refresh_token", refresh_token=tokens["refresh_token"], client_id=approved["client_id"]
    )
    assert refreshed.status == 400 and refreshed.body["error"] == "invalid_grant"
    assert "Claude Desktop" not in _grants(person.get("/keys"))
    assert "OAuth" in person.get("/keys").text(), "its disabled access key is still listed, marked OAuth"


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
        sent = authorize(api, client_id)
        assert sent.status == 302 and "/console/oauth/consent?" in sent.headers["location"], sent.body
        served["/other.json"] = json.dumps({**document, "client_id": "http://elsewhere.example/x"}).encode()
        mismatched = authorize(api, client_id.replace("client.json", "other.json"))
        assert mismatched.status in (400, 401) and "location" not in mismatched.headers
    finally:
        server.shutdown()
    private = authorize(api, "https://10.0.0.7/client.json")
    assert private.status in (400, 401) and "location" not in private.headers


def test_approval_and_revocation_are_in_the_audit_trail_with_the_person_as_actor(
    api: Api, tenant: Tenant, stack: Any
) -> None:
    person = invite(owner_of(tenant), f"anna-{uuid.uuid4().hex[:8]}@example.org", "admin", name="Anna Admin")
    approved = approve(api, tenant, person, ["read"])
    tokens = exchange(api, approved).body
    renewed = token(
        api, grant_type="refresh_token", refresh_token=tokens["refresh_token"], client_id=approved["client_id"]
    ).body
    grant_id = re.search(r'action="/console/keys/oauth/([^/"]+)/revoke"', person.get("/keys").html)
    assert grant_id is not None
    assert person.post(f"/keys/oauth/{grant_id.group(1)}/revoke").status == 303
    assert stack.poller.wait_idle(15), "the change stream did not catch up"

    trail = tenant.get("audit.list", {"entityId": grant_id.group(1), "limit": 10, "offset": 0})["auditRecords"]
    assert [(r["action"], r["operation"], r["channel"]) for r in trail] == [
        ("created", "oauth.approve", "console"),
        ("updated", "oauth.revoke", "console"),
    ], "a refresh (a new access key on the grant) is no change of the grant"
    approval, revocation = trail
    assert approval["entityType"] == "oauthGrant" and approval["actor"]["agentName"] == "Anna Admin"
    assert approval["actor"]["keyId"] == revocation["actor"]["keyId"] and approval["actor"]["keyId"].startswith("mem_")
    assert (
        approval["after"]["data"]["scopes"] == ["read"] and approval["after"]["data"]["agentName"] == "Claude Desktop"
    )
    assert "accessKeyId" not in json.dumps(trail)
    assert revocation["changedFields"] == ["revokedAt", "revokedReason"]
    # the grant's keys are records of their own, the approving person their author
    made = tenant.get(
        "audit.list", {"operation": "oauth.token", "keyId": approval["actor"]["keyId"], "limit": 10, "offset": 0}
    )
    assert len(made["auditRecords"]) == 2 and renewed["access_token"] not in json.dumps(made)


def test_a_replayed_refresh_token_revokes_the_grant_in_the_trail_as_the_server(
    api: Api, tenant: Tenant, stack: Any
) -> None:
    approved = approve(api, tenant, owner_of(tenant), ["read"])
    refresh = exchange(api, approved).body["refresh_token"]
    for _ in range(2):
        token(api, grant_type="refresh_token", refresh_token=refresh, client_id=approved["client_id"])
    assert stack.poller.wait_idle(15), "the change stream did not catch up"
    revoked = tenant.get(
        "audit.list", {"entityType": "oauthGrant", "operation": "oauth.revoke", "limit": 10, "offset": 0}
    )
    (record,) = revoked["auditRecords"]
    assert (record["channel"], record["actor"]["agentName"]) == ("oauth", "oauth")
    assert record["after"]["data"]["revokedReason"] == "a spent refresh token was presented again"


def test_a_second_agent_under_a_name_with_a_key_is_refused_at_consent_and_at_the_token(
    api: Api, tenant: Tenant
) -> None:
    """An agent has one key (two while rotating): a grant under a name that has a key could never
    get its token. The consent says so; a key made between consent and token makes the token
    request fail with invalid_grant (before: a 500)."""
    person = owner_of(tenant)
    first = approve(api, tenant, person, ["read"])
    assert exchange(api, first).status == 200
    client_id = register(api).body["client_id"]
    consent = urllib.parse.urlsplit(authorize(api, client_id).headers["location"])
    request_id = urllib.parse.parse_qs(consent.query)["request"][0]
    person.get(f"{consent.path.removeprefix('/console')}?{consent.query}")
    form = [("request", request_id), ("decision", "approve"), ("agentName", "claude desktop"), ("scope", "read")]
    refused = person.post("/oauth/consent", form)
    assert refused.status == 409 and "has a key already" in refused.text()
    second = approve(api, tenant, person, ["read"], agent="Claude Laptop")
    tenant.ok("apikeys.create", {"apiKey": {"agentName": "Claude Laptop", "scopes": ["read"]}})
    tenant.ok("apikeys.create", {"apiKey": {"agentName": "Claude Laptop", "scopes": ["read"]}})
    late = exchange(api, second)
    assert late.status == 400 and late.body["error"] == "invalid_grant" and "key_" not in late.body["error_description"]
