"""Mail in the cloud (chalicelib/mail.py through Amazon SES): the sender parameter and its SES
identity, the environment of exactly the functions whose code mails, their grant on the
identity, and the public address the links in mail start with (infra/after_deploy.py fills
it with the API's own when none is given)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from generate import template as render
from infra import after_deploy, policies, resources
from tests.contract.test_iam_policy import granted, handlers, needs_of

TEMPLATE = render.template()
IDENTITY_ARN = {"Fn::Sub": "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/${MailSender}"}


def _matches(parameter: str, value: str) -> bool:
    return re.fullmatch(TEMPLATE["Parameters"][parameter]["AllowedPattern"], value) is not None


def test_the_sender_is_a_required_address_and_an_ses_identity_of_the_stack() -> None:
    sender = TEMPLATE["Parameters"]["MailSender"]
    assert "Default" not in sender, "no stack mails without a sender: the local outbox does not exist in Lambda"
    assert "verif" in sender["Description"] and "sandbox" in sender["Description"]
    assert all(_matches("MailSender", a) for a in ("no-reply@example.org", "Mail.Service+pm@sub.example.co.uk"))
    assert not any(_matches("MailSender", a) for a in ("", "example.org", "a@b", "a b@example.org", "a@@b.org"))
    identity = TEMPLATE["Resources"][resources.MAIL_IDENTITY]
    assert identity["Type"] == "AWS::SES::EmailIdentity"
    assert identity["Properties"] == {"EmailIdentity": {"Ref": "MailSender"}}
    assert identity["Condition"] == "CreatesMailIdentity"
    assert TEMPLATE["Conditions"]["CreatesMailIdentity"] == {"Fn::Equals": [{"Ref": "CreateMailIdentity"}, "true"]}
    assert TEMPLATE["Parameters"]["CreateMailIdentity"]["Default"] == "true"


def test_the_public_url_is_empty_or_https() -> None:
    public = TEMPLATE["Parameters"]["PublicUrl"]
    assert public["Default"] == ""
    for value in ("", "https://api.example.org", "https://abc123.execute-api.eu-central-1.amazonaws.com/prod"):
        assert _matches("PublicUrl", value), value
    for value in ("http://api.example.org", "api.example.org", "https://", "https://a b.org"):
        assert not _matches("PublicUrl", value), value


def _reaches_mail(function: str) -> bool:
    return any(need.resource == "mail_identity" for need in needs_of(function))


def test_exactly_the_functions_that_mail_are_told_how_and_may_send() -> None:
    """The functions whose code reaches mail.send (tests/contract/aws_calls.py) are MAIL_FUNCTIONS:
    they get the sender and the public address, and ses:SendEmail on the sender's identity only;
    no other function gets either."""
    functions = sorted(handlers())
    assert {f for f in functions if _reaches_mail(f)} == set(resources.MAIL_FUNCTIONS) == {"APIHandler"}
    for function in functions:
        variables = TEMPLATE["Resources"][function]["Properties"]["Environment"]["Variables"]
        sends = {(a, r) for a, r in granted(function) if a.startswith("ses:")}
        if function in resources.MAIL_FUNCTIONS:
            assert variables["PM_MAIL_SENDER"] == {"Ref": "MailSender"}
            assert variables["PM_PUBLIC_URL"] == {"Ref": "PublicUrl"}
            assert sends == {("ses:SendEmail", json.dumps(IDENTITY_ARN, sort_keys=True))}
        else:
            assert "PM_MAIL_SENDER" not in variables and "PM_PUBLIC_URL" not in variables, function
            assert sends == set(), function
    assert policies.MAIL_IDENTITY == IDENTITY_ARN


def test_the_mail_settings_are_the_ones_config_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """config.mail_sender and config.public_url read the variables the template sets."""
    from chalicelib import config

    monkeypatch.setenv("PM_MAIL_SENDER", "no-reply@example.org")
    monkeypatch.setenv("PM_PUBLIC_URL", "https://abc.execute-api.eu-central-1.amazonaws.com/dev")
    assert config.mail_sender() == "no-reply@example.org"
    assert config.public_url() == "https://abc.execute-api.eu-central-1.amazonaws.com/dev"


def _stack(
    public_url: str | None, endpoint: str | None = "https://abc.execute-api.eu-central-1.amazonaws.com/dev/"
) -> dict[str, Any]:
    parameters: list[dict[str, Any]] = [
        {"ParameterKey": "Stage", "ParameterValue": "dev"},
        {"ParameterKey": "MailSender", "ParameterValue": "no-reply@example.org"},
    ]
    if public_url is not None:
        parameters.append({"ParameterKey": "PublicUrl", "ParameterValue": public_url})
    found: dict[str, Any] = {"Parameters": parameters}
    if endpoint:
        found["Outputs"] = [{"OutputKey": "EndpointURL", "OutputValue": endpoint}]
    return found


def test_after_deploy_gives_the_stack_its_own_address_once() -> None:
    update = after_deploy.public_url_update(_stack(""))
    assert update == [
        {"ParameterKey": "MailSender", "UsePreviousValue": True},
        {"ParameterKey": "PublicUrl", "ParameterValue": "https://abc.execute-api.eu-central-1.amazonaws.com/dev"},
        {"ParameterKey": "Stage", "UsePreviousValue": True},
    ]
    assert _matches("PublicUrl", update[1]["ParameterValue"])
    assert after_deploy.public_url_update(_stack("https://api.example.org")) is None, "a given address stays"
    assert after_deploy.public_url_update(_stack(None)) is None, "a stack from before the parameter"
    assert after_deploy.public_url_update(_stack("", endpoint=None)) is None
