"""Sign-up (form, confirmation, the first key shown once), sign-in with a mailed code, sign-out
and sign-out everywhere. Passwordless: the mailbox is what sign-up proved, and no password
is kept anywhere (docs/guides/console.md)."""

from __future__ import annotations

from chalicelib import addresses, config, dispatch, mail, mail_texts, throttle
from chalicelib import error_codes as codes
from chalicelib.console import auth
from chalicelib.console.operations import messages, run_anonymous
from chalicelib.console.pages import choice
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import SESSION_COOKIE, Answer, Request, is_email, page, redirect
from chalicelib.errors import ApiError
from chalicelib.store import members, sessions


@page("GET", "/signup", public=True)
def signup_form(request: Request) -> Answer:
    return render(request, "signup.html", form={"agentName": "setup"})


@page("POST", "/signup", public=True)
def signup(request: Request) -> Answer:
    form = {name: request.arg(name) for name in ("companyName", "name", "email", "agentName")}
    args = {key: value for key, value in form.items() if value or key != "name"}
    try:
        run_anonymous(request, "signup", args)
    except ApiError as error:
        return render(request, "signup.html", error.status, form=form, errors=messages(request, error))
    return _confirm_page(request, form["email"], "", sent=True)


@page("GET", "/signup/confirm", public=True)
def confirm_form(request: Request) -> Answer:
    """The mail's link: the form filled in; only the button (a POST) confirms."""
    return _confirm_page(request, request.query.get("email", ""), request.query.get("code", ""))


@page("POST", "/signup/confirm", public=True)
def confirm(request: Request) -> Answer:
    email, code = request.arg("email"), request.arg("code")
    try:
        answer = run_anonymous(request, "signup.confirm", {"email": email, "code": code})
    except ApiError as error:
        failed = error.code == codes.CONFIRMATION_FAILED.code
        if failed and _signed_up_here(request, email):  # a reload of the first key's page re-posts the spent code
            return redirect("/welcome")
        errors = [translate(request.lang, "confirm.failed")] if failed else messages(request, error)
        return _confirm_page(request, email, "", status=error.status, errors=errors)
    tenant_id = answer["tenant"]["id"]
    owner = members.get(email, tenant_id)
    assert owner is not None, "the sign-up's transaction writes its owner"
    token = auth.sign_in(request, tenant_id, owner)
    return auth.keep_session(request, render(request, "welcome.html", key=answer["apiKey"]), token)


def _signed_up_here(request: Request, email: str) -> bool:
    """Whether this browser's session is the person who confirmed `email` (the confirmation
    signed them in): their reload of the first key's page, not a stranger's guess."""
    if not request.cookies.get(SESSION_COOKIE) or auth.admit(request) is not None:
        return False
    assert request.member is not None
    return addresses.normalised(request.member["email"]) == addresses.normalised(email)


@page("GET", "/welcome")
def welcome_again(request: Request) -> Answer:
    """Where a reload of the first key's page lands: still signed in; the key was shown once
    and is not kept anywhere, so this page says so and where a new one is made."""
    return render(request, "welcome.html", key=None)


def _confirm_page(
    request: Request, email: str, mailed: str, *, sent: bool = False, status: int = 200, errors: list[str] | None = None
) -> Answer:
    minutes = config.SIGNUP_CODE_MINUTES
    return render(
        request, "confirm.html", status, email=email, code=mailed, sent=sent, minutes=minutes, errors=errors or []
    )


@page("GET", "/signin", public=True)
def signin_form(request: Request) -> Answer:
    notice = None
    if request.query.get("expired"):
        notice = translate(request.lang, "signin.expired")
    elif request.query.get("signed_out"):
        notice = translate(request.lang, "signout.done")
    elif request.query.get("declined"):
        notice = translate(request.lang, "choice.declined")
    return render(request, "signin.html", email=request.query.get("email", ""), notice=notice)


@page("POST", "/signin", public=True)
def signin(request: Request) -> Answer:
    """Mails a code when the address is a member somewhere; answers the same either way."""
    email = request.arg("email")
    if not is_email(email):
        return render(request, "signin.html", 400, email=email, errors=[translate(request.lang, "signin.failed")])
    try:
        dispatch.admit_anonymous("console.signin", request.source_ip)
        throttle.take_for_address(email, "signin", request.source_ip)
    except ApiError as error:
        return render(request, "signin.html", error.status, email=email, errors=messages(request, error))
    code = sessions.issue_code(email) if members.memberships(email) else None
    if code is not None:  # None: the code mailed before is live and stays the one to use
        mail.send(email, *mail_texts.signin_code(email, code))
    return render(request, "signin_code.html", email=email, minutes=config.SIGNIN_CODE_MINUTES)


@page("POST", "/signin/code", public=True)
def signin_code(request: Request) -> Answer:
    email, code = request.arg("email"), request.arg("code")
    try:
        dispatch.admit_anonymous("console.signin.code", request.source_ip)
    except ApiError as error:
        return render(
            request,
            "signin_code.html",
            error.status,
            email=email,
            minutes=config.SIGNIN_CODE_MINUTES,
            errors=messages(request, error),
        )
    redeemed = sessions.redeem_code(email, code)
    if redeemed:  # this source reads the address's mail: its requests pass the address's total limit
        throttle.remember_confirmed(email, request.source_ip)
    found = members.memberships(email) if redeemed else []
    if not found:
        failed = [translate(request.lang, "signin.failed")]
        return render(request, "signin_code.html", 400, email=email, minutes=config.SIGNIN_CODE_MINUTES, errors=failed)
    return choice.after_code(request, email, found)  # one company, the last used, or the choice


@page("POST", "/switch/{tenant}")
def switch_company(request: Request) -> Answer:
    """A person who belongs to several companies moves to another: the mailbox the session proved
    is a member there too, so a new session starts there and this one ends. The new one keeps
    this one's moment of sign-in: switching never extends the absolute limit."""
    assert request.member is not None
    member = members.get(request.member["email"], request.params["tenant"])
    if member is None or members.status(member) != members.ACTIVE:  # an invitation is accepted at sign-in
        return render(request, "error.html", 404, errors=[translate(request.lang, "error.not_found")])
    signed_in_at = request.signed_in_at
    sessions.end(request.cookies.get(SESSION_COOKIE, ""))
    token = auth.sign_in(request, request.params["tenant"], member, signed_in_at)
    answer = auth.keep_session(request, redirect("/"), token)
    choice.remember_company(request, answer, request.params["tenant"])
    return answer


@page("POST", "/signout")
def signout(request: Request) -> Answer:
    sessions.end(request.cookies.get(SESSION_COOKIE, ""))
    answer = redirect("/signin", signed_out="1")
    answer.clear_cookie(SESSION_COOKIE, request)
    return answer


@page("POST", "/signout/everywhere")
def signout_everywhere(request: Request) -> Answer:
    assert request.member is not None and request.ctx is not None
    stamp = request.ctx.for_operation("console.signout.everywhere").stamp()
    for member in members.memberships(request.member["email"]):  # the person's sessions in every company
        members.end_sessions(member, stamp)
    answer = redirect("/signin", signed_out="1")
    answer.clear_cookie(SESSION_COOKIE, request)
    return answer
