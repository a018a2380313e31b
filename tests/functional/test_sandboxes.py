"""Sandboxes (issue 36): a tenant of made-up data, created by the operator with `pmctl sandbox create`
(or by an owner in the console), seeded with the demo company through the operations themselves.
Its keys start `pm_sandbox_` and reach it alone; `info` and `tenant` say sandbox; it has no trial
and no plan; `reset` puts the seed back (totals, aliases, values), `delete` ends it.

One test walks a demo sandbox through its whole life: planting it takes most of a minute, and xdist
would plant one per worker for a module fixture. It is the one test that plants the full demo company
(PM_DEMO_SIZE=full) and proves its totals and its reset; every other test plants the small one
(tests/conftest.py), the reset after a reset among them (a second reset of the full one took a
quarter of that test's minute and a half)."""

from __future__ import annotations

import json
import urllib.request
import uuid
from typing import Any

import pytest
from click.testing import CliRunner
from schwifty import IBAN

from chalicelib import config
from chalicelib.ops.pmctl import cli
from chalicelib.sandbox.demo import DEMO_TOTALS, SMALL_TOTALS
from tests.client import Api, Tenant

LISTS = {
    "object": "objects",
    "unit": "units",
    "contact": "contacts",
    "contract": "contracts",
    "responsibility": "responsibilities.list",
}


