"""What the operator reads about tenants: their records, keys and connected integrations."""

from __future__ import annotations

from typing import Any

from chalicelib import clock
from chalicelib.store import integrations, keys
from chalicelib.store.entities import fetch_entities
from chalicelib.store.model import INDEXES, Item


def list_all() -> list[dict[str, Any]]:
    """Every tenant, oldest first."""
    pks = [hit.pk for hit in INDEXES[1].query(keys.TENANTS_INDEX, attributes_to_get=["PK"])]
    found = Item.batch_get([(pk, keys.TENANT_SK) for pk in pks])
    return sorted((keys.tenant_wire(item) for item in found), key=lambda t: t["id"])


def key_counts(tenant_id: str) -> dict[str, int]:
    pks = [hit.pk for hit in INDEXES[1].query(f"{tenant_id}#{keys.API_KEY.name}", attributes_to_get=["PK"])]
    now = clock.now_iso()
    counts = {"total": 0, "active": 0, "disabled": 0, "expired": 0, "ofIntegrations": 0}
    for item in fetch_entities(pks):
        data = item.data_dict()
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
