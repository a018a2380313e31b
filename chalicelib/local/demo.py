"""`make demo` (PM_DEMO=1 make serve): a first look that is not empty. The local service starts with
a sandbox of the demo company owned by demo@example.org (made once, kept in the local state; the
local sandbox worker fills it while the service already answers), and says how to sign in to it."""

from __future__ import annotations

from chalicelib import resources
from chalicelib.sandbox import jobs, lifecycle
from chalicelib.store import keys, members

DEMO_EMAIL = "demo@example.org"
DEMO_COMPANY = "Demo Hausverwaltung GmbH"


def ensure_demo_company() -> str:
    """The demo sandbox's id: the one demo@example.org owns already, else a new one (queued)."""
    resources.load_all()  # the sandbox is planted through the operations
    for membership in members.memberships(DEMO_EMAIL):
        found = keys.get_tenant(str(membership.tenantId))
        facts = found.data_dict()
        if facts.get("sandbox") and not found.deletedAt:
            if facts.get("sandboxState") != lifecycle.READY:
                # stopped while it was being filled: the local queue did not keep its job; the
                # upserts fill in what is missing and leave the rest unchanged
                jobs.enqueue(str(found.id), lifecycle.PLANT, {"agentName": "demo data", "channel": "operator"})
            return str(found.id)
    created, _key, _secret = lifecycle.create(DEMO_COMPANY, DEMO_EMAIL, owner_name="Demo", queued=True)
    return str(created["id"])


def banner(base: str, tenant_id: str) -> str:
    return f"""
Demo company ({DEMO_COMPANY}, a sandbox: {tenant_id}; filled with the demo data within about a minute):
  open {base}/console/signin and sign in as {DEMO_EMAIL}; the sign-in code is printed here.
"""
