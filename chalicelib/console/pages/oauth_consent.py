"""Consent to an agent host's OAuth request (issue 35, work in progress): the authorization server
(mcp/oauth_provider.py) keeps the request and sends the person here; the page names the client (as
it names itself: unverified), lets the person confirm the agent's name and narrow the scopes (never
past what their role holds), and approves (a grant and a code, back to the client's redirect URI) or
denies (`access_denied`).

The scopes are offered as a new user can judge them (issue 51, 13): only those the client asked for
and the person's role holds, in the person's language, grouped (every area, each area of AREAS, and
deleting and administration apart, each with its warning); each ticked as asked except `admin` and
`destructive`, which are never ticked for the person; one sentence (`summary`, kept current by
console.js as ticks change) says what the client will be able to do. Allow and Deny look unlike, and
Deny needs no agent name."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

from chalicelib import config
from chalicelib.console import auth
from chalicelib.console.auth import ROLE_SCOPES
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page
from chalicelib.scopes import AREAS, SCOPE_ADMIN, SCOPE_DESTRUCTIVE, SCOPE_READ, SCOPE_WRITE, holds
from chalicelib.store import keys, oauth

MAX_AGENT_NAME = 100
WIDE = (SCOPE_READ, SCOPE_WRITE)
RISKY = (SCOPE_DESTRUCTIVE, SCOPE_ADMIN)  # never ticked for the person: each needs its own tick


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


def _scope_words(lang: str, scope: str) -> str:
    """A scope as the person reads it (the key form's words)."""
    wide, _, area = scope.partition(":")
    if area in AREAS:
        return translate(lang, f"keys.scope.area.{wide}", area=translate(lang, f"keys.area.{area}"))
    return translate(lang, f"keys.scope.{scope}") if scope in (*WIDE, *RISKY) else scope


def _listed(lang: str, items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c` in the person's language."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {translate(lang, 'oauth.and')} {items[-1]}"


def summary(lang: str, client: str, ticked: set[str]) -> str:
    """One sentence of what the client will be able to do with the ticked scopes."""
    parts = []
    for wide in WIDE:
        areas = [translate(lang, f"oauth.short.{area}") for area in AREAS if f"{wide}:{area}" in ticked]
        if wide in ticked:
            parts.append(translate(lang, f"oauth.can.{wide}_all"))
        elif areas:
            parts.append(translate(lang, f"oauth.can.{wide}", areas=_listed(lang, areas)))
    parts += [translate(lang, f"oauth.can.{scope}") for scope in RISKY if scope in ticked]
    if not parts:
        return translate(lang, "oauth.can.nothing")
    return translate(lang, "oauth.can", client=client, what=_listed(lang, parts))


def _page(
    request: Request,
    pending: dict[str, Any],
    status: int = 200,
    errors: list[str] | None = None,
    ticked: set[str] | None = None,
) -> Answer:
    """The page; `ticked`: the person's choice to show again (a refused post), else the default:
    what the client asked for, without the risky scopes."""
    asked = list(pending.get("scopes") or [])
    grantable = _grantable(request, asked)
    chosen = ticked if ticked is not None else {scope for scope in grantable if scope not in RISKY}
    client = str(pending.get("client_name") or pending["client_id"])
    lead_before, _, lead_after = translate(request.lang, "oauth.can", client=client, what="\x00").partition("\x00")
    answer = render(
        request,
        "oauth_consent.html",
        status,
        pending=pending,
        request_id=request.query.get("request", "") or request.arg("request"),
        wide=[scope for scope in WIDE if scope in grantable],
        areas=[
            (area, [(w, f"{w}:{area}") for w in WIDE if f"{w}:{area}" in grantable])
            for area in AREAS
            if any(f"{w}:{area}" in grantable for w in WIDE)
        ],
        risky=[scope for scope in RISKY if scope in grantable],
        ticked=chosen,
        refused=[_scope_words(request.lang, scope) for scope in asked if scope not in grantable],
        summary=summary(request.lang, client, chosen),
        lead=(lead_before, lead_after),
        client=client,
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
        return _page(request, pending, 400, errors=[translate(request.lang, "oauth.incomplete")], ticked=set(chosen))
    assert request.ctx is not None and request.member is not None
    if keys.live_keys_of_agent(request.ctx, agent):
        # an agent has one key (two while rotating, as each refresh does): a second grant under this
        # name could never receive its token
        taken = translate(request.lang, "oauth.agent_taken", agent=agent)
        return _page(request, pending, 409, errors=[taken], ticked=set(chosen))
    held = len(oauth.grants_approved_by(request.ctx.tenant_id, request.ctx.key_id))
    if held >= config.MAX_GRANTS_PER_MEMBER:  # each live grant keeps a key renewing: a person's are bounded
        many = translate(request.lang, "oauth.grant_limit", count=held)
        return _page(request, pending, 409, errors=[many], ticked=set(chosen))
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
