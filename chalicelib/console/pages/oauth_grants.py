"""Revoking an agent connected by OAuth (its grant, listed on the keys page with its client, agent,
scopes, who approved it and when it was last renewed): the grant ends (an audit record, the person as
actor), its access key at once (apikeys.disable, run as the signed-in person, so the audit trail names
them) and its refresh token with it."""

from __future__ import annotations

from chalicelib.console.operations import run
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page, redirect
from chalicelib.errors import ApiError
from chalicelib.store import oauth


@page("POST", "/keys/oauth/{grant}/revoke", role="admin")
def revoke(request: Request) -> Answer:
    assert request.ctx is not None
    by = {**request.ctx.stamp(), "operation": "oauth.revoke"}
    revoked = oauth.revoke_grant(request.ctx.tenant_id, request.params["grant"], by, "revoked in the console")
    if revoked is None:
        return render(request, "error.html", 404, errors=[translate(request.lang, "error.not_found")])
    if revoked.get("accessKeyId"):
        try:
            run(request, "apikeys.disable", {"apiKey": revoked["accessKeyId"]})
        except ApiError:
            pass  # expired and gone, or disabled already: the grant's refresh token ends either way
    return redirect("/keys", done="revoked")
