"""Vendor onboarding by the operator with pmctl, and what the vendor's key can then do.

pmctl runs in-process through click's CliRunner against the test stack (the `stack` fixture
has set AWS_ENDPOINT_URL and PM_TABLE_NAME); its keys are used over HTTP like any client's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from chalicelib.ops.pmctl import cli
from tests.client import Tenant, inside_one_window
from tests.eventually import eventually

VENDOR_SCOPES = ["read", "write:contacts", "write:aliases"]


def pmctl(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def ok(*args: str, input: str | None = None) -> str:
    result = pmctl(*args, input=input)
    assert result.exit_code == 0, result.output
    return result.stdout


def ok_json(*args: str) -> Any:
    return json.loads(ok(*args, "--json"))


def refused(*args: str) -> str:
    """Runs a command that must fail; answers what it said."""
    result = pmctl(*args)
    assert result.exit_code != 0, result.output
    return result.output


@dataclass
class Vendor:
    id: str
    name: str
    key: str


def unique_name(base: str = "Acme") -> str:
    return f"{base} {uuid.uuid4().hex[:8]}"


def onboard(
    tenant: Tenant, allowed: list[str] = VENDOR_SCOPES, scopes: list[str] | None = None, agent: str = "sync"
) -> Vendor:
    """The whole flow: create the integration, connect it to the tenant, issue its key."""
    name = unique_name()
    integration = ok_json("integrations", "create", "--name", name, "--contact", "ops@acme.example", *_scopes(allowed))[
        "integration"
    ]
    ok("integrations", "connect", integration["id"], "--tenant", tenant.id)
    secret = ok(
        "keys",
        "issue",
        "--integration",
        integration["id"],
        "--tenant",
        tenant.id,
        "--agent",
        agent,
        *_scopes(scopes or allowed),
    ).strip()
    return Vendor(integration["id"], name, secret)


def _scopes(scopes: list[str]) -> list[str]:
    return [arg for scope in scopes for arg in ("--scope", scope)]


# --- onboarding -----------------------------------------------------------------------


def test_an_operator_onboards_a_vendor_and_the_vendor_key_works_over_http(tenant: Tenant) -> None:
    name = unique_name("Immo Sync")
    created = ok(
        "integrations",
        "create",
        "--name",
        name,
        "--contact",
        "ops@immosync.example",
        "--scope",
        "read",
        "--scope",
        "write:contacts",
    )
    assert created.startswith("Created integration int_") and name in created
    integration_id = created.split()[2]

    connected = ok("integrations", "connect", integration_id, "--tenant", tenant.id)
    assert f"connected to tenant {tenant.id}" in connected

    issued = pmctl(
        "keys",
        "issue",
        "--integration",
        integration_id,
        "--tenant",
        tenant.id,
        "--agent",
        "immo-sync",
        "--scope",
        "read",
        "--scope",
        "write:contacts",
    )
    assert issued.exit_code == 0, issued.output
    secret = issued.stdout.strip()
    assert secret.startswith("pm_test_") and "\n" not in secret
    assert "shown only this once" in issued.stderr and "Issued key key_" in issued.stderr

    me = tenant.get("info", key=secret)
    assert me["tenant"]["id"] == tenant.id
    assert me["integration"] == {"id": integration_id, "name": name}
    assert me["key"]["agentName"] == "immo-sync" and me["key"]["scopes"] == ["read", "write:contacts"]


def test_the_tenants_own_keys_have_no_integration(tenant: Tenant) -> None:
    assert tenant.get("info")["integration"] is None


def test_a_vendor_key_works_within_its_scopes_and_is_refused_beyond_them(tenant: Tenant) -> None:
    vendor = onboard(tenant, allowed=["read", "write:contacts"])
    person = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": "Vendor"}}, key=vendor.key)[
        "contact"
    ]
    assert tenant.get("contacts.show", {"contact": person["id"]}, key=vendor.key)["contact"]["id"] == person["id"]

    beyond_area = tenant.command("objects.create", {"object": {"name": "Haus", "type": "rental"}}, key=vendor.key)
    assert beyond_area.status == 403 and beyond_area.body["code"] == "missing_scope"
    destructive = tenant.command("contacts.delete", {"contact": person["id"]}, key=vendor.key)
    assert destructive.status == 403
    admin = tenant.query("apikeys.list", {"limit": 10, "offset": 0}, key=vendor.key)
    assert admin.status == 403


def test_a_write_allowance_covers_every_write_area(tenant: Tenant) -> None:
    vendor = onboard(tenant, allowed=["read", "write"], scopes=["read", "write:objects"])
    assert (
        tenant.command("objects.create", {"object": {"name": "Haus", "type": "rental"}}, key=vendor.key).status == 200
    )


# --- aliases per integration ----------------------------------------------------------


def test_two_integrations_on_one_tenant_keep_their_aliases_apart(tenant: Tenant) -> None:
    first, second = onboard(tenant), onboard(tenant)
    mine = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": "Erste"}}, key=first.key)[
        "contact"
    ]
    theirs = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": "Zweite"}}, key=second.key)[
        "contact"
    ]

    for vendor, person in ((first, mine), (second, theirs)):
        entries = [{"alias": "crm-4711", "id": person["id"], "type": "contact"}]
        assert tenant.ok("aliases.upsert", {"entries": entries}, key=vendor.key)["aliases"] == entries

    def listed(key: str) -> list[dict[str, str]]:
        return list(tenant.get("aliases.list", {"limit": 100, "offset": 0}, key=key)["aliases"])

    assert listed(first.key) == [{"alias": "crm-4711", "id": mine["id"], "type": "contact"}]
    assert listed(second.key) == [{"alias": "crm-4711", "id": theirs["id"], "type": "contact"}]
    assert listed(tenant.key) == []  # the tenant's own keys have their own alias space

    resolved = tenant.get("aliases.resolve", {"aliases": ["crm-4711"]}, key=first.key)["aliases"]
    assert resolved == [{"alias": "crm-4711", "id": mine["id"], "type": "contact"}]
    assert tenant.get("aliases.resolve", {"ids": [mine["id"]]}, key=second.key)["aliases"] == []

    shown_first = tenant.get("contacts.show", {"contact": "crm-4711"}, key=first.key)["contact"]
    shown_second = tenant.get("contacts.show", {"contact": "crm-4711"}, key=second.key)["contact"]
    assert (shown_first["id"], shown_second["id"]) == (mine["id"], theirs["id"])
    assert shown_first["aliases"] == ["crm-4711"]
    assert tenant.get("contacts.show", {"contact": theirs["id"]}, key=first.key)["contact"]["aliases"] == []
    assert tenant.query("contacts.show", {"contact": "crm-4711"}).status == 404


# --- audit ----------------------------------------------------------------------------


def test_audit_records_of_an_integrations_changes_carry_its_id(tenant: Tenant) -> None:
    vendor = onboard(tenant, agent="audit-sync")
    person = tenant.ok(
        "contacts.create", {"contact": {"personType": "natural", "lastName": "Geprüft"}}, key=vendor.key
    )["contact"]
    tenant.ok("contacts.update", {"contact": {"id": person["id"], "lastName": "Nochmal"}}, key=vendor.key)
    query = {"entityId": person["id"], "limit": 10, "offset": 0}
    records = eventually(
        lambda: len(listed := tenant.get("audit.list", query)["auditRecords"]) == 2 and listed,
        timeout=30,
        message="both audit records",
    )
    assert [r["action"] for r in records] == ["created", "updated"]
    assert {r["actor"]["integrationId"] for r in records} == {vendor.id}
    assert {r["actor"]["agentName"] for r in records} == {"audit-sync"}


# --- disabling ------------------------------------------------------------------------


def test_disabling_an_integration_makes_its_keys_answer_401(tenant: Tenant) -> None:
    vendor = onboard(tenant)
    assert tenant.query("info", key=vendor.key).status == 200
    said = ok("integrations", "disable", vendor.id, "--yes")
    assert said.startswith(f"Disabled integration {vendor.id}") and "1 key(s)" in said
    answer = tenant.query("info", key=vendor.key)
    assert answer.status == 401 and answer.body["code"] == "key_disabled"
    assert tenant.query("info").status == 200  # the tenant's own key is untouched


def test_disabling_reaches_keys_the_integration_made_itself(tenant: Tenant) -> None:
    vendor = onboard(tenant, allowed=["read", "admin"])
    helper = tenant.ok("apikeys.create", {"apiKey": {"agentName": "helper", "scopes": ["read"]}}, key=vendor.key)[
        "apiKey"
    ]
    assert helper["integrationId"] == vendor.id
    result = ok_json("integrations", "disable", vendor.id, "--yes")
    assert result["integration"]["disabled"] is True and len(result["keysDisabled"]) == 2
    assert tenant.query("info", key=helper["key"]).status == 401


def test_disable_asks_for_confirmation(tenant: Tenant) -> None:
    vendor = onboard(tenant)
    declined = pmctl("integrations", "disable", vendor.id, input="n\n")
    assert declined.exit_code != 0 and "Aborted" in declined.output
    assert tenant.query("info", key=vendor.key).status == 200
    ok("integrations", "disable", vendor.id, input="y\n")
    assert tenant.query("info", key=vendor.key).status == 401


def test_a_disabled_integration_can_neither_connect_nor_issue_keys(tenant: Tenant, other_tenant: Tenant) -> None:
    vendor = onboard(tenant)
    ok("integrations", "disable", vendor.id, "--yes")
    assert "[integration_disabled]" in refused("integrations", "connect", vendor.id, "--tenant", other_tenant.id)
    assert "[integration_disabled]" in refused(
        "keys", "issue", "--integration", vendor.id, "--tenant", tenant.id, "--agent", "again", "--scope", "read"
    )
    assert ok_json("integrations", "show", vendor.id)["integration"]["disabled"] is True


def test_a_key_issued_while_the_integration_is_disabled_is_disabled_too(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chalicelib.store import integrations, keys

    vendor = onboard(tenant)
    real_create = keys.create_key
    made: dict[str, str] = {}

    def create_then_disable(*args: Any, **kwargs: Any) -> tuple[dict[str, Any], str]:
        record, secret = real_create(*args, **kwargs)
        made["key"] = secret
        integrations.disable(vendor.id)  # the operator disables it in that very moment
        return record, secret

    monkeypatch.setattr(keys, "create_key", create_then_disable)
    said = refused(
        "keys", "issue", "--integration", vendor.id, "--tenant", tenant.id, "--agent", "late", "--scope", "read"
    )
    assert "[integration_disabled]" in said
    assert tenant.query("info", key=made["key"]).status == 401


# --- refusals -------------------------------------------------------------------------


def test_pmctl_refuses_a_key_for_a_tenant_the_integration_is_not_connected_to(
    tenant: Tenant, other_tenant: Tenant
) -> None:
    vendor = onboard(tenant)
    said = refused(
        "keys", "issue", "--integration", vendor.id, "--tenant", other_tenant.id, "--agent", "sneaky", "--scope", "read"
    )
    assert "is not connected to tenant" in said and "[integration_not_connected]" in said
    assert "Traceback" not in said


def test_pmctl_refuses_scopes_beyond_the_integrations_allowance(tenant: Tenant) -> None:
    vendor = onboard(tenant, allowed=["read", "write:contacts"])
    for scope in ("write", "write:objects", "destructive", "admin"):
        said = refused(
            "keys",
            "issue",
            "--integration",
            vendor.id,
            "--tenant",
            tenant.id,
            "--agent",
            f"greedy-{scope}",
            "--scope",
            "read",
            "--scope",
            scope,
        )
        assert f"may not hold {scope}" in said and "[scope_escalation]" in said


def test_pmctl_refuses_unknown_scopes_duplicate_names_and_unknown_ids(tenant: Tenant) -> None:
    assert "unknown scope superuser" in refused(
        "integrations", "create", "--name", unique_name(), "--contact", "x@y.example", "--scope", "superuser"
    )
    name = unique_name()
    ok("integrations", "create", "--name", name, "--contact", "x@y.example", "--scope", "read")
    assert "[integration_name_taken]" in refused(
        "integrations", "create", "--name", name.upper(), "--contact", "x@y.example", "--scope", "read"
    )
    assert "No integration int_00000000000000000000000000" in refused(
        "integrations", "show", "int_00000000000000000000000000"
    )
    vendor = onboard(tenant)
    assert "Tenant not found" in refused(
        "integrations", "connect", vendor.id, "--tenant", "ten_00000000000000000000000000"
    )
    assert "Missing option '--scope'" in refused(
        "keys", "issue", "--integration", vendor.id, "--tenant", tenant.id, "--agent", "a"
    )


# --- reading --------------------------------------------------------------------------


def test_integrations_list_and_show_tell_tenants_and_keys(tenant: Tenant) -> None:
    vendor = onboard(tenant, agent="lister")
    listed = ok("integrations", "list")
    assert any(line.startswith(vendor.id) and "enabled" in line and vendor.name in line for line in listed.splitlines())
    assert vendor.id in [i["id"] for i in ok_json("integrations", "list")["integrations"]]
    shown = ok_json("integrations", "show", vendor.id)
    assert shown["integration"]["allowedScopes"] == sorted(VENDOR_SCOPES)
    assert [(t["tenantId"], t["companyName"]) for t in shown["tenants"]] == [(tenant.id, "Hausverwaltung Test GmbH")]
    assert [(k["tenantId"], k["agentName"]) for k in shown["keys"]] == [(tenant.id, "lister")]
    assert "keys issued (1):" in ok("integrations", "show", vendor.id)


def test_connecting_twice_changes_nothing(tenant: Tenant) -> None:
    vendor = onboard(tenant)
    again = ok_json("integrations", "connect", vendor.id, "--tenant", tenant.id)["connection"]
    assert again["tenantId"] == tenant.id
    assert len(ok_json("integrations", "show", vendor.id)["tenants"]) == 1


def test_the_operator_reads_a_tenants_record_and_key_count(tenant: Tenant) -> None:
    vendor = onboard(tenant)
    shown = ok_json("tenants", "show", tenant.id)
    assert (
        shown["tenant"]["id"] == tenant.id
        and shown["tenant"]["plan"] == "enterprise"
        and shown["tenant"]["trialEndsAt"]
    )
    assert shown["keys"]["total"] == 2 and shown["keys"]["active"] == 2 and shown["keys"]["ofIntegrations"] == 1
    assert shown["integrations"] == [{"id": vendor.id, "name": vendor.name, "disabled": False}]
    text = ok("tenants", "show", tenant.id)
    assert "plan enterprise, trial ends" in text and "keys: 2 (2 active" in text and vendor.name in text
    assert tenant.id in [t["id"] for t in ok_json("tenants", "list")["tenants"]]
    assert any(line.startswith(tenant.id) for line in ok("tenants", "list").splitlines())
    assert "Tenant not found" in refused("tenants", "show", "ten_00000000000000000000000000")


# --- the command itself ---------------------------------------------------------------


def _command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [prefix]
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            paths += _command_paths(command, (*prefix, name))
        else:
            paths.append((*prefix, name))
    return paths


def test_every_command_and_group_has_help() -> None:
    paths = _command_paths(cli)
    assert len(paths) == 27  # root, 7 groups, 19 commands
    for path in paths:
        result = pmctl(*path, "--help")
        assert result.exit_code == 0, (path, result.output)
        assert result.output.startswith(f"Usage: {' '.join(('cli', *path))}") and "Options:" in result.output


def test_the_installed_pmctl_entry_point_runs() -> None:
    installed = Path(sys.executable).parent / "pmctl"
    assert installed.exists(), f"{installed} is missing: run `make install`"
    result = subprocess.run([str(installed), "--help"], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: pmctl") and "integrations" in result.stdout and "tenants" in result.stdout


def test_local_points_pmctl_at_the_stack_make_serve_wrote_down(
    tenant: Tenant, stack: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chalicelib import config
    from chalicelib.local import serve

    for name in (
        "AWS_ENDPOINT_URL",
        "AWS_PROFILE",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "PM_TABLE_NAME",
        "PM_KEY_ENVIRONMENT",
    ):
        if name in os.environ:
            monkeypatch.setenv(name, os.environ[name])  # restored after the test
        else:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PM_STATE_DIR", str(tmp_path))
    written = serve._write_connection_file(tmp_path, stack.endpoint, 8000)
    assert json.loads(written.read_text())["tableName"] == config.table_name()

    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # a wrong endpoint: --local must replace it
    assert tenant.id in [t["id"] for t in json.loads(ok("--local", "tenants", "list", "--json"))["tenants"]]
    assert os.environ["AWS_ENDPOINT_URL"] == stack.endpoint

    serve._remove_connection_file(written)
    assert not written.exists()
    assert "No running `make serve` found" in refused("--local", "tenants", "list")


# --- the operator's account controls ------------------------------------------------------------


def test_the_operator_lists_tenants_and_puts_one_on_a_paid_plan_after_its_trial(tenant: Tenant) -> None:
    import datetime as dt

    from chalicelib import clock

    assert tenant.id in [t["id"] for t in ok_json("tenants", "list")["tenants"]]
    clock.set_clock(lambda: dt.datetime.now(dt.UTC) + dt.timedelta(days=31))
    try:
        assert tenant.query("objects").body["code"] == "trial_ended"
        paid = ok_json("tenants", "set-plan", tenant.id)["tenant"]
        assert paid["plan"] == "enterprise" and paid["trialEndsAt"] is None
        assert tenant.query("objects").status == 200
    finally:
        clock.set_clock(None)


def test_the_operator_sets_and_resets_a_tenants_throttle(tenant: Tenant) -> None:
    from chalicelib import throttle

    throttle.reset()
    set_ = ok_json("tenants", "throttle", tenant.id, "--per-key", "50/100", "--operation", "objects=0.25/1")["tenant"]
    assert set_["throttle"] == {
        "perKey": {"rate": 50.0, "burst": 100.0},
        "operations": {"objects": {"rate": 0.25, "burst": 1.0}},
    }
    try:
        inside_one_window(4, 2)  # 1 per 4-second window
        assert [tenant.query("objects").status for _ in range(2)] == [200, 429]
    finally:
        assert "throttle" not in ok_json("tenants", "throttle", tenant.id, "--reset")["tenant"]
    throttle.reset()
    assert tenant.query("objects").status == 200
    assert "Give --per-key" in refused("tenants", "throttle", tenant.id)
    assert "not RATE" in refused("tenants", "throttle", tenant.id, "--per-key", "fast")


def test_the_operator_sets_a_tenants_own_limit_over_all_its_keys(tenant: Tenant, other_tenant: Tenant) -> None:
    from chalicelib import throttle

    second = tenant.new_key(["read"])
    throttle.reset()
    set_ = ok_json("tenants", "throttle", tenant.id, "--per-tenant", "0.5/2")["tenant"]
    assert set_["throttle"] == {"perTenant": {"rate": 0.5, "burst": 2.0}}
    try:
        inside_one_window(4, 3)  # 2 per 4-second window, for every key of the tenant together
        statuses = [tenant.query("objects", key=key).status for key in (tenant.key, second, second)]
        assert statuses == [200, 200, 429]
        assert other_tenant.query("objects").status == 200  # the other tenant's budget is its own
    finally:
        ok_json("tenants", "throttle", tenant.id, "--reset")
    throttle.reset()
    assert tenant.query("objects", key=second).status == 200
    assert "not RATE" in refused("tenants", "throttle", tenant.id, "--per-tenant", "lots")


def test_pmctl_issues_no_key_past_the_tenants_cap(
    tenant: Tenant, other_tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    vendor = onboard(tenant)  # the sign-up's key and the vendor's: two live keys
    monkeypatch.setenv("PM_MAX_KEYS_PER_TENANT", "2")
    said = refused(
        "keys", "issue", "--integration", vendor.id, "--tenant", tenant.id, "--agent", "another", "--scope", "read"
    )
    assert "[key_limit_reached]" in said, said
    ok("integrations", "connect", vendor.id, "--tenant", other_tenant.id)
    ok("keys", "issue", "--integration", vendor.id, "--tenant", other_tenant.id, "--agent", "sync", "--scope", "read")


def test_a_disabled_integrations_key_is_refused_even_before_its_own_disable(tenant: Tenant) -> None:
    from chalicelib import account
    from chalicelib.store import integrations
    from chalicelib.store.model import Item

    vendor = onboard(tenant)
    assert tenant.query("info", key=vendor.key).status == 200
    # the record says disabled while the key itself is not (yet): the window disable() sweeps
    Item.get(integrations.integration_pk(vendor.id), integrations.INTEGRATION_SK).update(
        actions=[Item.data["disabled"].set(True)]
    )
    account._cache.clear()
    answer = tenant.query("info", key=vendor.key)
    assert answer.status == 401 and answer.body["code"] == "integration_disabled"


def test_a_disabled_integration_refuses_its_own_keys_only(tenant: Tenant) -> None:
    """What an instance remembers of an integration (account.py, 10 s) is that integration's: a
    vendor's key is served right after a disabled vendor's was refused, and the other way round."""
    from chalicelib import account
    from chalicelib.store import integrations
    from chalicelib.store.model import Item

    disabled, other = onboard(tenant), onboard(tenant)
    # the record says disabled, its key not yet: only the integration's own record refuses it
    Item.get(integrations.integration_pk(disabled.id), integrations.INTEGRATION_SK).update(
        actions=[Item.data["disabled"].set(True)]
    )
    account._cache.clear()
    assert tenant.query("info", key=disabled.key).status == 401
    assert tenant.query("info", key=other.key).status == 200
    account._cache.clear()
    assert tenant.query("info", key=other.key).status == 200
    assert tenant.query("info", key=disabled.key).status == 401


def test_a_key_of_an_integration_that_is_gone_is_refused(tenant: Tenant) -> None:
    from chalicelib import account
    from chalicelib.store import integrations
    from chalicelib.store.model import Item

    vendor = onboard(tenant)
    Item(integrations.integration_pk(vendor.id), integrations.INTEGRATION_SK).delete()  # its record lost
    account._cache.clear()
    answer = tenant.query("info", key=vendor.key)
    assert answer.status == 401 and answer.body["code"] == "integration_disabled", answer.body


def test_an_integrations_key_lists_only_its_integrations_keys(tenant: Tenant) -> None:
    """apikeys.list follows the rule of every other key operation: an integration's key
    reaches its own integration's keys, never the tenant's own or another vendor's."""
    first, second = onboard(tenant, allowed=["read", "admin"]), onboard(tenant, allowed=["read", "admin"])
    minted = tenant.ok("apikeys.create", {"apiKey": {"agentName": "sync-helper", "scopes": ["read"]}}, key=first.key)[
        "apiKey"
    ]["id"]

    def listed(key: str) -> tuple[set[str | None], int]:
        page = tenant.get("apikeys.list", {"limit": 100, "offset": 0}, key=key)
        return {k.get("integrationId") for k in page["apiKeys"]}, page["pagination"]["total"]

    assert listed(first.key) == ({first.id}, 2)  # its issued key and the one it minted
    assert listed(second.key) == ({second.id}, 1)
    owners, total = listed(tenant.key)
    assert owners == {None, first.id, second.id} and total >= 4  # the tenant's own admin sees every key
    assert minted in {
        k["id"] for k in tenant.get("apikeys.list", {"limit": 100, "offset": 0}, key=first.key)["apiKeys"]
    }


