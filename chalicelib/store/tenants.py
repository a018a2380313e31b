"""The operator's reads across the account's records (pmctl): every tenant, and one tenant's API
key records. store/keys.py writes both and owns their layout."""

from __future__ import annotations

from typing import Any

from chalicelib.store.entities import fetch_entities, list_pk
from chalicelib.store.keys import API_KEY, TENANT_SK, TENANTS_INDEX, tenant_wire
from chalicelib.store.model import INDEXES, Item


def all_tenants() -> list[dict[str, Any]]:
    """Every tenant (as tenant_wire shows it), oldest first."""
    pks = [hit.pk for hit in INDEXES[1].query(TENANTS_INDEX, attributes_to_get=["PK"])]
    found = Item.batch_get([(pk, TENANT_SK) for pk in pks])
    return sorted((tenant_wire(item) for item in found), key=lambda t: t["id"])


def key_records(tenant_id: str) -> list[dict[str, Any]]:
    """The fields of every live API key of the tenant."""
    pks = [hit.pk for hit in INDEXES[1].query(list_pk(tenant_id, API_KEY.name), attributes_to_get=["PK"])]
    return [item.data_dict() for item in fetch_entities(pks)]
