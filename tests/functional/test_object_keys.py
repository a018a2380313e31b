"""Keys limited to objects (issue 30, point 3): `apikeys.create` takes `objects`; such a key
reads and writes only the entities of those objects (README "Object-limited keys")."""

from __future__ import annotations

import uuid
from typing import Any

from tests.client import Tenant

PAGE = {"limit": 100, "offset": 0}


def _object(tenant: Tenant, name: str) -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": name, "type": "weg"}})["object"])


def _limited_key(tenant: Tenant, objects: list[str], scopes: list[str] | None = None) -> dict[str, Any]:
    body = tenant.ok(
        "apikeys.create",
        {
            "apiKey": {
                "agentName": f"vendor-{uuid.uuid4().hex[:8]}",
                "scopes": scopes or ["read", "write"],
                "objects": objects,
            }
        },
    )
    return dict(body["apiKey"])


# --- the key ------------------------------------------------------------------------------


def test_a_key_limited_to_objects_shows_them_resolved_to_ids(tenant: Tenant) -> None:
    a, b = _object(tenant, "WEG A"), _object(tenant, "WEG B")
    tenant.alias("weg-b", b["id"], "object")
    key = _limited_key(tenant, [a["id"], "weg-b", a["id"]])
    assert key["objects"] == sorted([a["id"], b["id"]])
    assert tenant.get("apikeys.show", {"apiKey": key["id"]})["apiKey"]["objects"] == sorted([a["id"], b["id"]])
    listed = {k["id"]: k for k in tenant.get("apikeys.list", PAGE)["apiKeys"]}
    assert listed[key["id"]]["objects"] == sorted([a["id"], b["id"]])
    assert listed[tenant.get("info")["key"]["id"]]["objects"] is None  # the sign-up's key: every object


def test_an_unknown_object_is_404_at_its_index(tenant: Tenant) -> None:
    a = _object(tenant, "WEG A")
    missing = "obj_01J0000000000000000000000Z"
    answer = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "vendor", "scopes": ["read"], "objects": [a["id"], missing]}}
    )
    assert answer.status == 404, answer.body
    assert answer.body["errors"][0]["path"] == "apiKey.objects[1]"
    unknown_alias = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "vendor", "scopes": ["read"], "objects": ["no-such-weg"]}}
    )
    assert unknown_alias.status == 404 and unknown_alias.body["errors"][0]["path"] == "apiKey.objects[0]"


def test_a_limited_key_creates_keys_only_within_its_objects(tenant: Tenant) -> None:
    a, b = _object(tenant, "WEG A"), _object(tenant, "WEG B")
    admin = _limited_key(tenant, [a["id"]], ["read", "write", "admin"])["key"]

    unlimited = tenant.command("apikeys.create", {"apiKey": {"agentName": "x", "scopes": ["read"]}}, key=admin)
    assert unlimited.status == 403 and unlimited.body["code"] == "scope_escalation", unlimited.body
    wider = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "x", "scopes": ["read"], "objects": [a["id"], b["id"]]}}, key=admin
    )
    assert wider.status == 403 and wider.body["code"] == "scope_escalation", wider.body
    assert b["id"] in wider.body["detail"]
    narrower = tenant.command(
        "apikeys.create", {"apiKey": {"agentName": "x", "scopes": ["read"], "objects": [a["id"]]}}, key=admin
    )
    assert narrower.status == 200 and narrower.body["apiKey"]["objects"] == [a["id"]]
