"""The lifecycle every creatable resource must go through over HTTP, with alias references:
create -> show -> list with its filters -> update -> delete -> show 404 -> restore -> show 200."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from tests.client import Tenant


@dataclass
class Lifecycle:
    type: str  # entity type, for the alias: "unit"
    arg: str  # singular argument/answer key: "unit"
    create: str  # "units.create"
    payload: dict[str, Any]
    show: str  # "units.show"
    list: str | None  # "units"
    plural: str  # answer key of the list: "units"
    update: str  # "units.update"
    changes: dict[str, Any]
    delete: str  # "units.delete"
    restore: str  # "units.restore"
    create_args: dict[str, Any] = field(default_factory=dict)  # other create arguments: {"object": "<alias>"}
    list_params: dict[str, Any] = field(default_factory=dict)  # filters that must find it
    paged: bool = True


def run_lifecycle(tenant: Tenant, spec: Lifecycle) -> dict[str, Any]:
    created = tenant.ok(spec.create, {spec.arg: spec.payload, **spec.create_args})[spec.arg]
    alias = f"{spec.type}-{uuid.uuid4().hex[:8]}"
    tenant.ok("aliases.upsert", {"entries": [{"alias": alias, "id": created["id"], "type": spec.type}]})

    shown = tenant.get(spec.show, {spec.arg: alias})[spec.arg]
    assert shown["id"] == created["id"] and shown["aliases"] == [alias]
    for name, value in spec.payload.items():
        assert shown[name] == value, (name, shown[name], value)

    if spec.list:
        params = {**spec.list_params, **({"limit": 100, "offset": 0} if spec.paged else {})}
        listed = tenant.get(spec.list, params)
        assert created["id"] in [e["id"] for e in listed[spec.plural]], (spec.list, params)
        if "pagination" in listed:
            assert listed["pagination"]["total"] >= 1

    updated = tenant.ok(spec.update, {spec.arg: {"id": alias, **spec.changes}})[spec.arg]
    for name, value in spec.changes.items():
        assert updated.get(name) == value, (name, updated.get(name), value)
    assert updated["version"] == shown["version"] + 1

    deleted = tenant.ok(spec.delete, {spec.arg: alias})["deleted"]
    assert deleted == {"type": spec.type, "id": created["id"], "deletedAt": deleted["deletedAt"]}
    assert tenant.query(spec.show, {spec.arg: alias}).status == 404
    assert tenant.query(spec.show, {spec.arg: created["id"]}).status == 404
    if spec.list:
        params = {**spec.list_params, **({"limit": 100, "offset": 0} if spec.paged else {})}
        assert created["id"] not in [e["id"] for e in tenant.get(spec.list, params)[spec.plural]]

    restored = tenant.ok(spec.restore, {spec.arg: alias})[spec.arg]
    assert restored["id"] == created["id"] and restored["aliases"] == [alias]
    assert tenant.get(spec.show, {spec.arg: created["id"]})[spec.arg]["id"] == created["id"]
    return restored
