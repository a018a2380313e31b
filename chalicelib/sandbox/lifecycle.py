"""Sandbox tenants (issue 36): a tenant marked `sandbox` (info and tenant say so), with no trial and no
plan, whose keys start `pm_sandbox_` and work on it alone, owned in the console by the person who
asked for it, and seeded with the demo company (or left empty)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from chalicelib import config, dispatch, registry
from chalicelib.context import CallContext
from chalicelib.sandbox import company_account, jobs
from chalicelib.sandbox import reset as resetting
from chalicelib.sandbox import seed as seeding
from chalicelib.scopes import ALL_SCOPES
from chalicelib.store import keys, members
from chalicelib.store.model import Transaction

EMPTY = seeding.EMPTY
DEFAULT_SEED = "demo"
FIRST_AGENT = "sandbox"
PLANT, RESET = "plant", "reset"  # the sandbox worker's jobs (sandbox/jobs.py)
PLANTING, RESETTING, READY, FAILED = "planting", "resetting", "ready", "failed"  # a sandbox's state


def create(
    company: str,
    email: str,
    seed: str = DEFAULT_SEED,
    *,
    owner_name: str = "",
    channel: str = "operator",
    parent_tenant_id: str | None = None,
    queued: bool = False,
) -> tuple[dict[str, Any], dict[str, Any], str]:
    """A new sandbox owned by `email` (a console member, owner), its first key (every scope) and that
    key's secret (shown once), planted with the demo company of `seed` (nothing for `empty`): here and
    now (the operator's CLI), or `queued` for the sandbox worker (the console: planting outlasts a
    request). `parent_tenant_id` lists it among that company's sandboxes in the console and holds it
    to the company's account: its trial (403 `trial_ended`), its cap of sandboxes (409
    `sandbox_limit_reached`) and its sandbox changes per day (429 `sandbox_changes_throttled`)."""
    tenant_id = keys.new_tenant_id()
    cap = company_account.admit_creation(parent_tenant_id) if parent_tenant_id else config.max_sandboxes()

    def owner(tx: Transaction, changed_by: dict[str, Any]) -> None:
        members.add_owner(tx, tenant_id, email, owner_name, changed_by)
        if parent_tenant_id:
            keys.hold_sandbox(tx, parent_tenant_id, tenant_id, cap)

    tenant, key, secret = keys.create_tenant(
        company,
        email,
        FIRST_AGENT,
        dt.timedelta(0),
        tenant_id=tenant_id,
        also=owner,
        # another creation took the last place meanwhile
        refused_by={keys.SANDBOX_CAP: lambda: company_account.limit_reached(cap, cap)},
        sandbox_seed=seed,
        sandbox_parent=parent_tenant_id,
        sandbox_state=PLANTING,
    )
    seeder = seeding.seeder(tenant_id, str(key["id"]), channel)
    if queued:
        jobs.enqueue(tenant_id, PLANT, seeder.stamp())
    else:
        run_job(tenant_id, PLANT, seeder.stamp())
    return {**tenant, "sandboxState": keys.get_tenant(tenant_id).data_dict().get("sandboxState")}, key, secret


def run_job(tenant_id: str, action: str, stamp: dict[str, Any]) -> dict[str, int]:
    """Plant or reset a sandbox as the one who asked (`stamp`: the audit trail's actor), its state
    `ready` afterwards, `failed` (with what failed) when it raised (the queue then retries it: both
    jobs may run again, the upserts changing nothing twice)."""
    ctx = CallContext(
        tenant_id=tenant_id,
        key_id=str(stamp.get("keyId") or ""),
        agent_name=str(stamp.get("agentName") or seeding.SEED_AGENT),
        scopes=frozenset(ALL_SCOPES),
        channel=str(stamp.get("channel") or "operator"),
    )
    try:
        if action == PLANT:
            done = seeding.plant(ctx, keys.sandbox_seed(tenant_id)).counts
        else:
            done = resetting.reset(ctx, keys.sandbox_seed(tenant_id))
    except Exception as failed:
        keys.set_sandbox_state(tenant_id, FAILED, f"{type(failed).__name__}: {failed}"[:500])
        raise
    keys.set_sandbox_state(tenant_id, READY)
    return done


def reset(ctx: CallContext, *, queued: bool = False, parent_tenant_id: str | None = None) -> dict[str, int]:
    """The sandbox of `ctx` (a person of its console, or the operator) back to its seed: here and now,
    or `queued` for the worker (then the counts are empty and the state says `resetting`). Asked for
    by the people of `parent_tenant_id` (the console), it is held to that company's trial and counts
    against its sandbox changes per day, as a creation does."""
    keys.sandbox_seed(ctx.tenant_id)  # 404 unless a live sandbox
    if parent_tenant_id:
        company_account.admit_reset(parent_tenant_id)
    keys.set_sandbox_state(ctx.tenant_id, RESETTING)
    if queued:
        jobs.enqueue(ctx.tenant_id, RESET, ctx.stamp())
        return {}
    return run_job(ctx.tenant_id, RESET, ctx.stamp())


def delete(ctx: CallContext) -> None:
    """The sandbox of `ctx` ends: its keys disabled (401 at once), its webhooks deleted, its people
    out of its team, the tenant marked deleted. Its data stays stored, unreachable."""
    keys.sandbox_seed(ctx.tenant_id)  # 404 unless a live sandbox
    for key in keys.list_keys(ctx, 1000, 0)[0]:
        if not key["disabled"]:
            keys.disable_key(ctx, key["id"])
    hooks = dispatch.run(registry.REGISTRY["webhooks.list"], ctx, {"limit": 1000, "offset": 0})
    for hook in hooks["webhooks"]:
        dispatch.run(registry.REGISTRY["webhooks.delete"], ctx, {"webhook": hook["id"]})
    for member in members.of_tenant(ctx.tenant_id):
        members.remove(member, ctx.stamp())
    keys.close_sandbox(ctx.tenant_id, ctx.stamp())
