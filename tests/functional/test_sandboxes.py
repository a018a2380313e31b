"""Sandboxes (issue 36): a tenant of made-up data, created by the operator with `pmctl sandbox create`
(or by an owner in the console), seeded with the demo company through the operations themselves.
Its keys start `pm_sandbox_` and reach it alone; `info` and `tenant` say sandbox; it has no trial
and no plan."""

from __future__ import annotations

import json
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from click.testing import CliRunner
from schwifty import IBAN

from chalicelib.ops.pmctl import cli
from chalicelib.sandbox.demo import DEMO_TOTALS
from tests.client import Api, Tenant

LISTS = {  # the demo company's types and the lists that show them
    "object": ("objects", "objects"),
    "unit": ("units", "units"),
    "contact": ("contacts", "contacts"),
    "contract": ("contracts", "contracts"),
    "document": ("documents.list", "documents"),
}


@dataclass
class Sandbox:
    tenant: dict[str, Any]
    key: str
    email: str


def _create(company: str, seed: str = "demo") -> Sandbox:
    email = f"sandbox-{uuid.uuid4().hex[:8]}@example.org"
    result = CliRunner().invoke(
        cli, ["sandbox", "create", "--company", company, "--email", email, "--seed", seed], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    return Sandbox(answer["tenant"], answer["apiKey"]["key"], email)


@pytest.fixture(scope="module")
def demo(stack: Any) -> Sandbox:
    return _create("Demo HV")


def _total(api: Api, key: str, name: str) -> int:
    answer = api.query(name, {"limit": 1, "offset": 0}, key=key)
    assert answer.status == 200, answer.body
    return int(answer.body["pagination"]["total"])


def test_the_operators_sandbox_holds_the_demo_company_and_says_so(api: Api, demo: Sandbox) -> None:
    assert demo.key.startswith("pm_sandbox_")
    info = api.query("info", key=demo.key).body
    assert info["tenant"]["sandbox"] is True and info["tenant"]["plan"] == "sandbox"
    assert not info["tenant"].get("trialEndsAt"), "a sandbox never expires"
    assert api.query("tenant", key=demo.key).body["tenant"]["sandbox"] is True
    for kind, (name, _plural) in LISTS.items():
        assert _total(api, demo.key, name) == DEMO_TOTALS[kind], kind
    assert DEMO_TOTALS["object"] == 5 and DEMO_TOTALS["unit"] == 200


def test_its_documents_download_as_pdfs_and_its_ibans_validate(api: Api, demo: Sandbox) -> None:
    documents = api.query("documents.list", {"limit": 5, "offset": 0}, key=demo.key).body["documents"]
    assert documents
    shown = api.query("documents.show", {"document": documents[0]["id"]}, key=demo.key).body["document"]
    with urllib.request.urlopen(shown["downloadUrl"], timeout=30) as download:
        assert download.read(5) == b"%PDF-"
    accounts = api.query("accounting.bankaccountinfos.list", {"limit": 1000, "offset": 0}, key=demo.key).body
    ibans = [account["iban"] for account in accounts["bankAccountInfos"]]
    assert ibans
    for iban in ibans:
        IBAN(iban).validate()


def test_a_sandbox_key_and_a_live_key_never_reach_each_others_data(api: Api, demo: Sandbox, tenant: Tenant) -> None:
    live = tenant.contact(lastName="Echt")
    assert api.query("contacts.show", {"contact": live["id"]}, key=demo.key).status == 404
    made_up = api.query("contacts", {"limit": 1, "offset": 0}, key=demo.key).body["contacts"][0]
    assert tenant.query("contacts.show", {"contact": made_up["id"]}).status == 404
    assert api.query("info", key=demo.key).body["tenant"]["id"] != tenant.id


def test_a_sandbox_cannot_become_live_and_an_empty_one_is_empty(api: Api, demo: Sandbox) -> None:
    refused = CliRunner().invoke(cli, ["tenants", "set-plan", demo.tenant["id"]])
    assert refused.exit_code == 1 and "sandbox_not_live" in refused.output
    empty = _create("Leer GmbH", seed="empty")
    assert empty.key.startswith("pm_sandbox_") and _total(api, empty.key, "units") == 0
    # its owner may own a live company too: the sandbox took no sign-up address
    assert api.query("info", key=empty.key).body["tenant"]["sandbox"] is True
