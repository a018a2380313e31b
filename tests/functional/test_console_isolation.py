"""No console page or action reaches another tenant's data (issue 19): the isolation properties,
extended to the console's routes. Tenant A builds a world (one live entity of every type, a
webhook, keys, audit records, a colleague); B's owner, signed in, then calls every route the console
declares, every captured path segment filled with each of A's ids in turn, GETs and POSTs alike.
No page B gets names an id of A that B did not send itself, or A's marker, and afterwards
everything A can see is as it was.

The routes are read from the console's route table, so a page added later is covered without
touching this test."""

from __future__ import annotations

import itertools
import re
import uuid
from collections import Counter
from typing import Any

import pytest

from chalicelib.console import web
from chalicelib.console.app import load_pages
from chalicelib.console.pages import data as data_pages
from chalicelib.entities import ENTITY_TYPES
from chalicelib.ids import looks_like_id, prefix_of
from chalicelib.store import keys, members
from tests.client import Api, Tenant
from tests.console_client import invite, owner_of
from tests.oauth_flow import approve, exchange
from tests.world import World

ID = re.compile(r"\b[a-z]{2,6}_[0-9A-HJKMNP-TV-Z]{26}\b")


def _ids_in(value: Any) -> set[str]:
    return {token for token in ID.findall(str(value)) if looks_like_id(token)}


def _snapshot(tenant: Tenant) -> dict[str, Any]:
    """What A sees of itself, through REST (lists of everything the console could change)."""
    page = {"limit": 1000, "offset": 0}
    return {
        # when a key was last used changes with the snapshot's own calls (written once a minute)
        "keys": [
            {k: v for k, v in key.items() if k not in ("lastUsedAt", "lastUsedIp")}
            for key in tenant.get("apikeys.list", page)["apiKeys"]
        ],
        "webhooks": tenant.get("webhooks.list", page)["webhooks"],
        "contacts": tenant.get("contacts", page)["contacts"],
        "objects": tenant.get("objects")["objects"],
        "audit": len(tenant.get("audit.list", page)["auditRecords"]),
    }


def _path(route: web.Route, values: dict[str, str]) -> str:
    path = route.pattern.pattern.strip("^$")
    for name in route.pattern.groupindex:
        path = re.sub(rf"\(\?P<{name}>[^)]*\)", values[name], path)
    return path


# The kind of id each named route segment takes, by the id's prefix. A route with a segment not
# named here fails the walk: say which ids it takes, so that they (and only they) reach it.
SEGMENT_PREFIXES = {
    "tenant": "ten",
    "key": "key",
    "webhook": "whk",
    "member": "mem",
    "record": "aud",
    "grant": "grt",
    "sandbox": "ten",
}


def _fills(route: web.Route, a_ids: set[str]) -> list[dict[str, str]]:
    """Every way to fill the route's segments with A's ids of the kind each segment takes (a data
    page: each of its types with A's ids of that type)."""
    names = list(route.pattern.groupindex)
    if names == ["plural", "id"]:
        return [
            {"plural": plural, "id": entity_id}
            for plural, dtype in data_pages.TYPES.items()
            for entity_id in sorted(a_ids)
            if prefix_of(entity_id) == ENTITY_TYPES[dtype.key].prefix
        ]
    if names == ["plural"]:
        return [{"plural": plural} for plural in data_pages.TYPES]
    unknown = [name for name in names if name not in SEGMENT_PREFIXES]
    assert not unknown, f"{route.pattern.pattern}: which ids does {unknown} take? (SEGMENT_PREFIXES)"
    choices = [[i for i in sorted(a_ids) if prefix_of(i) == SEGMENT_PREFIXES[name]] for name in names]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*choices)]


def _team(tenant: Tenant) -> list[dict[str, Any]]:
    return sorted((members.wire(item) for item in members.of_tenant(tenant.id)), key=lambda m: m["id"])


