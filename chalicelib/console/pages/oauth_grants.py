"""Revoking an agent connected by OAuth (its grant, listed on the keys page with its client, agent,
scopes, who approved it and when it was last renewed): the grant ends (an audit record, the person as
actor), its refresh token with it, and everything made through it at once, the person again the actor:
its access key, the keys that key made (down the chain) and their webhooks (store/grant_reach.py)."""

from __future__ import annotations

from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page, redirect
from chalicelib.store import grant_reach


@page("POST", "/keys/oauth/{grant}/revoke", role="admin")
def revoke(request: Request) -> Answer:
    assert request.ctx is not None
    revoked = grant_reach.end(
        request.ctx.for_operation("oauth.revoke"), request.params["grant"], "revoked in the console"
    )
    if revoked is None:
        return render(request, "error.html", 404, errors=[translate(request.lang, "error.not_found")])
    return redirect("/keys", done="revoked")