def test_pmctl_prints_tenant_data_with_control_characters_escaped(tenant: Tenant) -> None:
    """A company name stored before one-line fields refused control characters (or written
    by any other path) reaches the operator's terminal inert: ESC and C1 escaped, never raw."""
    from chalicelib.store import keys
    from chalicelib.store.model import Item

    hostile = "Evil GmbH\x1b]0;pwned\x07\x1b[2J\u009b31m"
    keys._update_tenant(tenant.id, [Item.data["companyName"].set(hostile)], "test")
    text = ok("tenants", "show", tenant.id) + ok("tenants", "list")
    assert "\x1b" not in text and "\x07" not in text and "\u009b" not in text
    assert "Evil GmbH\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m" in text
    shown = ok("tenants", "show", tenant.id, "--json")
    assert "\x1b" not in shown and "\u009b" not in shown and json.loads(shown)["tenant"]["companyName"] == hostile


def test_outbox_shows_the_mail_and_prints_a_code_for_scripts(api: Any) -> None:
    """`pmctl outbox` reads the local service's outbox (here the test process's, $PM_OUTBOX_DIR), as
    the README's curl quickstart (and docs/getting-started.md) does to confirm a sign-up."""
    tenant = api.signup(company="Postausgang GmbH")
    api.platform("signup", {"companyName": "Zweite GmbH", "email": "second-" + tenant.email, "agentName": "a"})
    code = ok("outbox", "--to", "second-" + tenant.email, "--code").strip()
    assert code == api.mailed_code("second-" + tenant.email)
    listed = ok("outbox", "--to", tenant.email)
    assert f"to {tenant.email}" in listed and "Postausgang GmbH" in listed
    assert pmctl("outbox", "--code").exit_code == 2  # a code needs its recipient
    missing = pmctl("outbox", "--to", "nobody-at-all@example.org", "--code")
    assert missing.exit_code == 1 and "No mail with a code" in missing.output


