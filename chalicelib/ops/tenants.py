"""What the operator reads about a tenant: its record, its keys and connected integrations
(every tenant: store/tenants.py)."""

from __future__ import annotations

from typing import Any

from chalicelib import clock
from chalicelib.store import integrations, keys
from chalicelib.store.tenants import key_records


def key_counts(tenant_id: str) -> dict[str, int]:
    now = clock.now_iso()
    counts = {"total": 0, "active": 0, "disabled": 0, "expired": 0, "ofIntegrations": 0}
    for data in key_records(tenant_id):
        counts["total"] += 1
        if data.get("integrationId"):
            counts["ofIntegrations"] += 1
        if data.get("disabled"):
            counts["disabled"] += 1
        elif data.get("expiresAt") and data["expiresAt"] <= now:
            counts["expired"] += 1
        else:
            counts["active"] += 1
    return counts


def show(tenant_id: str) -> dict[str, Any]:
    """The tenant's record (plan, trial end), how many keys it has, its integrations."""
    tenant = keys.tenant_wire(keys.get_tenant(tenant_id))
    connected = []
    for integration_id in integrations.integrations_of_tenant(tenant_id):
        record = integrations.get(integration_id)
        if record is not None:
            connected.append({"id": record["id"], "name": record["name"], "disabled": record["disabled"]})
    return {"tenant": tenant, "keys": key_counts(tenant_id), "integrations": connected}
