"""Sandboxes are held to their company's account (issue 51, 5): an owner makes at most
PM_SANDBOXES_PER_COMPANY sandboxes (3) at once in the console, creates and resets them at most
PM_SANDBOX_CHANGE_LIMIT times a day, makes and resets none once the company's trial is over (and a
sandbox's keys are refused then, as the company's are), and a sandbox's calls and invitations count
against the company's own limits: each sandbox is a full tenant, which would otherwise multiply
every per-tenant limit and send invitations under a name its maker typed."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from typing import Any

import pytest
from click.testing import CliRunner

from chalicelib import account, clock, config, throttle
from chalicelib.ops.pmctl import cli
from chalicelib.sandbox import lifecycle
from chalicelib.store import keys
from tests.client import Tenant, inside_one_window
from tests.console_client import Person, owner_of
from tests.eventually import eventually


def _pmctl(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def _create(owner: Person, name: str) -> Any:
    return owner.post("/sandboxes", {"name": name, "seed": "empty"})


def _ids(owner: Person) -> list[str]:
    return re.findall(r"/console/sandboxes/([A-Za-z0-9_]+)/reset", owner.get("/sandboxes").html)


def _ready(sandbox_id: str) -> None:
    eventually(
        lambda: keys.get_tenant(sandbox_id).data_dict().get("sandboxState") == lifecycle.READY,
        message="the sandbox worker planted the empty sandbox",
    )


def _sandbox_key(tenant: Tenant) -> tuple[str, str]:
    """A sandbox of the tenant's company (as its console makes one) and its first key's secret."""
    email = f"sandbox-{uuid.uuid4().hex[:8]}@example.org"
    made, _key, secret = lifecycle.create(
        "Spielwiese", email, lifecycle.EMPTY, channel="console", parent_tenant_id=tenant.id
    )
    return str(made["id"]), secret


def test_a_company_holds_at_most_three_sandboxes_and_a_deleted_one_frees_its_place(tenant: Tenant) -> None:
    owner = owner_of(tenant)
    assert [_create(owner, f"Probe {n}").status for n in range(3)] == [303, 303, 303]
    refused = _create(owner, "Probe 4")
    assert refused.status == 409, refused.text()
    assert "Your company has 3 sandboxes already, as many as it may (3)" in refused.text()
    held = _ids(owner)
    assert len(held) == 3 and len(keys.sandboxes_of(tenant.id)) == 3
    _ready(held[0])
    assert owner.post(f"/sandboxes/{held[0]}/delete").status == 303
    assert _create(owner, "Probe 5").status == 303, "a deleted sandbox frees its place"
    assert len(keys.sandboxes_of(tenant.id)) == 3
    assert _create(owner, "Probe 6").status == 409
    assert config.max_sandboxes() == config.MAX_SANDBOXES == 3  # the documented default


def test_the_cap_is_a_setting_and_the_operators_sandboxes_are_no_companys(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PM_SANDBOXES_PER_COMPANY", "1")
    owner = owner_of(tenant)
    assert _create(owner, "Eine").status == 303
    assert "Your company has 1 sandboxes already, as many as it may (1)" in _create(owner, "Zweite").text()
    email = f"op-{uuid.uuid4().hex[:8]}@example.org"  # pmctl's sandboxes belong to no company's console
    made = _pmctl("sandbox", "create", "--company", "Operator HV", "--email", email, "--seed", "empty")
    assert '"sandbox": true' in made


def test_sandbox_creations_and_resets_count_per_day(tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PM_SANDBOX_CHANGE_LIMIT", "3/600")  # 3 per 10 minutes, as an operator sets it
    inside_one_window(600, 60)
    owner = owner_of(tenant)
    assert _create(owner, "Probe").status == 303  # 1
    (sandbox_id,) = _ids(owner)
    _ready(sandbox_id)
    assert owner.post(f"/sandboxes/{sandbox_id}/reset").status == 303  # 2
    _ready(sandbox_id)
    assert owner.post(f"/sandboxes/{sandbox_id}/reset").status == 303  # 3
    _ready(sandbox_id)
    refused = owner.post(f"/sandboxes/{sandbox_id}/reset")
    assert refused.status == 429, refused.text()
    assert "created and reset as many sandboxes today as it may" in refused.text()
    assert _create(owner, "Noch eine").status == 429
    assert len(keys.sandboxes_of(tenant.id)) == 1
    assert owner.post(f"/sandboxes/{sandbox_id}/delete").status == 303, "deleting is never limited"
    monkeypatch.delenv("PM_SANDBOX_CHANGE_LIMIT")
    assert config.sandbox_change_limit() == (config.SANDBOX_CHANGE_LIMIT, 24 * 3600) == (10, 86400)


def test_a_creation_refused_at_the_cap_uses_none_of_the_days_changes(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cap is checked before a change of the day is counted (company_account.admit_creation):
    a company at its cap that tries again keeps its changes for the resets it needs."""
    monkeypatch.setenv("PM_SANDBOXES_PER_COMPANY", "1")
    monkeypatch.setenv("PM_SANDBOX_CHANGE_LIMIT", "2/600")
    inside_one_window(600, 60)
    owner = owner_of(tenant)
    assert _create(owner, "Die eine").status == 303  # change 1
    (sandbox_id,) = _ids(owner)
    assert _create(owner, "Noch eine").status == 409  # at the cap: no change counted
    _ready(sandbox_id)
    assert owner.post(f"/sandboxes/{sandbox_id}/reset").status == 303  # change 2
    _ready(sandbox_id)
    assert owner.post(f"/sandboxes/{sandbox_id}/reset").status == 429


