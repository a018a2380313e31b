"""Sandbox tenants (issue 36): a tenant marked `sandbox` (info and tenant say so), with no trial and no
plan, whose keys start `pm_sandbox_` and work on it alone, owned in the console by the person who
asked for it, and seeded with the demo company (or left empty)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from chalicelib import dispatch, registry
from chalicelib.context import CallContext
from chalicelib.sandbox import reset as resetting
from chalicelib.sandbox import seed as seeding
from chalicelib.store import keys, members
from chalicelib.store.model import Transaction

EMPTY = seeding.EMPTY
DEFAULT_SEED = "demo"
FIRST_AGENT = "sandbox"


def create(
    company: str, email: str, seed: str = DEFAULT_SEED, *, owner_name: str = "", channel: str = "operator"
) -> tuple[dict[str, Any], dict[str, Any], str]:
    """A new sandbox owned by `email` (a console member, owner), its first key (every scope) and that
    key's secret (shown once), planted with the demo company of `seed` unless it is `empty`."""
    tenant_id = keys.new_tenant_id()

    def owner(tx: Transaction, changed_by: dict[str, Any]) -> None:
        members.add_owner(tx, tenant_id, email, owner_name, changed_by)

    tenant, key, secret = keys.create_tenant(
        company, email, FIRST_AGENT, dt.timedelta(0), tenant_id=tenant_id, also=owner, refused_by={}, sandbox_seed=seed
    )
    seeding.plant(seeding.seeder(tenant_id, str(key["id"]), channel), seed)
    return tenant, key, secret


def reset(ctx: CallContext) -> dict[str, int]:
    """The sandbox of `ctx` (a person of its console, or the operator) back to its seed."""
    return resetting.reset(ctx, keys.sandbox_seed(ctx.tenant_id))


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
