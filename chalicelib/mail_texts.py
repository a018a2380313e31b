"""The texts of the mail the service sends, German first, then English (the reader's language
is not known before they choose it). Links point at config.public_url(), never at a request's
Host header.

Names someone else typed (a company's, an inviter's) are data, never the mail's own words: each
is quoted «like this», on one line, without control or format characters, cut to a bound (a
subject's at SUBJECT_NAME), and the mail says who wrote it. So a company named like a warning
("Your account is locked, sign in at ...") reads as a quoted name, not as our text."""

from __future__ import annotations

import unicodedata
from urllib.parse import urlencode

from chalicelib import config, paths

SIGNATURE = "-- \nProperty Management Platform"
SUBJECT_NAME = 40  # characters of a name in a subject
TEXT_NAME = 120  # characters of a name in a mail's text

# Control (Cc), format (Cf: bidi overrides, zero-width), line and paragraph separators: none
# of them belongs in a one-line name, and each can make a name look like something else.
_INVISIBLE = {"Cc", "Cf", "Zl", "Zp"}


def quoted(name: str, limit: int) -> str:
    """`name` as data: one line, blanks collapsed, at most `limit` characters (an ellipsis marks
    a cut), in guillemets; one inside becomes a single guillemet, so a name cannot close its own
    quote."""
    cleaned = "".join(" " if unicodedata.category(ch) in _INVISIBLE else ch for ch in name)
    cleaned = " ".join(cleaned.split()).replace("«", "‹").replace("»", "›")
    if len(cleaned) > limit:
        cleaned = cleaned[: limit - 1].rstrip() + "…"
    return f"«{cleaned}»"


def _link(page: str, **params: str) -> str:
    return f"{config.public_url()}{paths.CONSOLE}/{page}?{urlencode(params)}"


def signup_code(email: str, code: str, company: str) -> tuple[str, str]:
    minutes = config.SIGNUP_CODE_MINUTES
    link = _link("signup/confirm", email=email, code=code)
    subject = f"Ihr Bestätigungscode / Your confirmation code: {code}"
    text = f"""Guten Tag,

bitte bestätigen Sie die Registrierung dieser Firma mit diesem Code: {code}
  Firma, wie bei der Registrierung eingegeben: {quoted(company, TEXT_NAME)}
Oder öffnen Sie diesen Link: {link}
Der Code gilt {minutes} Minuten und nur einmal. Wenn Sie sich nicht registriert haben, ignorieren Sie diese E-Mail.

Hello,

please confirm the sign-up of this company with this code: {code}
  Company, as entered at sign-up: {quoted(company, TEXT_NAME)}
Or open this link: {link}
The code is valid for {minutes} minutes, once. If you did not sign up, ignore this mail.

{SIGNATURE}
"""
    return subject, text


def address_in_use(email: str) -> tuple[str, str]:
    link = _link("signin", email=email)
    subject = "Sie haben bereits ein Konto / You already have an account"
    text = f"""Guten Tag,

jemand hat versucht, mit dieser Adresse ein neues Konto anzulegen. Diese Adresse gehört bereits zu einem Konto;
es wurde nichts geändert. Anmelden: {link}

Hello,

someone tried to sign up with this address. It belongs to an account already; nothing was changed.
Sign in: {link}

{SIGNATURE}
"""
    return subject, text


def signin_code(email: str, code: str) -> tuple[str, str]:
    minutes = config.SIGNIN_CODE_MINUTES
    subject = f"Ihr Anmeldecode / Your sign-in code: {code}"
    text = f"""Guten Tag,

Ihr Anmeldecode für die Konsole: {code}
Er gilt {minutes} Minuten und nur einmal. Wenn Sie sich nicht anmelden wollten, ignorieren Sie diese E-Mail.

Hello,

your sign-in code for the console: {code}
It is valid for {minutes} minutes, once. If you did not try to sign in, ignore this mail.

{SIGNATURE}
"""
    return subject, text


# A role as the console names it (console/texts/common.py role.*), German and English.
ROLE_NAMES = {"owner": ("Inhaber", "Owner"), "admin": ("Administrator", "Admin"), "viewer": ("Nur lesen", "Viewer")}


def invitation(email: str, company: str, inviter: str, role: str) -> tuple[str, str]:
    link = _link("signin", email=email)
    rolle, role = ROLE_NAMES.get(role, (role, role))
    subject = f"Einladung / Invitation: {quoted(company, SUBJECT_NAME)}"
    name, by = quoted(company, TEXT_NAME), quoted(inviter, TEXT_NAME)
    text = f"""Guten Tag,

Sie sind in die Konsole einer Firma auf der Property Management Platform eingeladen (Rolle: {rolle}).
  Firma: {name}
  Eingeladen von: {by}
Die Namen in «» hat die einladende Firma selbst eingetragen; wir haben sie nicht geprüft.
Die Einladung gilt erst, wenn Sie sie annehmen: melden Sie sich an, dann können Sie sie annehmen
oder ablehnen. Anmelden: {link}

Hello,

you are invited to the console of a company on the Property Management Platform (role: {role}).
  Company: {name}
  Invited by: {by}
The names in «» were entered by the inviting company itself; we have not checked them.
The invitation counts only once you accept it: sign in, then accept or decline it.
Sign in: {link}

{SIGNATURE}
"""
    return subject, text
