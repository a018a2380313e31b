"""The account's own changes are audit records like any other (issue 16, finding 9): sign-up,
API keys created and disabled, plan and throttle changes by the operator, each with actor,
time and before/after (no secret, no hash of one), visible through audit.list, and never
reverted (a revert must not revive a disabled key). Before, none of them reached the trail."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from click.testing import CliRunner

from chalicelib.ops.pmctl import cli
from tests.client import Api, Tenant


@pytest.fixture()
def settled(stack: Any) -> Any:
    def wait() -> None:
        assert stack.poller.wait_idle(15), "the change stream did not catch up"

    return wait


def records_of(tenant: Tenant, entity_id: str) -> list[dict[str, Any]]:
    return list(tenant.get("audit.list", {"entityId": entity_id, "limit": 100, "offset": 0})["auditRecords"])


def test_sign_up_and_key_changes_are_audited(api: Api, settled: Any) -> None:
    tenant = api.signup(company="Audit Verwaltung GmbH")
    first_key = tenant.signup_answer["apiKey"]["id"]
    created = tenant.ok("apikeys.create", {"apiKey": {"agentName": "invoice-bot", "scopes": ["read"]}})["apiKey"]
    tenant.ok("apikeys.disable", {"apiKey": created["id"]})
    settled()

    (signup,) = records_of(tenant, tenant.id)
    assert (
        signup["entityType"] == "tenant" and signup["action"] == "created" and signup["operation"] == "signup.confirm"
    )
    assert signup["actor"]["keyId"] == first_key and signup["after"]["data"]["companyName"] == "Audit Verwaltung GmbH"

    made, disabled = records_of(tenant, created["id"])
    assert (made["action"], made["operation"], made["actor"]["keyId"]) == ("created", "apikeys.create", first_key)
    assert made["after"]["data"]["scopes"] == ["read"] and made["after"]["data"]["lookupPk"] == "[redacted]"
    assert (disabled["action"], disabled["operation"], disabled["changedFields"]) == (
        "updated",
        "apikeys.disable",
        ["disabled"],
    )
    text = json.dumps([signup, made, disabled])
    assert created["key"] not in text and created["key"][12:] not in text  # neither the secret nor its hidden part
    assert (
        tenant.get("audit.list", {"keyId": first_key, "operation": "apikeys.create", "limit": 10, "offset": 0})[
            "pagination"
        ]["total"]
        == 1
    )


def test_a_revert_never_revives_a_disabled_key(tenant: Tenant, settled: Any) -> None:
    created = tenant.ok("apikeys.create", {"apiKey": {"agentName": "import-bot", "scopes": ["read"]}})["apiKey"]
    tenant.ok("apikeys.disable", {"apiKey": created["id"]})
    settled()
    disabled = records_of(tenant, created["id"])[-1]
    refused = tenant.command("audit.revert", {"auditRecord": disabled["id"]})
    assert refused.status == 400 and refused.body["code"] == "not_revertible"
    skipped = tenant.ok("audit.revert", {"filter": {"entityId": created["id"]}})["skipped"]
    assert [s["code"] for s in skipped] == ["not_revertible"]
    assert tenant.query("info", key=created["key"]).status == 401  # still disabled


def test_the_operators_plan_and_throttle_changes_are_audited(tenant: Tenant, settled: Any) -> None:
    runner = CliRunner()
    for args in (
        ["tenants", "set-plan", tenant.id, "--plan", "business"],
        ["tenants", "throttle", tenant.id, "--per-key", "50/100"],
    ):
        result = runner.invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
    settled()
    changes = [r for r in records_of(tenant, tenant.id) if r["action"] == "updated"]
    assert [(r["operation"], r["channel"], r["actor"]["agentName"]) for r in changes] == [
        ("tenants.plan", "operator", "operator (pmctl)"),
        ("tenants.throttle", "operator", "operator (pmctl)"),
    ]
    assert changes[0]["after"]["data"]["plan"] == "business" and changes[1]["after"]["data"]["throttle"]["perKey"] == {
        "rate": 50,
        "burst": 100,
    }


def test_the_first_key_of_a_sign_up_is_its_own_actor_and_using_a_key_is_no_change(api: Api, settled: Any) -> None:
    tenant = api.signup(company="Nutzung Verwaltung GmbH")
    first_key = tenant.signup_answer["apiKey"]["id"]
    created = tenant.ok("apikeys.create", {"apiKey": {"agentName": "reader", "scopes": ["read"]}})["apiKey"]
    for key in (tenant.key, created["key"]):  # each use writes lastUsedAt on the key's record
        assert tenant.query("info", key=key).status == 200
    assert tenant.get("apikeys.list", {"limit": 10, "offset": 0})["apiKeys"][0]["lastUsedAt"]
    settled()

    (made,) = records_of(tenant, first_key)  # its creation only: a key's use is bookkeeping, not a change
    assert (made["action"], made["operation"], made["actor"]["keyId"]) == ("created", "signup.confirm", first_key)
    assert made["after"]["data"]["expiresAt"] and made["after"]["data"]["lookupPk"] == "[redacted]"
    assert [r["action"] for r in records_of(tenant, created["id"])] == ["created"]


def test_an_integrations_connection_keys_and_disabling_are_audited_in_the_tenant(tenant: Tenant, settled: Any) -> None:
    runner = CliRunner()

    def ok(*args: str) -> str:
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    name = f"Audit Sync {uuid.uuid4().hex[:8]}"
    integration = json.loads(
        ok("integrations", "create", "--name", name, "--contact", "ops@sync.example", "--scope", "read", "--json")
    )["integration"]
    ok("integrations", "connect", integration["id"], "--tenant", tenant.id)
    secret = ok(
        "keys", "issue", "--integration", integration["id"], "--tenant", tenant.id, "--agent", "sync", "--scope", "read"
    ).strip()
    assert tenant.query("info", key=secret).status == 200
    ok("integrations", "disable", integration["id"], "--yes")
    settled()

    connected, disabled = records_of(tenant, integration["id"])
    assert (connected["entityType"], connected["action"], connected["operation"]) == (
        "integration",
        "created",
        "pmctl.integrations.connect",
    )
    assert connected["after"]["data"] == {
        "name": name,
        "contact": "ops@sync.example",
        "allowedScopes": ["read"],
        "disabled": False,
    }
    assert (disabled["action"], disabled["operation"], disabled["changedFields"]) == (
        "updated",
        "pmctl.integrations.disable",
        ["disabled", "disabledAt"],
    )
    for record in (connected, disabled):
        assert (record["channel"], record["actor"]["agentName"]) == ("operator", "operator (pmctl)") and record["at"]

    (key_id,) = [
        k["id"]
        for k in tenant.get("apikeys.list", {"limit": 10, "offset": 0})["apiKeys"]
        if k["integrationId"] == integration["id"]
    ]
    issued, revoked = records_of(tenant, key_id)
    assert [(r["action"], r["operation"], r["channel"], r["actor"]["integrationId"]) for r in (issued, revoked)] == [
        ("created", "pmctl.keys.issue", "operator", integration["id"]),
        ("updated", "pmctl.integrations.disable", "operator", integration["id"]),
    ]
    assert secret not in json.dumps([issued, revoked]) and issued["after"]["data"]["lookupPk"] == "[redacted]"

    refused = tenant.command("audit.revert", {"auditRecord": disabled["id"]})
    assert refused.status == 400 and refused.body["code"] == "not_revertible"
    assert tenant.query("info", key=secret).status == 401


def test_a_keys_use_is_no_audit_record_and_account_changes_reach_no_webhook(tenant: Tenant, settled: Any) -> None:
    """Using a key stamps its lastUsedAt: bookkeeping, not a change (else every minute of use
    would write one). A webhook subscribed to every event gets entity events only."""
    created = tenant.ok("apikeys.create", {"apiKey": {"agentName": "reader", "scopes": ["read"]}})["apiKey"]
    hook = tenant.ok(
        "webhooks.create", {"name": "Alles", "url": "https://example.org/hooks/all", "events": ["*"], "enabled": True}
    )["webhook"]
    settled()
    before = records_of(tenant, created["id"])
    assert tenant.query("info", key=created["key"]).status == 200  # a first use is stamped at once (auth._touch)
    tenant.ok("apikeys.disable", {"apiKey": created["id"]})
    settled()
    assert [r["action"] for r in records_of(tenant, created["id"])] == [r["action"] for r in before] + ["updated"]
    assert tenant.get("apikeys.list", {"limit": 100, "offset": 0})["apiKeys"][-1]["lastUsedAt"]  # the use was stamped
    logged = tenant.get("webhooks.deliveries.list", {"webhook": hook["id"], "limit": 100, "offset": 0})["deliveries"]
    assert all(not d["eventType"].startswith(("apiKey.", "tenant.")) for d in logged), logged
