"""Sign-ins waiting for a company: a person who redeemed a mailed code and is to choose which
of their companies to open, or to accept or decline an invitation (console/pages/choice.py).

Like a session, a choice is known by the SHA-256 of its cookie only (PK choice#<hash>); it holds
the address the code proved, lasts MINUTES, and ends when a company is opened."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets

from chalicelib import clock
from chalicelib.store.model import Item

MINUTES = 10
TYPE = "signinChoice"


def _pk(token: str) -> str:
    return "choice#" + hashlib.sha256(token.encode()).hexdigest()


def start(email: str) -> str:
    """A new choice for the address a code just proved; answers the cookie's value."""
    token = secrets.token_urlsafe(32)
    moment = clock.now()
    Item(
        _pk(token),
        "choice",
        type=TYPE,
        data={"email": email},
        createdAt=clock.iso(moment),
        expiresAt=moment + dt.timedelta(minutes=MINUTES),
    ).save()
    return token


def email_of(token: str) -> str | None:
    """The address of a live choice; None when unknown, used or too old."""
    if not token or len(token) > 100:
        return None
    try:
        item = Item.get(_pk(token), "choice", consistent_read=True)
    except Item.DoesNotExist:
        return None
    if (item.createdAt or "") < clock.iso(clock.now() - dt.timedelta(minutes=MINUTES)):
        return None
    return str(item.data_dict()["email"])


def end(token: str) -> None:
    Item(_pk(token), "choice").delete()


def csrf_token(token: str) -> str:
    """The form token of a choice's page: derived from its cookie, as a session's is."""
    return hmac.new(token.encode(), b"console-choice-csrf", hashlib.sha256).hexdigest()[:40]
