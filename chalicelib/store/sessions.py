"""Console sessions and sign-in codes.

A session is known by the SHA-256 of its cookie (the cookie itself is never stored): PK
session#<hash>, holding the tenant, the member's address, the id of the membership it was
started for and the member's epoch at sign-in (store/members.py: raising the epoch ends every
session of the member; a membership removed and granted again has a new id, so its old sessions
stay ended). It lasts IDLE_MINUTES after its last use and never longer than ABSOLUTE_HOURS after
the sign-in with a code (a switch of company starts a session that keeps that moment); DynamoDB's
TTL removes it after that, and every read checks both bounds itself (TTL deletes late).

A sign-in code is the hash of a mailed code (PK signin#<sha256 of the address>), valid
config.SIGNIN_CODE_MINUTES, config.CODE_ATTEMPTS tries, deleted when used; while it is live, a
repeated request mails nothing and leaves it valid (store/mailed_codes.replaceable)."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from pynamodb.exceptions import DeleteError, PutError, UpdateError

from chalicelib import clock, config
from chalicelib.addresses import address_hash
from chalicelib.store import mailed_codes
from chalicelib.store.model import Item

IDLE_MINUTES = 30
ABSOLUTE_HOURS = 12
TOUCH_SECONDS = 60  # lastSeenAt is written at most this often (one write a minute, not one per page)


@dataclass(frozen=True)
class Session:
    tenant_id: str
    email: str  # the member's address: with the tenant, the member the session belongs to
    member_id: str  # the membership it was started for: one removed and invited again is another
    epoch: int  # the member's epoch at sign-in
    signed_in_at: dt.datetime  # the sign-in with a code it descends from (switching keeps it)
    stale: bool  # lastSeenAt is older than TOUCH_SECONDS: `touch` once the member is checked


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _pk(token_hash: str) -> str:
    return f"session#{token_hash}"


def start(tenant_id: str, email: str, member_id: str, epoch: int, signed_in_at: dt.datetime | None = None) -> str:
    """A new session; answers the cookie's value (shown to the browser only). `signed_in_at` is
    the sign-in with a code this session continues (a switch of company), else now: the
    absolute limit counts from there, however often the person switches."""
    token = secrets.token_urlsafe(32)
    moment = clock.now()
    signed_in = min(signed_in_at or moment, moment)
    Item(
        _pk(_hash(token)),
        "session",
        type="session",
        tenantId=tenant_id,
        data={
            "email": email,
            "memberId": member_id,
            "epoch": epoch,
            "signedInAt": clock.iso(signed_in),
            "lastSeenAt": clock.iso(moment),
        },
        createdAt=clock.iso(moment),
        expiresAt=signed_in + dt.timedelta(hours=ABSOLUTE_HOURS),
    ).save()
    return token


def find(token: str) -> Session | None:
    """The live session of a cookie; None when unknown, idle too long or too old (and then it is
    deleted). Not touched here: only a session whose member is still its own may be kept alive
    (`touch`), so a dead one idles out whatever else happens."""
    if not token or len(token) > 100:
        return None
    try:
        item = Item.get(_pk(_hash(token)), "session", consistent_read=True)
    except Item.DoesNotExist:
        return None
    data = item.data_dict()
    now = clock.now()
    signed_in, seen = data.get("signedInAt") or "", data.get("lastSeenAt") or ""
    if signed_in < clock.iso(now - dt.timedelta(hours=ABSOLUTE_HOURS)) or seen < clock.iso(
        now - dt.timedelta(minutes=IDLE_MINUTES)
    ):
        item.delete()
        return None
    return Session(
        item.tenantId or "",
        data["email"],
        data.get("memberId") or "",
        int(data.get("epoch") or 0),
        clock.parse(signed_in),
        stale=seen < clock.iso(now - dt.timedelta(seconds=TOUCH_SECONDS)),
    )


def touch(token: str, session: Session) -> bool:
    """Keeps a live session alive (lastSeenAt, written at most once a minute); False when it
    ended meanwhile."""
    if not session.stale:
        return True
    try:  # conditional: an update of a session ended meanwhile would write a husk of one
        Item(_pk(_hash(token)), "session").update(
            actions=[Item.data["lastSeenAt"].set(clock.now_iso())], condition=Item.pk.exists()
        )
    except UpdateError:
        return False
    return True


def end(token: str) -> None:
    Item(_pk(_hash(token)), "session").delete()


def csrf_token(token: str) -> str:
    """The form token of a session: derived from the cookie, so nothing more is stored, and
    unknowable to another site (which cannot read the cookie)."""
    return hmac.new(token.encode(), b"console-csrf", hashlib.sha256).hexdigest()[:40]


# --- sign-in codes ---------------------------------------------------------------------------


def _code_pk(email: str) -> str:
    return f"signin#{address_hash(email)}"


def issue_code(email: str) -> str | None:
    """A new code to mail; None while the address's code mailed before is live (it stays the one
    to use: mailed_codes.replaceable)."""
    code = mailed_codes.new_code()
    moment = clock.now()
    item = Item(
        _code_pk(email),
        "code",
        type="signinCode",
        data={"codeHash": mailed_codes.code_hash(email, code), "attempts": 0},
        createdAt=clock.iso(moment),
        expiresAt=moment + dt.timedelta(minutes=config.SIGNIN_CODE_MINUTES + 5),
    )
    try:
        item.save(condition=mailed_codes.replaceable(config.SIGNIN_CODE_MINUTES))
    except PutError as err:
        if not mailed_codes.refused(err):
            raise
        return None
    return code


def redeem_code(email: str, code: str) -> bool:
    """Whether `code` is the address's live code; every try counts, a right one is used up."""
    try:
        item = Item.get(_code_pk(email), "code", consistent_read=True)
    except Item.DoesNotExist:
        return False
    expected = mailed_codes.live_hash(item, config.SIGNIN_CODE_MINUTES)
    if expected is None or mailed_codes.take_try(item, expected) is None:
        return False
    if not mailed_codes.matches(expected, email, code):
        return False
    try:  # single use: of two requests with the right code, one wins
        item.delete(condition=Item.data["codeHash"] == expected)
    except DeleteError:  # the other request used it
        return False
    return True