def test_after_the_trial_the_company_makes_no_sandbox_and_its_sandboxes_keys_are_refused(tenant: Tenant) -> None:
    sandbox_id, secret = _sandbox_key(tenant)
    assert tenant.api.query("info", key=secret).status == 200
    owner = owner_of(tenant)
    ended = clock.iso(clock.now() - dt.timedelta(hours=1))
    _pmctl("tenants", "set-plan", tenant.id, "--trial-ends-at", ended)
    try:
        refused = tenant.api.query("info", key=secret)
        assert refused.status == 403 and refused.body["code"] == "trial_ended", refused.body
        assert refused.body["trialEndsAt"] == ended
        created = _create(owner, "Nach dem Test")
        assert created.status == 403, created.text()
        assert len(keys.sandboxes_of(tenant.id)) == 1
        assert owner.post(f"/sandboxes/{sandbox_id}/reset").status == 403
    finally:
        _pmctl("tenants", "set-plan", tenant.id)  # the enterprise plan: access returns at once
    assert tenant.api.query("info", key=secret).status == 200


def test_a_sandboxs_calls_count_against_its_companys_tenant_limit(tenant: Tenant, other_tenant: Tenant) -> None:
    """The company's keys and its sandbox's keys together get the company's quota, no more."""
    _sandbox_id, secret = _sandbox_key(tenant)
    throttle.reset()
    _pmctl("tenants", "throttle", tenant.id, "--per-tenant", "0.05/4")  # 4 per 80 s for all its keys
    try:
        inside_one_window(80, 10)
        statuses = [tenant.query("objects", key=key).status for key in (tenant.key, secret, tenant.key, secret)]
        assert statuses == [200, 200, 200, 200]
        refused = tenant.query("objects", key=secret)
        assert (refused.status, refused.body["code"]) == (429, "tenant_throttled"), refused.body
        assert refused.headers["ratelimit-policy"] == '"tenant";q=4;w=80'
        assert tenant.query("objects").status == 429, "the sandbox spent the company's quota"
        assert other_tenant.query("objects").status == 200
    finally:
        _pmctl("tenants", "throttle", tenant.id, "--reset")
        account.forget_tenant(tenant.id)
        throttle.reset()


def test_a_sandboxs_invitations_count_against_its_companys(tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PM_INVITE_LIMIT", "2/600")  # 2 per 10 minutes
    inside_one_window(600, 30)
    owner = owner_of(tenant)
    assert _create(owner, "Probe").status == 303
    (sandbox_id,) = _ids(owner)
    for n in range(2):
        invited = owner.post("/members", {"email": f"kollege{n}.{uuid.uuid4().hex[:6]}@example.org", "role": "viewer"})
        assert invited.status == 303, invited.text()
    assert owner.post(f"/switch/{sandbox_id}").status == 303
    assert "Sandbox" in owner.get("/").text()
    refused = owner.post("/members", {"email": f"fremd.{uuid.uuid4().hex[:6]}@example.org", "role": "viewer"})
    assert refused.status == 429, "the sandbox sent an invitation on a budget of its own"
