"""Who is signed in: the session cookie -> the session -> the member, still a member, with
the epoch of the session (sign out everywhere raises it). The operations of a page run as
that person: their role's scopes, channel `console`, the member id where a key id would be."""

from __future__ import annotations

import datetime as dt
from urllib.parse import quote, urlencode

from chalicelib.console import web
from chalicelib.context import CallContext
from chalicelib.store import members, sessions
from chalicelib.store.members import ROLE_SCOPES

SESSION_SECONDS = sessions.ABSOLUTE_HOURS * 3600
RETURN_SECONDS = 1800  # a sign-in within this long returns to the page that asked for it


def admit(request: web.Request) -> web.Answer | None:
    """Fills request.member, .ctx and .csrf from a live session; else the way to sign in. A
    session whose membership is gone, granted anew since (another member id) or signed out
    (another epoch) is deleted: it never comes back."""
    token = request.cookies.get(web.SESSION_COOKIE, "")
    session = sessions.find(token) if token else None
    member = members.get(session.email, session.tenant_id) if session else None
    if session is not None and not _still_theirs(session, member):
        sessions.end(token)
        session = None
    if session is None or member is None or not sessions.touch(token, session):
        answer = web.redirect("/signin", **({"expired": "1"} if token else {}))
        if token:
            answer.clear_cookie(web.SESSION_COOKIE, request)
        back = request.path + (f"?{urlencode(request.query)}" if request.query else "")
        if request.method == "GET" and request.path != "/" and web.return_path(back):
            answer.set_cookie(web.NEXT_COOKIE, quote(back, safe=""), request=request, max_age=RETURN_SECONDS)
        return answer
    wire = members.wire(member)
    request.member = wire
    request.csrf = sessions.csrf_token(token)
    request.signed_in_at = session.signed_in_at
    request.ctx = context_of(session.tenant_id, wire)
    return None


def _still_theirs(session: sessions.Session, member: members.Item | None) -> bool:
    return (
        member is not None
        and member.id == session.member_id
        and int(member.data_dict().get("epoch") or 0) == session.epoch
    )


def context_of(tenant_id: str, member: dict[str, str]) -> CallContext:
    return CallContext(
        tenant_id=tenant_id,
        key_id=member["id"],
        # the audit trail names the person by name, else by member id: never by e-mail address
        agent_name=member["name"] or member["id"],
        scopes=ROLE_SCOPES[member["role"]],
        channel="console",
    )


def sign_in(request: web.Request, tenant_id: str, member: members.Item, signed_in_at: dt.datetime | None = None) -> str:
    """Starts the member's session and makes this request theirs (so the page it answers shows
    them signed in); answers the cookie's value for `keep_session`. `signed_in_at`: the sign-in
    with a code a switch of company continues (the absolute limit counts from it)."""
    members.require_active(member)  # an invitation is accepted first (console/pages/choice.py)
    data = member.data_dict()
    token = sessions.start(tenant_id, data["email"], member.id or "", int(data.get("epoch") or 0), signed_in_at)
    request.csrf = sessions.csrf_token(token)
    request.member = members.wire(member)
    request.ctx = context_of(tenant_id, request.member)
    return token


def keep_session(request: web.Request, answer: web.Answer, token: str) -> web.Answer:
    """The session's cookie on `answer`; it lives as long as the session may."""
    answer.set_cookie(web.SESSION_COOKIE, token, request=request, max_age=SESSION_SECONDS)
    return answer