def _pmctl(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def _create(company: str, seed: str = "demo") -> dict[str, Any]:
    email = f"sandbox-{uuid.uuid4().hex[:8]}@example.org"
    return dict(json.loads(_pmctl("sandbox", "create", "--company", company, "--email", email, "--seed", seed)))


def _totals(api: Api, key: str) -> dict[str, int]:
    found = {}
    for kind, name in LISTS.items():
        answer = api.query(name, {"limit": 1, "offset": 0}, key=key)
        assert answer.status == 200, answer.body
        found[kind] = int(answer.body["pagination"]["total"])
    documents = api.query("documents.list", {"limit": 1, "offset": 0}, key=key).body
    return {**found, "document": int(documents["pagination"]["total"])}


def _first(api: Api, key: str, name: str, plural: str, offset: int = 0) -> dict[str, Any]:
    return dict(api.query(name, {"limit": 1, "offset": offset}, key=key).body[plural][0])


@pytest.mark.slow
def test_a_demo_sandbox_from_creation_through_reset_to_deletion(
    api: Api, tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PM_DEMO_SIZE", "full")  # the full demo company, the one test of its totals
    assert config.demo_size() == "full"
    created = _create("Demo HV")
    key, sandbox_id = created["apiKey"]["key"], created["tenant"]["id"]
    assert key.startswith("pm_sandbox_")
    info = api.query("info", key=key).body["tenant"]
    assert info["sandbox"] is True and info["plan"] == "sandbox" and not info.get("trialEndsAt")
    assert api.query("tenant", key=key).body["tenant"]["sandbox"] is True
    seeded = _totals(api, key)
    assert seeded == {kind: DEMO_TOTALS[kind] for kind in seeded}
    assert seeded["object"] == 5 and seeded["unit"] == 200

    # its documents download as PDFs; every IBAN validates
    document = _first(api, key, "documents.list", "documents")
    shown = api.query("documents.show", {"document": document["id"]}, key=key).body["document"]
    with urllib.request.urlopen(shown["downloadUrl"], timeout=30) as download:
        assert download.read(5) == b"%PDF-"
    accounts = api.query("accounting.bankaccountinfos.list", {"limit": 1000, "offset": 0}, key=key).body
    assert len(accounts["bankAccountInfos"]) == DEMO_TOTALS["bankAccountInfo"]
    for account in accounts["bankAccountInfos"]:
        IBAN(account["iban"]).validate(validate_bban=True)

    # a sandbox key and a live key never reach each other's data
    live = tenant.contact(lastName="Echt")
    assert api.query("contacts.show", {"contact": live["id"]}, key=key).status == 404
    made_up = _first(api, key, "contacts", "contacts")
    assert tenant.query("contacts.show", {"contact": made_up["id"]}).status == 404
    refused = CliRunner().invoke(cli, ["tenants", "set-plan", sandbox_id])
    assert refused.exit_code == 1 and "sandbox_not_live" in refused.output, "a sandbox cannot become live"

    # changes of every kind, then the reset: the seed's totals, aliases and values again
    extra = api.command("contacts.create", {"contact": {"lastName": "Zusatz", "personType": "natural"}}, key=key)
    assert extra.status == 200
    duty = _first(api, key, "responsibilities.list", "responsibilities")
    assert api.command("responsibilities.delete", {"responsibility": duty["id"]}, key=key).status == 200
    person = next(
        c for c in api.query("contacts", {"limit": 50, "offset": 0}, key=key).body["contacts"] if c.get("lastName")
    )
    changed = {"id": person["id"], "lastName": "Geändert", "title": "Dr."}
    assert api.command("contacts.update", {"contact": changed}, key=key).status == 200
    done = json.loads(_pmctl("sandbox", "reset", sandbox_id, "--json"))["reset"]
    assert (done["deleted"], done["restored"], done["updated"], done["created"]) == (1, 1, 1, 0), done
    assert _totals(api, key) == seeded
    back = api.query("contacts.show", {"contact": person["id"]}, key=key).body["contact"]
    assert back["lastName"] == person["lastName"] and back.get("title") == person.get("title")
    shown = api.query("responsibilities.show", {"responsibility": duty["aliases"][0]}, key=key)
    assert shown.status == 200 and shown.body["responsibility"]["id"] == duty["id"], "restored, its alias names it"
    assert api.query("contacts.show", {"contact": extra.body["contact"]["id"]}, key=key).status == 404
    assert done["unchanged"] == sum(DEMO_TOTALS.values()) - 1, "every other entity of the seed was read and kept"

    # deleted: its key ends at once, the live tenant goes on
    _pmctl("sandbox", "delete", sandbox_id, "--yes")
    assert api.query("info", key=key).status == 401
    assert tenant.query("info").status == 200
    assert "No sandbox" in CliRunner().invoke(cli, ["sandbox", "reset", sandbox_id]).output


@pytest.mark.slow
def test_a_sandbox_reset_after_changes_is_unchanged_by_the_next_reset(api: Api) -> None:
    """A reset puts back what changed and leaves nothing for the next one to do (the small demo
    company; the full one's reset is the test above)."""
    created = _create("Klein HV")
    key, sandbox_id = created["apiKey"]["key"], created["tenant"]["id"]
    assert (
        api.command("contacts.create", {"contact": {"lastName": "Zusatz", "personType": "natural"}}, key=key).status
        == 200
    )
    duty = _first(api, key, "responsibilities.list", "responsibilities")
    assert api.command("responsibilities.delete", {"responsibility": duty["id"]}, key=key).status == 200
    first = json.loads(_pmctl("sandbox", "reset", sandbox_id, "--json"))["reset"]
    assert (first["deleted"], first["restored"]) == (1, 1), first
    again = json.loads(_pmctl("sandbox", "reset", sandbox_id, "--json"))["reset"]
    assert again["unchanged"] == sum(SMALL_TOTALS.values()) and again["deleted"] == again["restored"] == 0
    assert again["cleared"] == again["created"] == again["updated"] == 0, again
    _pmctl("sandbox", "delete", sandbox_id, "--yes")


def test_an_empty_sandbox_is_empty_and_takes_no_sign_up_address(api: Api) -> None:
    empty = _create("Leer GmbH", seed="empty")
    key = empty["apiKey"]["key"]
    assert key.startswith("pm_sandbox_") and api.query("info", key=key).body["tenant"]["sandbox"] is True
    assert _totals(api, key) == dict.fromkeys([*LISTS, "document"], 0)
    # its owner may sign up a live company with the same address: the sandbox took none
    signup = {"companyName": "Live GmbH", "email": empty["tenant"]["email"], "agentName": "me"}
    assert api.platform("signup", signup).status == 200


@pytest.mark.slow
def test_two_sandboxes_of_one_seed_hold_the_same_aliases_under_ids_of_their_own(api: Api) -> None:
    """Any beginning of the seed's lines loads on its own (references point to earlier lines): the
    first 60 planted into two sandboxes name the same aliases, never the same ids."""
    from chalicelib.exports import load
    from chalicelib.sandbox import seed as seeding
    from chalicelib.store import aliases

    lines = seeding.lines_of("demo")[:60]
    found = []
    for company in ("Erste GmbH", "Zweite GmbH"):
        sandbox = _create(company, seed="empty")
        ctx = seeding.seeder(sandbox["tenant"]["id"], sandbox["apiKey"]["id"], "operator")
        outcome = load.run(seeding.InProcess(ctx), iter(lines), None, lambda _text: None)
        assert outcome.counts["created"] == len(lines), outcome.failures
        named = aliases.lookup_many(ctx, [line["alias"] for line in lines])
        found.append({alias: entity_id for alias, (entity_id, _type) in named.items()})
    first, second = found
    assert first.keys() == second.keys() == {line["alias"] for line in lines}
    assert not set(first.values()) & set(second.values())
