"""The API keys a person created, offered for disabling when they leave the team: a removed
admin's keys would otherwise keep every scope they were given. "Created" reaches through keys:
a key the person made in the console, and every key such a key made in turn (an agent holding
`admin` mints keys of its own). Each key is disabled through `apikeys.disable`, run as the
signed-in person, so the audit trail records who disabled it."""

from __future__ import annotations

from typing import Any

from chalicelib.console.operations import messages, run
from chalicelib.console.pages.keys import bound_names, view
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, is_email, page, redirect
from chalicelib.errors import ApiError

PAGE = 1000  # keys per apikeys.list call
MAX_PAGES = 20  # the tenant's keys read at most; far above any tenant's key count


def created_by(request: Request, member_id: str) -> list[dict[str, Any]]:
    """The live keys of this tenant that `member_id` created, directly or through its keys."""
    every: list[dict[str, Any]] = []
    for number in range(MAX_PAGES):
        found = run(request, "apikeys.list", {"limit": PAGE, "offset": number * PAGE})
        every += found["apiKeys"]
        if len(found["apiKeys"]) < PAGE:
            break
    theirs, grown = {member_id}, True
    while grown:  # each round adds the keys made by the keys found so far
        added = {key["id"] for key in every if key.get("createdBy") in theirs} - theirs
        theirs |= added
        grown = bool(added)
    mine = [key for key in every if key["id"] in theirs and key["id"] != member_id]
    named = bound_names(request, mine)
    return [view(request, key, named) for key in mine]


def _live(keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [key for key in keys if key["state"] == "active"]


def _email(request: Request) -> str:
    """The person's address, as the removal named it (shown only: nothing is looked up by it)."""
    email = request.query.get("email", "")
    return email if is_email(email) else ""


@page("GET", "/members/{member}/keys", role="admin")
def member_keys(request: Request) -> Answer:
    email, done = _email(request), request.query.get("done", "")
    notice = None
    if done in ("removed", "disabled"):
        notice = translate(request.lang, f"member_keys.{done}", email=email or translate(request.lang, "common.none"))
    try:
        keys = _live(created_by(request, request.params["member"]))
    except ApiError as error:
        return render(request, "error.html", error.status, errors=messages(request, error))
    return render(
        request, "members_keys.html", keys=keys, email=email, member_id=request.params["member"], notice=notice
    )


@page("POST", "/members/{member}/keys/disable", role="admin")
def disable_all(request: Request) -> Answer:
    """Disables every live key the person created, one `apikeys.disable` each (the list is read
    again here, not taken from the form)."""
    member_id = request.params["member"]
    errors: list[str] = []
    try:
        keys = _live(created_by(request, member_id))
    except ApiError as error:
        return render(request, "error.html", error.status, errors=messages(request, error))
    for key in keys:
        try:
            run(request, "apikeys.disable", {"apiKey": key["id"]})
        except ApiError as error:  # the others go on; this one is named on the page
            errors += [f"{key['agentName']}: {message}" for message in messages(request, error)]
    if errors:
        left = _live(created_by(request, member_id))
        return render(
            request, "members_keys.html", 409, keys=left, email=_email(request), member_id=member_id, errors=errors
        )
    return redirect(f"/members/{member_id}/keys", done="disabled", email=_email(request))