@pytest.mark.slow
def test_no_console_route_reaches_another_tenants_data(
    stack: Any, api: Api, tenant: Tenant, other_tenant: Tenant
) -> None:
    marker = f"Geheim-{uuid.uuid4().hex[:8]}"
    world = World(tenant)
    world.build()
    contact = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": marker}})["contact"]
    webhook = tenant.ok(
        "webhooks.create", {"name": marker, "url": "https://example.org/hook", "events": ["contact.created"]}
    )
    agent_key = tenant.new_key(["read", "write"], agent=f"agent-{marker}")
    tenant.ok("contacts.update", {"contact": {"id": contact["id"], "firstName": marker}}, key=agent_key)
    a_owner = owner_of(tenant)
    invite(a_owner, f"colleague-{uuid.uuid4().hex[:8]}@example.org", "admin")
    assert stack.poller.wait_idle(15)  # every audit record of A's doings is written before the snapshot
    audit = tenant.get("audit.list", {"limit": 1000, "offset": 0})["auditRecords"]
    a_ids = set(world.ids.values()) | {contact["id"], tenant.id} | _ids_in(webhook) | _ids_in(audit)
    a_ids |= _ids_in(tenant.get("apikeys.list", {"limit": 100, "offset": 0}))
    a_ids |= set(re.findall(r"/console/members/([A-Za-z0-9_]+)/", a_owner.get("/members").html))
    # an agent connected by OAuth (a grant is listed once its code is redeemed): its grant's console routes
    assert exchange(api, approve(api, tenant, a_owner, ["read"])).status == 200
    a_ids |= set(re.findall(r"/console/keys/oauth/([A-Za-z0-9_]+)/revoke", a_owner.get("/keys").html))
    assert a_owner.post("/sandboxes", {"name": f"Sandbox {marker}", "seed": "empty"}).status == 303
    a_ids |= set(re.findall(r"/console/sandboxes/([A-Za-z0-9_]+)/reset", a_owner.get("/sandboxes").html))
    before, team_before = _snapshot(tenant), _team(tenant)

    b_owner = owner_of(other_tenant)
    load_pages()
    seen: list[tuple[str, str, int]] = []
    routes = sorted(web.ROUTES, key=lambda route: route.pattern.pattern.startswith("^/signout"))  # those last
    for route in routes:
        fills = _fills(route, a_ids) if route.pattern.groupindex else [{}]
        assert fills, f"no id of A reaches {route.pattern.pattern}"
        for values in fills:
            path = _path(route, values)
            form = {"email": f"x-{uuid.uuid4().hex[:6]}@example.org", "role": "viewer", "dryRun": "true"}
            form |= {name: value for name, value in values.items()}
            page = b_owner.get(path) if route.method == "GET" else b_owner.post(path, form)
            seen.append((route.method, path, page.status))
            # an id B sent may come back in a refusal ("no apiKey with id ..."): B knew it already
            leaked = {token for token in a_ids - set(values.values()) if token in page.html}
            assert not leaked and marker not in page.html, (route.method, path, page.status, leaked)
    walked = {(method, path.split("/")[1]) for method, path, _ in seen}
    assert walked >= {("POST", "members"), ("POST", "keys"), ("POST", "webhooks"), ("POST", "switch")}, walked
    assert all(
        status != 303 or method == "POST" for method, _, status in seen[: -len(["/signout", "/signout/everywhere"])]
    ), "B was signed out mid-walk"
    statuses = Counter(status for _, _, status in seen)
    assert statuses[429] == 0 and statuses[404] > 100, statuses  # every route was reached, and refused
    assert stack.poller.wait_idle(15)
    assert _snapshot(tenant) == before
    assert _team(tenant) == team_before, "B changed A's team"
    assert [s["id"] for s in keys.sandboxes_of(tenant.id)] == sorted(
        i for i in a_ids if i != tenant.id and i.startswith("ten_")
    ), "B reset or deleted A's sandbox"
    assert tenant.get("info")["tenant"]["id"] == tenant.id  # A's first key still works
