"""The texts of the mail the service sends, German first, then English (the reader's language
is not known before they choose it). Links point at config.public_url(), never at a request's
Host header."""

from __future__ import annotations

from urllib.parse import urlencode

from chalicelib import config, paths

SIGNATURE = "-- \nProperty Management Platform"


def _link(page: str, **params: str) -> str:
    return f"{config.public_url()}{paths.CONSOLE}/{page}?{urlencode(params)}"


def signup_code(email: str, code: str, company: str) -> tuple[str, str]:
    minutes = config.SIGNUP_CODE_MINUTES
    link = _link("signup/confirm", email=email, code=code)
    subject = f"Ihr Bestätigungscode / Your confirmation code: {code}"
    text = f"""Guten Tag,

bitte bestätigen Sie die Registrierung von „{company}“ mit diesem Code: {code}
Oder öffnen Sie diesen Link: {link}
Der Code gilt {minutes} Minuten und nur einmal. Wenn Sie sich nicht registriert haben, ignorieren Sie diese E-Mail.

Hello,

please confirm the sign-up of "{company}" with this code: {code}
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


def invitation(email: str, company: str, inviter: str, role: str) -> tuple[str, str]:
    link = _link("signin", email=email)
    subject = f"Einladung / Invitation: {company}"
    text = f"""Guten Tag,

{inviter} lädt Sie in die Konsole von „{company}“ ein (Rolle: {role}). Anmelden: {link}

Hello,

{inviter} invites you to the console of "{company}" (role: {role}). Sign in: {link}

{SIGNATURE}
"""
    return subject, text
