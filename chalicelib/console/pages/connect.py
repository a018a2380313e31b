"""Connect an agent (issue 37): the addresses an agent needs (REST base, MCP endpoint, the per-key
OpenAPI description, the OAuth metadata), configuration snippets for Claude Code, Claude Desktop,
Cursor and VS Code, and a test of a pasted key.

The console keeps no key's secret, so the snippets carry a placeholder naming the chosen key's
prefix (`<your key pm_ab12…>`); only the page right after a key is created, which holds the secret
in the same answer, fills it in (keys_secret.html includes connect_snippets.html). The test posts
the pasted key to the console, which runs `info` as that key through dispatch, as the REST face
would (authenticated, admitted by its account and rate limit); the secret is never echoed back."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from chalicelib import auth, dispatch, registry
from chalicelib import error_codes as codes
from chalicelib.console.operations import messages
from chalicelib.console.pages.connect_config import addresses, placeholder, snippets
from chalicelib.console.pages.keys import KEY_ID, find_key, read
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page
from chalicelib.errors import ApiError

CHOICES = 50  # keys offered in the chooser
REFUSED = {
    codes.MISSING_KEY.code: "connect.test.missing",
    codes.INVALID_KEY.code: "connect.test.invalid",
    codes.KEY_DISABLED.code: "connect.test.disabled",
    codes.KEY_EXPIRED.code: "connect.test.expired",
}


@page("GET", "/connect")
def connect(request: Request) -> Answer:
    return _page(request)


@page("POST", "/connect/test")
def test_key(request: Request) -> Answer:
    """Runs `info` as the pasted key; answers the page with the outcome (never the secret)."""
    secret = request.arg("apiKey")
    if not secret:
        return _page(
            request, 400, test={"ok": False, "reasons": [translate(request.lang, REFUSED[codes.MISSING_KEY.code])]}
        )
    try:
        ctx = replace(auth.authenticate(f"Bearer {secret}", source_ip=request.source_ip), channel="rest")
        found = dispatch.serve(registry.REGISTRY["info"], ctx, dict, dispatch.run)
    except ApiError as error:
        refused = REFUSED.get(error.code)
        reasons = [translate(request.lang, refused)] if refused else messages(request, error)
        return _page(request, 400 if error.status == 401 else error.status, test={"ok": False, "reasons": reasons})
    assert request.ctx is not None
    outcome = {
        "ok": True,
        "agent": found["key"]["agentName"],
        "company": found["tenant"].get("companyName") or "",
        "scopes": ", ".join(found["key"]["scopes"]),
        "elsewhere": found["tenant"].get("id") != request.ctx.tenant_id,
    }
    return _page(request, test=outcome)


def _page(request: Request, status: int = 200, test: dict[str, Any] | None = None) -> Answer:
    chosen_id = request.query.get("key") or request.arg("key")
    errors: list[str] = []
    chosen = None
    choices: list[dict[str, Any]] = []
    try:
        if chosen_id and KEY_ID.match(chosen_id):
            chosen = find_key(request, chosen_id)
        found = read(request, "apikeys.list", {"limit": CHOICES, "offset": 0})["apiKeys"]
        choices = [key for key in found if not key.get("disabled") and not key.get("oauthGrantId")]
    except ApiError as error:
        errors = messages(request, error)
    where = addresses()
    return render(
        request,
        "connect.html",
        status,
        where=where,
        key=chosen,
        choices=choices,
        snippets=snippets(placeholder(request.lang, chosen), where["mcp"]),
        test=test,
        errors=errors,
        unknown=bool(chosen_id) and chosen is None,
    )
