"""The anonymous authorize endpoint (issue 51, 6) as anyone on the internet meets it: where its
errors go (RFC 6749 4.1.2.1, RFC 9700 4.11.2: never to a redirect URI the server cannot trust),
a client metadata document that answers slowly, and the per-source admission of /authorize and
/token."""

from __future__ import annotations

import random
import time
import urllib.parse
from typing import Any

import pytest

from chalicelib import config, paths, throttle
from chalicelib.mcp import client_documents
from tests.client import Api, from_source, inside_one_window
from tests.oauth_flow import REDIRECT, authorize, challenge, register, token
from tests.receiver import Drip

PHISH = "https://phish.example/landing"


def _authorize_without_redirect(api: Api, client_id: str, **params: str) -> Any:
    """An authorize request that names no redirect URI (the client's only registered one stands)."""
    query = {
        "response_type": "code",
        "client_id": client_id,
        "code_challenge": challenge("v" * 50),
        "state": "st4te",
        "scope": "read",
        "resource": config.public_url() + paths.MCP,
        **params,
    }
    return api.request("GET", "/authorize?" + urllib.parse.urlencode(query))


def _our_page(answer: Any, error: str) -> str:
    """The answer is the server's own error page naming `error`, sending the browser nowhere."""
    assert answer.status == 400, (answer.status, answer.headers.get("location"))
    assert "location" not in answer.headers, answer.headers["location"]
    assert answer.headers["content-type"].startswith("text/html")
    page = answer.raw.decode()
    assert error in page, page
    return str(page)


def test_an_https_clients_authorize_errors_answer_our_page_never_its_redirect(api: Api) -> None:
    """Anyone may register a client with a redirect URI of their choosing (RFC 7591, anonymous):
    an erroneous authorize request would make this server's address bounce the browser to it (an
    open redirect to a phishing page). Such errors are answered on our own page."""
    client_id = register(api, redirect_uris=[PHISH]).body["client_id"]
    plain = authorize(api, client_id, redirect_uri=PHISH, code_challenge_method="plain")
    _our_page(plain, "invalid_request")
    wrong_scope = authorize(api, client_id, redirect_uri=PHISH, scope="read everything")
    _our_page(wrong_scope, "invalid_scope")
    foreign = authorize(api, client_id, redirect_uri=PHISH, resource="https://other.example/mcp")
    page = _our_page(foreign, "invalid_target")
    assert "phish.example" not in page, "the page offers no way on to the client's redirect"
    fine = authorize(api, client_id, redirect_uri=PHISH)
    assert fine.status == 302 and "/console/oauth/consent?" in fine.headers["location"], "the request itself is served"


def test_errors_return_to_a_loopback_redirect_only_when_the_request_names_it_exactly(api: Api) -> None:
    """A native client's loopback redirect (RFC 8252) leads to the person's own machine, where the
    client waits: an error about the request goes back there, with its state and our issuer
    (RFC 9207). Not when the request left the redirect URI out, nor for an unknown client."""
    client_id = register(api).body["client_id"]
    back = authorize(api, client_id, scope="read everything")
    assert back.status == 302 and back.headers["location"].startswith(REDIRECT + "?"), back.headers
    told = urllib.parse.parse_qs(urllib.parse.urlsplit(back.headers["location"]).query)
    assert told["error"] == ["invalid_scope"] and told["state"] == ["st4te"] and told["iss"] == [config.public_url()]

    _our_page(_authorize_without_redirect(api, client_id, scope="read everything"), "invalid_scope")
    _our_page(authorize(api, "no-such-client"), "invalid_request")
    german = api.request(
        "GET",
        "/authorize?" + urllib.parse.urlencode({"client_id": "no-such-client"}),
        headers={"Accept-Language": "de"},
    )
    assert "Anwendung" in _our_page(german, "invalid_request")


def test_a_slowly_dripping_client_document_is_given_up_and_its_host_not_asked_again(api: Api) -> None:
    """A document's server that sends a byte every half second would hold the request as long as
    it likes were each read timed on its own: the fetch has one deadline, and a host whose
    document could not be had is not asked again for a while (any path)."""
    client_documents.reset()  # a failure another test left for the loopback host would spare this fetch
    drip = Drip(interval=0.5, seconds=30).start()
    try:
        started = time.monotonic()
        slow = authorize(api, f"http://127.0.0.1:{drip.port}/client.json")
        took = time.monotonic() - started
        _our_page(slow, "invalid_request")
        assert took < 10, f"the authorize request was held {took:.1f} s"
        assert drip.connections == 1
        again = authorize(api, f"http://127.0.0.1:{drip.port}/another.json")
        _our_page(again, "invalid_request")
        assert drip.connections == 1, "the host was asked again within the failure window"
    finally:
        drip.stop()
        client_documents.reset()  # the failure is the loopback host's: other tests fetch documents there


def test_authorize_and_token_are_limited_per_source_address(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every authorize request stores a request item until it expires, and every token request
    reads and writes grants: both count against the source address's budget (each its own),
    as registration does; another address is still served."""
    monkeypatch.setenv("PM_OAUTH_LIMIT", "3/600")
    throttle.reset()
    inside_one_window(600, 20)
    client_id = register(api).body["client_id"]
    flood, other = (f"203.0.113.{n}" for n in random.sample(range(1, 255), 2))  # sources no other test uses
    with from_source(flood):
        asked = [authorize(api, client_id).status for _ in range(4)]
        tokens = [token(api, grant_type="authorization_code", code="x", client_id=client_id) for _ in range(4)]
    assert asked == [302, 302, 302, 429]
    assert [t.status for t in tokens[:3]] == [400] * 3 and tokens[3].status == 429
    assert tokens[3].headers["ratelimit-policy"] == '"oauth";q=3;w=600' and int(tokens[3].headers["retry-after"]) >= 1
    with from_source(other):
        assert authorize(api, client_id).status == 302, "another source address was refused with the first one"
