"""The account's records are the account's (issue 30, point 1). Audit records of the account
(apiKey, integration, member, oauthGrant, tenant) reach only keys holding `admin`; an integration's admin
key sees only those of its own integration (its connection to the tenant, the keys carrying
its integration id); every other key finds them neither in audit.list (totals included) nor
through audit.show (404), and cannot revert them. No member's e-mail address is in any audit
answer. Before, a key holding only `read, write:contacts, write:webhooks` read the owner's and
a colleague's addresses, every other key's agent, scopes and prefix, and another vendor's name
and contact."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from click.testing import CliRunner

from chalicelib.ops.pmctl import cli
from tests.client import Api, Tenant
from tests.console_client import Person, invite, owner_of
from tests.oauth_flow import approve

ACCOUNT_KINDS = ("apiKey", "integration", "member", "oauthGrant", "tenant")
EVERYTHING = {"limit": 1000, "offset": 0}


def _pmctl(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@dataclass
class Vendor:
    id: str
    key: str


def _onboard(tenant: Tenant, scopes: list[str]) -> Vendor:
    """An integration connected to the tenant, with a key issued by the operator."""
    name = f"Vendor {uuid.uuid4().hex[:8]}"
    created = json.loads(
        _pmctl("integrations", "create", "--name", name, "--contact", "ops@vendor.example", *_scopes(scopes), "--json")
    )["integration"]
    _pmctl("integrations", "connect", created["id"], "--tenant", tenant.id)
    secret = _pmctl(
        "keys", "issue", "--integration", created["id"], "--tenant", tenant.id, "--agent", "sync", *_scopes(scopes)
    ).strip()
    return Vendor(created["id"], secret)


def _scopes(scopes: list[str]) -> list[str]:
    return [arg for scope in scopes for arg in ("--scope", scope)]


@dataclass
class World:
    tenant: Tenant
    keys: dict[str, str]  # holder -> secret: admin, read, vendor (integration, read+admin), other vendor (read)
    vendor: Vendor
    other_vendor: Vendor
    vendor_helper_key: str  # id of a key the vendor's admin key created (it carries the vendor's integration)
    addresses: list[str]  # every member's e-mail address
    trail: list[dict[str, Any]]  # every audit record, as the tenant's first key (every scope) reads it


@pytest.fixture(scope="module")
def world(api: Api, stack: Any) -> World:
    """One tenant whose account changed in every way: keys of its own, two vendors, members."""
    tenant = api.signup(company="Konto Verwaltung GmbH")  # the owner signs up without a name
    keys = {
        "admin": tenant.new_key(["read", "admin"], agent="key-admin"),
        "read": tenant.new_key(["read", "write:contacts", "write:webhooks"], agent="vendor-like"),
    }
    vendor = _onboard(tenant, ["read", "admin"])
    other_vendor = _onboard(tenant, ["read"])
    helper = tenant.ok("apikeys.create", {"apiKey": {"agentName": "helper", "scopes": ["read"]}}, key=vendor.key)
    keys |= {"vendor": vendor.key, "other vendor": other_vendor.key}
    owner = owner_of(tenant)
    colleague = f"kollegin-{uuid.uuid4().hex[:8]}@example.org"
    nameless = f"ohne-name-{uuid.uuid4().hex[:8]}@example.org"
    invite(owner, colleague, "viewer", name="Kollegin Kuhn")
    admin_member = invite(owner, nameless, "admin", name="")  # a member without a name acts in the console
    _console_webhook(admin_member)
    approve(api, tenant, admin_member, ["read"])  # an agent connected by OAuth: a grant the member approved
    tenant.contact(lastName="Lesbar")  # an entity's change: every key with read sees it
    assert stack.poller.wait_idle(15), "the change stream did not catch up"
    trail = tenant.get("audit.list", EVERYTHING)["auditRecords"]
    assert {r["entityType"] for r in trail} >= {*ACCOUNT_KINDS, "contact", "webhook"}, trail
    return World(tenant, keys, vendor, other_vendor, helper["apiKey"]["id"], [tenant.email, colleague, nameless], trail)


def _console_webhook(person: Person) -> None:
    person.get("/webhooks/new")
    form = [("name", "Team-Hook"), ("url", "https://example.org/hooks/team"), ("events", "unit.deleted")]
    assert person.post("/webhooks", form).status == 201


def _visible(world: World, holder: str, record: dict[str, Any]) -> bool:
    """Who may see an account record: admin keys all; the vendor's admin key its own integration's."""
    if holder == "admin":
        return True
    if holder != "vendor":
        return False
    if record["entityType"] == "integration":
        return record["entityId"] == world.vendor.id
    if record["entityType"] == "apiKey":
        state = record["after"] or record["before"]
        return bool(state["data"].get("integrationId") == world.vendor.id)
    return False


HOLDERS = ("admin", "read", "vendor", "other vendor")


@pytest.mark.parametrize("holder", HOLDERS)
@pytest.mark.parametrize("kind", ACCOUNT_KINDS)
def test_an_account_record_reaches_only_the_keys_it_belongs_to(world: World, kind: str, holder: str) -> None:
    key = world.keys[holder]
    records = [r for r in world.trail if r["entityType"] == kind]
    listed = {r["id"] for r in world.tenant.get("audit.list", EVERYTHING, key=key)["auditRecords"]}
    expected = {r["id"] for r in records if _visible(world, holder, r)}
    assert {r["id"] for r in records} & listed == expected
    for record in records:
        by_entity = world.tenant.get("audit.list", {"entityId": record["entityId"], **EVERYTHING}, key=key)
        assert (record["id"] in {r["id"] for r in by_entity["auditRecords"]}) == (record["id"] in expected)
        shown = world.tenant.query("audit.show", {"auditRecord": record["id"]}, key=key)
        assert shown.status == (200 if record["id"] in expected else 404), (record, shown.body)
    if holder == "vendor":  # its own connection and keys, the helper its admin key made included
        assert {r["entityId"] for r in records if r["id"] in expected} == {
            "integration": {world.vendor.id},
            "apiKey": {_key_id(world, world.vendor.key), world.vendor_helper_key},
            "member": set(),
            "oauthGrant": set(),
            "tenant": set(),
        }[kind]


def _key_id(world: World, secret: str) -> str:
    return str(world.tenant.get("info", key=secret)["key"]["id"])


@pytest.mark.parametrize("holder", HOLDERS)
def test_totals_count_only_what_the_key_sees(world: World, holder: str) -> None:
    answer = world.tenant.get("audit.list", EVERYTHING, key=world.keys[holder])
    expected = [r["id"] for r in world.trail if r["entityType"] not in ACCOUNT_KINDS or _visible(world, holder, r)]
    assert [r["id"] for r in answer["auditRecords"]][: len(expected)] == expected
    # a page from the end and the total agree with what the key sees (later records may follow)
    assert answer["pagination"]["total"] == len(answer["auditRecords"]) >= len(expected)
    tail = world.tenant.get("audit.list", {"limit": 1, "offset": len(expected) - 1}, key=world.keys[holder])
    assert [r["id"] for r in tail["auditRecords"]] == expected[-1:]


def test_the_entity_records_stay_readable_for_every_read_key(world: World) -> None:
    for holder in HOLDERS:
        kinds = {
            r["entityType"] for r in world.tenant.get("audit.list", EVERYTHING, key=world.keys[holder])["auditRecords"]
        }
        assert {"contact", "webhook"} <= kinds, (holder, kinds)


@pytest.mark.parametrize("holder", (*HOLDERS, "owner"))
def test_no_member_address_is_in_any_audit_answer(world: World, holder: str) -> None:
    key = world.tenant.key if holder == "owner" else world.keys[holder]
    listed = world.tenant.get("audit.list", EVERYTHING, key=key)["auditRecords"]
    shown = [world.tenant.get("audit.show", {"auditRecord": r["id"]}, key=key) for r in listed]
    text = json.dumps([listed, shown]).casefold()
    for address in world.addresses:
        assert address.casefold() not in text, (holder, address)
    if holder in ("owner", "admin"):  # the members' records are there, with id and name
        members = [r for r in listed if r["entityType"] == "member"]
        assert "Kollegin Kuhn" in {(r["after"] or {}).get("data", {}).get("name") for r in members}


def test_a_key_without_admin_cannot_revert_or_preview_account_records(world: World) -> None:
    """Before: a revert of an account record answered 400 not_revertible, and a filter's revert
    listed the account's records among the skipped (their ids and audit record ids)."""
    key = world.tenant.new_key(["read", "write", "destructive"])
    account = [r for r in world.trail if r["entityType"] in ACCOUNT_KINDS]
    for record in account:
        answer = world.tenant.command("audit.revert", {"auditRecord": record["id"], "dryRun": True}, key=key)
        assert answer.status == 404, (record["entityType"], answer.body)
    first_key = world.tenant.signup_answer["apiKey"]["id"]
    preview = world.tenant.ok("audit.revert", {"filter": {"keyId": first_key}, "dryRun": True}, key=key)
    touched = {item["entityType"] for item in preview["reverted"] + preview["skipped"]}
    assert not touched & set(ACCOUNT_KINDS), preview


def test_the_accounts_address_reaches_only_its_own_admin_keys(tenant: Tenant) -> None:
    """`info` and `tenant` name the company to every key; the address it signed up with is a
    person's: only the account's own admin keys read it."""
    address = tenant.get("tenant")["tenant"]["email"]  # the sign-up's key holds admin
    assert address and tenant.get("info")["tenant"]["email"] == address
    vendor = _onboard(tenant, ["read", "admin"])
    for key in (tenant.new_key(["read"]), tenant.new_key(["read:contacts", "write"]), vendor.key):
        for name in ("info", "tenant"):
            answer = tenant.get(name, key=key)
            assert answer["tenant"]["companyName"] and address not in str(answer), (name, answer)