def test_request_log_batches_that_failed_are_replayed_from_the_failure_queue(tenant: Tenant) -> None:
    """WriteRequestLogs gave up on a batch: Lambda put its invocation record on the failure queue
    (the batch under requestPayload). The operator's replay stores its entries and empties the queue."""
    import boto3

    from chalicelib import config
    from chalicelib.store import requests
    from infra.lambda_check.events import subscription_event

    made = tenant.ok("apikeys.create", {"apiKey": {"agentName": "replayed-bot", "scopes": ["read"]}})["apiKey"]
    entry = {
        "kind": "requestLog",
        "tenantId": tenant.id,
        "keyId": made["id"],
        "data": {
            "at": "2026-11-27T03:00:00.000Z",
            "operation": "contacts",
            "method": "GET",
            "status": 200,
            "durationMs": 12.5,
            "channel": "rest",
            "requestId": f"req-{uuid.uuid4().hex}",
        },
    }
    payload = subscription_event(
        [json.dumps(entry)], "/aws/lambda/pm-api", "ApiLogGroupRequestLogSubscription", requests.LOG_FILTER
    )
    record = {
        "version": "1.0",
        "requestContext": {"condition": "RetriesExhausted", "approximateInvokeCount": 3},
        "requestPayload": payload,
        "responseContext": {"statusCode": 200, "functionError": "Unhandled"},
    }
    sqs = boto3.client("sqs", region_name=config.region(), endpoint_url=config.aws_endpoint_url())
    url = sqs.create_queue(QueueName=f"request-log-failures-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody=json.dumps(record))

    assert "replayed 1 batch(es), 1 request-log entries" in ok("requestlogs", "replay", "--queue-url", url)
    logged = tenant.get("apikeys.requests.list", {"apiKey": made["id"], "limit": 10, "offset": 0})["requests"]
    assert [(r["operation"], r["requestId"]) for r in logged] == [("contacts", entry["data"]["requestId"])]
    assert "Messages" not in sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0)
