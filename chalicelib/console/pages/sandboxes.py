"""Sandboxes in the console (issue 36): an owner of a live company creates sandboxes from it (a
company of made-up data each, owned by that person, planted by the sandbox worker), opens one (the
session moves there, as a switch between companies does), resets or deletes it. Inside a sandbox
the page says so and leads back; every page of a sandbox carries the banner (templates/base.html)."""

from __future__ import annotations

import math
from typing import Any

from chalicelib import account, config
from chalicelib import error_codes as codes
from chalicelib.console import times
from chalicelib.console.operations import messages
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page, redirect
from chalicelib.context import CallContext
from chalicelib.errors import ApiError
from chalicelib.sandbox import lifecycle
from chalicelib.scopes import ALL_SCOPES
from chalicelib.store import keys

MAX_NAME = 200
DONE = ("created", "reset", "deleted")


@page("GET", "/sandboxes", role="owner")
def sandbox_list(request: Request) -> Answer:
    return _page(request)


def _page(request: Request, status: int = 200, errors: list[str] | None = None, name: str = "") -> Answer:
    assert request.ctx is not None
    facts = account.tenant_facts(request.ctx.tenant_id)
    done = request.query.get("done", "")
    return render(
        request,
        "sandboxes.html",
        status,
        inside=bool(facts.get("sandbox")),
        parent=facts.get("parentTenantId"),
        company=facts.get("companyName", ""),
        sandboxes=[_view(request, sandbox) for sandbox in keys.sandboxes_of(request.ctx.tenant_id)],
        name=name or translate(request.lang, "sandbox.new.default_name", company=facts.get("companyName", "")),
        notice=translate(request.lang, f"sandbox.done.{done}") if done in DONE else None,
        errors=errors or [],
        cap=config.max_sandboxes(),
    )


def _view(request: Request, sandbox: dict[str, Any]) -> dict[str, Any]:
    return {**sandbox, "created": times.when(request, sandbox.get("createdAt"))}


@page("POST", "/sandboxes", role="owner")
def create(request: Request) -> Answer:
    assert request.ctx is not None and request.member is not None
    name = request.arg("name").strip()
    if not name or len(name) > MAX_NAME:
        return _page(request, 400, [translate(request.lang, "sandbox.error.name")], name=name)
    if account.tenant_facts(request.ctx.tenant_id).get("sandbox"):  # sandboxes are made from a live company
        return _page(request, 409, [translate(request.lang, "error.not_found")])
    # the form always says which; anything else (a form posted by hand) plants nothing rather than
    # a minute's work
    seed = lifecycle.DEFAULT_SEED if request.arg("seed") == lifecycle.DEFAULT_SEED else lifecycle.EMPTY
    try:  # held to the company's trial, its cap of sandboxes and its sandbox changes per day
        lifecycle.create(
            name,
            request.member["email"],
            seed,
            owner_name=request.member.get("name") or "",
            channel="console",
            parent_tenant_id=request.ctx.tenant_id,
            queued=True,
        )
    except ApiError as error:
        return _page(request, error.status, _refusal(request, error), name=name)
    return redirect("/sandboxes", done="created")


def _refusal(request: Request, error: ApiError) -> list[str]:
    """What a person reads when the company may not create or reset a sandbox now."""
    if error.code == codes.SANDBOX_LIMIT_REACHED.code:
        held, cap = error.extra.get("sandboxes", ""), error.extra.get("maxSandboxes", "")
        return [translate(request.lang, "sandbox.error.limit", held=held, cap=cap)]
    if error.code == codes.SANDBOX_CHANGES_THROTTLED.code:
        hours = max(1, math.ceil(int(error.headers.get("Retry-After", "3600")) / 3600))
        return [translate(request.lang, "sandbox.error.changes", hours=hours)]
    return messages(request, error)


def _own(request: Request) -> CallContext | None:
    """The person acting in one of this company's sandboxes (None: not one of them)."""
    assert request.ctx is not None and request.member is not None
    sandbox_id = request.params["sandbox"]
    if sandbox_id not in {sandbox["id"] for sandbox in keys.sandboxes_of(request.ctx.tenant_id)}:
        return None
    return CallContext(
        tenant_id=sandbox_id,
        key_id=request.ctx.key_id,
        agent_name=request.ctx.agent_name,
        scopes=frozenset(ALL_SCOPES),
        channel="console",
    )


@page("POST", "/sandboxes/{sandbox}/reset", role="owner")
def reset(request: Request) -> Answer:
    ctx = _own(request)
    if ctx is None:
        return render(request, "error.html", 404, errors=[translate(request.lang, "error.not_found")])
    assert request.ctx is not None
    try:
        lifecycle.reset(ctx, queued=True, parent_tenant_id=request.ctx.tenant_id)
    except ApiError as error:
        return _page(request, error.status, _refusal(request, error))
    return redirect("/sandboxes", done="reset")


@page("POST", "/sandboxes/{sandbox}/delete", role="owner")
def delete(request: Request) -> Answer:
    ctx = _own(request)
    if ctx is None:
        return render(request, "error.html", 404, errors=[translate(request.lang, "error.not_found")])
    lifecycle.delete(ctx)
    return redirect("/sandboxes", done="deleted")
