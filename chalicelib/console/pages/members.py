"""The team: who may use the console, with which role. Owners invite by e-mail (the invited
person signs in with a mailed code and accepts or declines: console/pages/choice.py), at most
config.INVITE_LIMIT a day, change roles and remove people; everyone sees the team and can end
their own sessions everywhere.

People are managed by people: these are console pages over store/members.py, not operations of
the API, so no agent's key can invite a person or change one's role. Each change is in the audit
trail all the same (entity type `member`, operations `console.members.*`)."""

from __future__ import annotations

import unicodedata

from chalicelib import account, mail, mail_texts, throttle
from chalicelib import error_codes as codes
from chalicelib.console.operations import messages, run
from chalicelib.console.pages import member_keys
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, is_email, page, redirect
from chalicelib.errors import ApiError
from chalicelib.store import grant_reach, keys, members


def _stamp(request: Request, action: str) -> dict[str, object]:
    """Who changed the team, as the audit trail names it: the signed-in owner, channel console."""
    assert request.ctx is not None
    return request.ctx.for_operation(f"console.members.{action}").stamp()


def _team(request: Request) -> list[dict[str, str]]:
    assert request.ctx is not None
    return sorted((members.wire(item) for item in members.of_tenant(request.ctx.tenant_id)), key=lambda m: m["email"])


def _page(request: Request, status: int = 200, **extra: object) -> Answer:
    notice = None
    done = request.query.get("done", "")
    if done in ("invited", "role_changed", "removed"):
        notice = translate(
            request.lang,
            f"members.{done}",
            email=request.query.get("email", ""),
            role=translate(request.lang, "role." + _known_role(request.query.get("role", ""))),
        )
    values: dict[str, object] = {"team": _team(request), "notice": notice, "roles": members.ROLES}
    values |= {"companies": _companies(request), **extra}
    return render(request, "members.html", status, **values)


def _known_role(role: str) -> str:
    """A role named in a query string (the notice after a change): one of ours, or viewer."""
    return role if role in members.ROLES else "viewer"


def _companies(request: Request) -> list[dict[str, str]]:
    """The other companies the signed-in person belongs to (to switch to), with their names."""
    assert request.member is not None and request.ctx is not None
    mine = members.active_ones(members.memberships(request.member["email"]))  # invitations are answered at sign-in
    others = [item.sk for item in mine if item.sk != request.ctx.tenant_id]
    # the person is a member there (their mailbox proved it): the name is theirs to see
    return [{"id": tenant_id, "name": keys.get_tenant(tenant_id).data_dict()["companyName"]} for tenant_id in others]


@page("GET", "/members")
def team(request: Request) -> Answer:
    return _page(request)


@page("POST", "/members", role="owner")
def invite(request: Request) -> Answer:
    assert request.ctx is not None and request.member is not None
    email, name, role = request.arg("email"), _one_line(request.arg("name"))[:200], request.arg("role")
    if not is_email(email) or role not in members.ROLES:
        return _page(request, 400, errors=[translate(request.lang, "members.bad_email")])
    try:
        company = account.accountable(request.ctx.tenant_id)  # a sandbox's invitations are its company's
        throttle.take_invitation(company)
        throttle.take_for_address(email, "invite", throttle.company_source(company))
        members.invite(request.ctx.tenant_id, email, name, role, _stamp(request, "invite"))
    except ApiError as error:
        known = {codes.MEMBER_EXISTS.code: "members.exists", codes.MEMBER_LIMIT_REACHED.code: "members.limit"}
        errors = [translate(request.lang, known[error.code])] if error.code in known else messages(request, error)
        return _page(request, error.status, errors=errors)
    company = run(request, "tenant")["tenant"]["companyName"]
    inviter = request.member["name"] or request.member["email"]
    mail.send(email, *mail_texts.invitation(email, company, inviter, role))
    return redirect("/members", done="invited", email=email)


def _one_line(text: str) -> str:
    """A name as one line: control and format characters (line breaks, bidi overrides) become
    blanks, and runs of blanks one."""
    return " ".join("".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text).split())


def _member(request: Request) -> members.Item | None:
    assert request.ctx is not None
    found = [item for item in members.of_tenant(request.ctx.tenant_id) if item.id == request.params["member"]]
    return members.get(found[0].data_dict()["email"], request.ctx.tenant_id) if found else None


def _owners(request: Request) -> int:
    return sum(1 for member in _team(request) if member["role"] == "owner")


@page("POST", "/members/{member}/role", role="owner")
def change_role(request: Request) -> Answer:
    item, role = _member(request), request.arg("role")
    assert request.ctx is not None
    if item is None or role not in members.ROLES:
        return _page(request, 404, errors=[translate(request.lang, "error.not_found")])
    email = item.data_dict()["email"]
    if item.data_dict()["role"] == "owner" and role != "owner" and _owners(request) <= 1:
        return _page(request, 409, errors=[translate(request.lang, "members.last_owner")])
    members.set_role(
        item, role, _stamp(request, "role")
    )  # raises the epoch: the person's sessions end, they sign in with the new role
    grant_reach.follow_member(request.ctx.for_operation("console.members.role"), item.id or "")  # their grants narrow
    return redirect("/members", done="role_changed", email=email, role=role)


@page("POST", "/members/{member}/remove", role="owner")
def remove(request: Request) -> Answer:
    item = _member(request)
    assert request.ctx is not None
    if item is None:
        return _page(request, 404, errors=[translate(request.lang, "error.not_found")])
    email = item.data_dict()["email"]
    if item.data_dict()["role"] == "owner" and _owners(request) <= 1:
        return _page(request, 409, errors=[translate(request.lang, "members.last_owner")])
    members.remove(item, _stamp(request, "remove"))  # their sessions find no member any more and end
    grant_reach.follow_member(request.ctx.for_operation("console.members.remove"), item.id or "")  # their grants end
    if any(key["state"] == "active" for key in member_keys.created_by(request, item.id)):
        # their keys keep every scope they were given: offer to disable them in one step
        return redirect(f"/members/{item.id}/keys", done="removed", email=email)
    return redirect("/members", done="removed", email=email)
