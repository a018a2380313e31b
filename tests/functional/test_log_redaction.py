"""No mailed code reaches a log line (issue 28, finding 2): a sign-up and a console sign-in
driven through HTTP with mail going out through SES (as deployed, moto's SES here), while
every logger of the process (the service's, botocore's, moto's, ...) records at DEBUG. The
codes are read from what SES was asked to send, as their recipient reads them; neither
appears in any record's message, arguments, extra fields or exception text."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from chalicelib import config, mail
from chalicelib.store.mailed_codes import code_in
from tests.client import Api
from tests.console_client import Person

SENDER = "no-reply@example.org"
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


class _Everything(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def _texts(record: logging.LogRecord) -> list[str]:
    """What a handler could write of a record: the message, every extra field, the exception."""
    texts = [record.getMessage(), repr(record.msg), repr(record.args)]
    texts += [f"{name}={value!r}" for name, value in vars(record).items() if name not in _STANDARD]
    if record.exc_info:
        texts.append(logging.Formatter().formatException(record.exc_info))
    if record.exc_text:
        texts.append(record.exc_text)
    return texts


@pytest.fixture()
def every_record() -> Iterator[list[logging.LogRecord]]:
    """Every record of every logger at DEBUG, as a handler on the root (and on each logger that
    does not pass its records up, the service's Powertools logger among them) receives it."""
    capture = _Everything()
    root = logging.getLogger()
    named = [lg for lg in logging.root.manager.loggerDict.values() if isinstance(lg, logging.Logger)]
    saved = [(lg, lg.level, lg.disabled) for lg in [root, *named]]
    for lg in [root, *named]:
        lg.setLevel(logging.DEBUG)
        lg.disabled = False
    apart = [lg for lg in named if not lg.propagate]
    for lg in [root, *apart]:
        lg.addHandler(capture)
    try:
        yield capture.records
    finally:
        for lg in [root, *apart]:
            lg.removeHandler(capture)
        for lg, level, disabled in saved:
            lg.setLevel(level)
            lg.disabled = disabled


@pytest.fixture()
def mail_through_ses(stack: Any, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, str]]:
    """Mail goes out through (moto's) SES, as deployed; what SES was asked to send is kept."""
    boto3.client("sesv2", region_name=config.region()).create_email_identity(EmailIdentity=SENDER)
    monkeypatch.setenv("PM_MAIL_SENDER", SENDER)
    sent: list[tuple[str, str, str]] = []
    send_ses = mail._send_ses

    def keeping(sender: str, to: str, subject: str, text: str) -> None:
        send_ses(sender, to, subject, text)
        sent.append((to, subject, text))

    monkeypatch.setattr(mail, "_send_ses", keeping)
    return sent


def _code_of_newest(sent: list[tuple[str, str, str]], email: str) -> str:
    to, subject, text = sent[-1]
    assert to == email
    code = code_in(subject + "\n" + text)
    assert code, (subject, text)
    return code


def test_no_mailed_code_reaches_any_log_record_of_a_sign_up_and_a_console_sign_in(
    api: Api, mail_through_ses: list[tuple[str, str, str]], every_record: list[logging.LogRecord]
) -> None:
    email = f"logged-{uuid.uuid4().hex[:10]}@example.org"
    started = api.platform("signup", {"companyName": "Protokoll GmbH", "email": email, "agentName": "setup"})
    assert started.status == 200, started.body
    signup_code = _code_of_newest(mail_through_ses, email)
    confirmed = api.platform("signup.confirm", {"email": email, "code": signup_code})
    assert confirmed.status == 200, confirmed.body

    person = Person(api, email)
    assert person.post("/signin", {"email": email}).status in (200, 303)
    signin_code = _code_of_newest(mail_through_ses, email)
    assert signin_code != signup_code
    assert person.post("/signin/code", {"email": email, "code": signin_code}).status == 303
    assert person.get("/").status == 200  # the code worked: it was the live one

    assert len(every_record) > 10  # DEBUG of every logger was on (botocore alone logs each call)
    for code in (signup_code, signin_code):
        for shape in (code, code.replace("-", "")):
            leaking = [r for r in every_record if any(shape in text for text in _texts(r))]
            assert not leaking, [(r.name, r.levelname, r.getMessage()[:200]) for r in leaking[:5]]
