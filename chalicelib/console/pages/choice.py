"""After a sign-in code: which company to open. A person with one company and no pending
invitation goes straight in, as does a person of several companies whose browser opened one of
them last; anyone else chooses here: their companies to open, and the invitations they have yet
to accept (which opens that company) or decline. No company is joined without its invitee's own
click, so an invitation cannot capture a person's sign-in.

The page belongs to no session yet: the redeemed code leaves a short-lived choice
(store/choices.py, cookie pm_choice) whose forms carry a token derived from it."""

from __future__ import annotations

from urllib.parse import unquote

from chalicelib import paths
from chalicelib.console import auth, web
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page, redirect
from chalicelib.errors import ApiError
from chalicelib.store import choices, keys, members

COMPANY_DAYS = 180  # how long a browser remembers the company it opened last


def after_code(request: Request, email: str, found: list[members.Item]) -> Answer:
    """Where a redeemed code leads: into the one company, or the one this browser opened last
    when nothing is pending, else to the choice."""
    active, pending = members.active_ones(found), members.pending_ones(found)
    if not pending:
        last = request.cookies.get(web.COMPANY_COOKIE, "")
        straight = active[0] if len(active) == 1 else next((item for item in active if item.sk == last), None)
        if straight is not None:
            return open_company(request, straight)
    answer = redirect("/signin/choose")
    answer.set_cookie(web.CHOICE_COOKIE, choices.start(email), request=request, max_age=choices.MINUTES * 60)
    return answer


def open_company(request: Request, member: members.Item) -> Answer:
    """Signs the person in to the member's company, which this browser remembers as the last, and
    goes on to the page that sent them to sign in (web.NEXT_COOKIE), else the overview."""
    back = web.return_path(unquote(request.cookies.get(web.NEXT_COOKIE, "")))
    landing = Answer(303, "", headers={"Location": paths.CONSOLE + back}) if back else redirect("/")
    answer = auth.keep_session(request, landing, auth.sign_in(request, member.sk, member))
    if back:
        answer.clear_cookie(web.NEXT_COOKIE, request)
    remember_company(request, answer, member.sk)
    return answer


def remember_company(request: Request, answer: Answer, tenant_id: str) -> None:
    answer.set_cookie(web.COMPANY_COOKIE, tenant_id, request=request, max_age=COMPANY_DAYS * 24 * 3600)


def _chooser(request: Request) -> tuple[str, str] | None:
    """The choice's cookie and the address it proved, with the page's form token set; None when
    there is no live choice."""
    token = request.cookies.get(web.CHOICE_COOKIE, "")
    email = choices.email_of(token)
    if email is None:
        return None
    request.csrf = choices.csrf_token(token)
    return token, email


def _expired(request: Request, status: int = 200) -> Answer:
    return render(request, "signin.html", status, email="", notice=translate(request.lang, "choice.expired"))


def _company_name(tenant_id: str) -> str:
    # the person is a member or invitee there (their mailbox proved it): the name is theirs to see
    return str(keys.get_tenant(tenant_id).data_dict()["companyName"])


def _page(request: Request, email: str, status: int = 200, errors: list[str] | None = None) -> Answer:
    found = members.memberships(email)
    last = request.cookies.get(web.COMPANY_COOKIE, "")
    companies = [
        {"id": item.sk, "name": _company_name(item.sk), "role": members.wire(item)["role"], "last": item.sk == last}
        for item in members.active_ones(found)
    ]
    companies.sort(key=lambda company: not company["last"])  # the last used first: the default
    invitations = [
        {"id": item.sk, "name": _company_name(item.sk), "role": members.wire(item)["role"]}
        for item in members.pending_ones(found)
    ]
    notice = translate(request.lang, "choice.declined") if request.query.get("declined") else None
    return render(
        request,
        "signin_choose.html",
        status,
        email=email,
        companies=companies,
        invitations=invitations,
        notice=notice,
        errors=errors or [],
    )


@page("GET", "/signin/choose", public=True)
def choose_form(request: Request) -> Answer:
    chooser = _chooser(request)
    return _page(request, chooser[1]) if chooser else _expired(request)


def _posted(request: Request, status: str) -> tuple[str, str, members.Item] | Answer:
    """The choice, and the membership of the path's company in `status`; else the answer why not."""
    chooser = _chooser(request)
    if chooser is None:
        return _expired(request, 400)
    if request.arg("csrf") != request.csrf:
        return render(request, "error.html", 403, errors=[translate(request.lang, "error.csrf")])
    token, email = chooser
    member = members.get(email, request.params["tenant"])
    if member is None or members.status(member) != status:
        return _page(request, email, 404, errors=[translate(request.lang, "error.not_found")])
    return token, email, member


def _signed_in(request: Request, token: str, member: members.Item) -> Answer:
    choices.end(token)
    answer = open_company(request, member)
    answer.clear_cookie(web.CHOICE_COOKIE, request)
    return answer


def _invitee_stamp(member: members.Item, operation: str) -> dict[str, object]:
    """The invitee as the audit trail names them: their member id, channel console."""
    return auth.context_of(member.sk, members.wire(member)).for_operation(operation).stamp()


@page("POST", "/signin/choose/{tenant}", public=True)
def choose(request: Request) -> Answer:
    posted = _posted(request, members.ACTIVE)
    if isinstance(posted, Answer):
        return posted
    token, _, member = posted
    return _signed_in(request, token, member)


@page("POST", "/signin/accept/{tenant}", public=True)
def accept(request: Request) -> Answer:
    """Accepting an invitation opens that company."""
    posted = _posted(request, members.INVITED)
    if isinstance(posted, Answer):
        return posted
    token, email, member = posted
    try:
        members.accept(member, _invitee_stamp(member, "console.members.accept"))
    except ApiError:  # withdrawn or answered meanwhile
        return _page(request, email, 409, errors=[translate(request.lang, "choice.changed")])
    accepted = members.get(email, member.sk)
    if accepted is None:
        return _page(request, email, 409, errors=[translate(request.lang, "choice.changed")])
    return _signed_in(request, token, accepted)


@page("POST", "/signin/decline/{tenant}", public=True)
def decline(request: Request) -> Answer:
    posted = _posted(request, members.INVITED)
    if isinstance(posted, Answer):
        return posted
    token, email, member = posted
    try:
        members.decline(member, _invitee_stamp(member, "console.members.decline"))
    except ApiError:
        return _page(request, email, 409, errors=[translate(request.lang, "choice.changed")])
    if members.memberships(email):
        return redirect("/signin/choose", declined="1")
    choices.end(token)  # nothing left to choose
    answer = redirect("/signin", declined="1")
    answer.clear_cookie(web.CHOICE_COOKIE, request)
    return answer
