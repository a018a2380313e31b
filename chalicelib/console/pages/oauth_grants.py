"""The agents a person connected by OAuth (issue 35, work in progress): each grant with its client,
agent, scopes, who approved it and when it was last renewed; revoking one ends its access key at
once (apikeys.disable, run as the signed-in person, so the audit trail names them) and its refresh
token with it."""

from __future__ import annotations

from chalicelib.console.operations import run
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page, redirect
from chalicelib.errors import ApiError
from chalicelib.store import oauth


@page("GET", "/keys/oauth", role="admin")
def grant_list(request: Request) -> Answer:
    assert request.ctx is not None
    grants = [g for g in oauth.grants(request.ctx.tenant_id) if not g.get("revokedAt")]
    return render(request, "oauth_grants.html", grants=grants, done=request.query.get("done", ""))


@page("POST", "/keys/oauth/{grant}/revoke", role="admin")
def revoke(request: Request) -> Answer:
    assert request.ctx is not None
    revoked = oauth.revoke_grant(request.ctx.tenant_id, request.params["grant"], request.ctx.stamp())
    if revoked is None:
        return render(request, "error.html", 404, errors=[translate(request.lang, "error.not_found")])
    if revoked.get("accessKeyId"):
        try:
            run(request, "apikeys.disable", {"apiKey": revoked["accessKeyId"]})
        except ApiError:
            pass  # expired and gone, or disabled already: the grant's refresh token ends either way
    return redirect("/keys/oauth", done="revoked")
