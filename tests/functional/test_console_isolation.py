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

from chalicelib.console import web
from chalicelib.console.app import load_pages
from chalicelib.ids import looks_like_id
from tests.client import Api, Tenant
from tests.console_client import invite, owner_of
from tests.world import World

ID = re.compile(r"\b[a-z]{2,6}_[0-9A-HJKMNP-TV-Z]{26}\b")


def _ids_in(value: Any) -> set[str]:
    return {token for token in ID.findall(str(value)) if looks_like_id(token)}


def _snapshot(tenant: Tenant) -> dict[str, Any]:
    """What A sees of itself, through REST (lists of everything the console could change)."""
    page = {"limit": 1000, "offset": 0}
    return {
        "keys": tenant.get("apikeys.list", page)["apiKeys"],
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
    before = _snapshot(tenant)

    b_owner = owner_of(other_tenant)
    load_pages()
    seen: list[tuple[str, str, int]] = []
    for route in web.ROUTES:
        if (route.public and route.method == "POST") or route.pattern.pattern.startswith("^/signout"):
            continue  # sign-up and sign-in forms take no ids; signing B out would end the walk
        names = list(route.pattern.groupindex)
        fills = [dict(zip(names, combo, strict=True)) for combo in itertools.product(sorted(a_ids), repeat=len(names))]
        for values in fills[: 60 if names else 1]:
            path = _path(route, values)
            form = {"email": f"x-{uuid.uuid4().hex[:6]}@example.org", "role": "viewer", "dryRun": "true"}
            form |= {name: value for name, value in values.items()}
            page = b_owner.get(path) if route.method == "GET" else b_owner.post(path, form)
            seen.append((route.method, path, page.status))
            # an id B sent may come back in a refusal ("no apiKey with id ..."): B knew it already
            leaked = {token for token in a_ids - set(values.values()) if token in page.html}
            assert not leaked and marker not in page.html, (route.method, path, page.status, leaked)
    assert len(seen) > 50
    assert all(status != 303 or method == "POST" for method, _, status in seen), "B was signed out mid-walk"
    statuses = Counter(status for _, _, status in seen)
    assert statuses[429] == 0 and statuses[404] > 100, statuses  # every route was reached, and refused
    assert stack.poller.wait_idle(15)
    assert _snapshot(tenant) == before
    assert tenant.get("info")["tenant"]["id"] == tenant.id  # A's first key still works
