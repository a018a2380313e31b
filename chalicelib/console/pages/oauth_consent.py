"""Consent to an agent host's OAuth request (issue 35, work in progress): the authorization server
(mcp/oauth_provider.py) keeps the request and sends the person here; the page names the client (as
it names itself: unverified), lets the person confirm the agent's name and narrow the scopes (never
past what their role holds), and approves (a grant and a code, back to the client's redirect URI) or
denies (`access_denied`)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

from chalicelib import config
from chalicelib.console import auth
from chalicelib.console.auth import ROLE_SCOPES
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page
from chalicelib.scopes import holds
from chalicelib.store import keys, oauth

MAX_AGENT_NAME = 100


def _pending(request: Request) -> dict[str, Any] | None:
    return oauth.request(request.query.get("request", "") or request.arg("request"))


def _grantable(request: Request, asked: list[str]) -> list[str]:
    """The scopes asked for that the person's role holds."""
    held = ROLE_SCOPES.get(request.role, frozenset())
    return [scope for scope in asked if holds(held, scope)]


def _form_action(pending: dict[str, Any]) -> str:
    """The page's CSP lets its form's answer go on to the client's redirect URI (Chrome applies
    form-action to the redirect after a post)."""
    target = urlsplit(str(pending["redirect_uri"]))
    return f"{target.scheme}://{target.netloc}"


def _page(request: Request, pending: dict[str, Any], status: int = 200, errors: list[str] | None = None) -> Answer:
    asked = list(pending.get("scopes") or [])
    answer = render(
        request,
        "oauth_consent.html",
        status,
        pending=pending,
        request_id=request.query.get("request", "") or request.arg("request"),
        grantable=_grantable(request, asked),
        refused=[scope for scope in asked if scope not in _grantable(request, asked)],
        redirect_host=urlsplit(str(pending["redirect_uri"])).netloc,
        errors=errors or [],
    )
    answer.headers["Content-Security-Policy"] = (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"form-action 'self' {_form_action(pending)}; frame-ancestors 'none'; base-uri 'none'; connect-src 'self'"
    )
    return answer


@page("GET", "/oauth/consent", public=True)
def consent(request: Request) -> Answer:
    """An agent host's page sent the browser here (cross-site: the SameSite=Strict session cookie
    stays behind). Without a session the page first navigates to itself (`hop`), which is
    same-site, so a signed-in person's cookie comes along; still without one, sign-in, which returns
    here (console/auth.py)."""
    refused = auth.admit(request)
    if refused is not None:
        if request.query.get("hop") == "1":
            return refused
        target = f"{request.base}/oauth/consent?{urlencode({**request.query, 'hop': '1'})}"
        return render(request, "oauth_hop.html", target=target)
    pending = _pending(request)
    if pending is None:
        return render(request, "error.html", 404, errors=[translate(request.lang, "oauth.expired")])
    return _page(request, pending)


@page("POST", "/oauth/consent", role="viewer")
def decide(request: Request) -> Answer:
    request_id = request.arg("request")
    pending = oauth.request(request_id)
    if pending is None:
        return render(request, "error.html", 404, errors=[translate(request.lang, "oauth.expired")])
    if request.arg("decision") != "approve":
        oauth.end_request(request_id)
        return _back(pending, {"error": "access_denied"})
    chosen = [scope for scope in request.args("scope") if scope in _grantable(request, pending.get("scopes") or [])]
    agent = request.arg("agentName")
    if not chosen or not agent or len(agent) > MAX_AGENT_NAME:
        return _page(request, pending, 400, errors=[translate(request.lang, "oauth.incomplete")])
    assert request.ctx is not None and request.member is not None
    if keys.live_keys_of_agent(request.ctx, agent):
        # an agent has one key (two while rotating, as each refresh does): a second grant under this
        # name could never receive its token
        return _page(request, pending, 409, errors=[translate(request.lang, "oauth.agent_taken", agent=agent)])
    grant_id = oauth.create_grant(
        request.ctx.tenant_id,
        {
            "client_id": pending["client_id"],
            "clientName": pending.get("client_name"),
            "agentName": agent,
            "scopes": sorted(chosen),
            "resource": pending.get("resource"),
            "approvedBy": request.ctx.stamp(),
        },
        changed_by={**request.ctx.stamp(), "operation": "oauth.approve"},
    )
    code = oauth.mint_code(
        {
            "tenantId": request.ctx.tenant_id,
            "grantId": grant_id,
            "client_id": pending["client_id"],
            "scopes": sorted(chosen),
            "code_challenge": pending["code_challenge"],
            "redirect_uri": pending["redirect_uri"],
            "redirect_uri_provided_explicitly": pending["redirect_uri_provided_explicitly"],
            "resource": pending.get("resource"),
        }
    )
    oauth.end_request(request_id)
    return _back(pending, {"code": code})


def _back(pending: dict[str, Any], answer: dict[str, str]) -> Answer:
    """303 to the client's redirect URI with the answer, its state and the issuer (RFC 9207)."""
    params = {**answer, **({"state": pending["state"]} if pending.get("state") else {}), "iss": config.public_url()}
    target = str(pending["redirect_uri"])
    return Answer(303, "", headers={"Location": target + ("&" if "?" in target else "?") + urlencode(params)})
