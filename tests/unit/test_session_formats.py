"""What outlives a deploy of the console (issue 29, mutation testing of store/sessions.py and
store/mailed_codes.py): a mailed code's stored hash (a code mailed by one version is typed into
the next, for up to 30 minutes) and a session's form token (a page open in a browser posts its
form to the next version, for up to 12 hours). Both are derived, not stored as they are read, so
a change of the derivation would refuse every live code, or every open form, at the deploy:
these fixed values are what the versions running now agree on."""

from __future__ import annotations

import hashlib

import pytest

from chalicelib.store import mailed_codes, sessions


@pytest.mark.parametrize("typed", ["ABCD-EFGH", "abcd-efgh", "ABCDEFGH", " ab cd  ef gh ", "abCD-eFgH"])
def test_a_codes_hash_is_of_the_address_and_the_code_in_capitals_with_its_dash(typed: str) -> None:
    expected = hashlib.sha256(b"eva@example.org\nABCD-EFGH").hexdigest()
    assert mailed_codes.code_hash("Eva@Example.org", typed) == expected


@pytest.mark.parametrize(("typed", "normal"), [("abcd efgh", "ABCD-EFGH"), ("ab-c", "ABC"), ("abcdefghj", "ABCDEFGHJ")])
def test_a_typed_code_is_normalised_to_the_mailed_form_only_at_its_length(typed: str, normal: str) -> None:
    assert mailed_codes.normalise_code(typed) == normal


def test_a_sessions_form_token_is_its_cookies_hmac_for_the_console() -> None:
    # HMAC-SHA256(key = the cookie, message = "console-csrf"), its first 40 hex digits
    assert sessions.csrf_token("cookie-of-a-session") == "b93c91f3a37fdd8f06b48942944bc9f4b52a0370"
