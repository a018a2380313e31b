"""An OAuth grant lives as long as the person who approved it may give what it grants (issue 51):
a refresh needs the approver to be an active member still and caps the scopes to what their role
allows now; removing a member revokes their grants, a role change narrows them (point 2). Revoking a
grant disables what was made through it: the keys its tokens created, down the chain, and their
webhooks (point 4). A refresh with a narrower `scope` mints a key of only those (point 9)."""

from __future__ import annotations

import re
import uuid
from typing import Any

from chalicelib.store import grant_reach
from tests.client import Api, Tenant
from tests.console_client import Person, invite, owner_of
from tests.oauth_flow import REST, approve, exchange, token


def _member_id(owner: Person, email: str) -> str:
    """The member id in the team table's row of `email` (its forms' actions name it)."""
    row = next(row for row in owner.get("/members").html.split("<tr>") if f"<td>{email}</td>" in row)
    return row.split('action="/console/members/', 1)[1].split("/", 1)[0]


def _refresh(api: Api, tokens: dict[str, Any], approved: dict[str, Any], **extra: str) -> Any:
    return token(
        api,
        grant_type="refresh_token",
        refresh_token=tokens["refresh_token"],
        client_id=approved["client_id"],
        **extra,
    )


def _made_key(api: Api, key: str, scopes: list[str]) -> str:
    made = api.command(
        "apikeys.create", {"apiKey": {"agentName": f"made-{uuid.uuid4().hex[:8]}", "scopes": scopes}}, key=key
    )
    assert made.status == 200, made.body
    return str(made.body["apiKey"]["key"])


def _made_hook(api: Api, key: str, events: list[str]) -> str:
    made = api.command("webhooks.create", {"name": "h", "url": "https://host.example.org/h", "events": events}, key=key)
    assert made.status == 200, made.body
    return str(made.body["webhook"]["id"])


def _colleague(owner: Person, role: str) -> tuple[Person, str]:
    email = f"{role}-{uuid.uuid4().hex[:8]}@example.org"
    return invite(owner, email, role), email


def test_a_removed_approvers_grant_ends_and_refreshes_no_more(api: Api, tenant: Tenant, stack: Any) -> None:
    owner = owner_of(tenant)
    admin, email = _colleague(owner, "admin")
    approved = approve(api, tenant, admin, ["read", "write:contacts"], resource=REST)
    tokens = exchange(api, approved, resource=REST).body
    assert api.query("info", key=tokens["access_token"]).status == 200

    grant_id = re.search(r'action="/console/keys/oauth/([^/"]+)/revoke"', owner.get("/keys").html)
    assert grant_id is not None
    assert owner.post(f"/members/{_member_id(owner, email)}/remove").status == 303
    assert api.query("info", key=tokens["access_token"]).status == 401, "the grant's key ends with its approver"
    refreshed = _refresh(api, tokens, approved)
    assert refreshed.status == 400 and refreshed.body["error"] == "invalid_grant", refreshed.body
    assert stack.poller.wait_idle(15), "the change stream did not catch up"
    trail = tenant.get("audit.list", {"entityId": grant_id.group(1), "limit": 10, "offset": 0})["auditRecords"]
    assert trail[-1]["after"]["data"]["revokedReason"] == grant_reach.APPROVER_GONE


def test_a_grant_refreshes_only_while_its_approver_is_a_member(api: Api, tenant: Tenant) -> None:
    """The approver gone without the console's removal reaching the grant (a grant made before this
    rule, a removal that failed half-way): the refresh itself asks."""
    owner = owner_of(tenant)
    admin, email = _colleague(owner, "admin")
    approved = approve(api, tenant, admin, ["read"], resource=REST)
    tokens = exchange(api, approved, resource=REST).body
    from chalicelib.store import members

    item = members.get(email, tenant.id)
    assert item is not None
    members.remove(item, {"keyId": "mem_test", "agentName": "test", "channel": "console"})  # the bare removal
    refreshed = _refresh(api, tokens, approved)
    assert refreshed.status == 400 and refreshed.body["error"] == "invalid_grant", refreshed.body
    assert api.query("info", key=tokens["access_token"]).status == 401, "and the grant is revoked"


def test_a_demoted_admins_grant_keeps_only_what_a_viewer_may_give(api: Api, tenant: Tenant, stack: Any) -> None:
    owner = owner_of(tenant)
    admin, email = _colleague(owner, "admin")
    approved = approve(api, tenant, admin, ["admin", "read", "write"], resource=REST)
    tokens = exchange(api, approved, resource=REST).body
    access = tokens["access_token"]
    assert api.query("apikeys.list", {"limit": 10, "offset": 0}, key=access).status == 200
    # made through the grant: what a viewer's grant may hold stays, what holds more goes
    reader = _made_key(api, access, ["read"])
    hooker = _made_key(api, access, ["read", "write:webhooks"])
    reading_hook = _made_hook(api, hooker, ["contact.created"])  # hears what `read` reads
    account_hook = _made_hook(api, access, ["*"])  # an admin key's: hears the account's records too

    assert owner.post(f"/members/{_member_id(owner, email)}/role", {"role": "viewer"}).status == 303
    assert api.query("info", key=access).status == 401, "the wider key ends at once"
    assert api.query("info", key=hooker).status == 401, "a key made through it holding more than read"
    assert api.query("info", key=reader).status == 200, "a key made through it holding read only"
    assert tenant.get("webhooks.show", {"webhook": reading_hook})["webhook"]["enabled"] is True
    assert tenant.get("webhooks.show", {"webhook": account_hook})["webhook"]["enabled"] is False
    renewed = _refresh(api, tokens, approved)
    assert renewed.status == 200, renewed.body
    assert renewed.body["scope"] == "read"
    narrow = renewed.body["access_token"]
    assert api.query("info", key=narrow).status == 200
    assert api.query("apikeys.list", {"limit": 10, "offset": 0}, key=narrow).status == 403
    created = api.command("contacts.create", {"contact": {"lastName": "X", "personType": "natural"}}, key=narrow)
    assert created.status == 403
    page = owner.get("/keys")
    listed = page.text()
    assert "admin" not in re.sub(r"\s+", " ", listed.split("Claude Desktop", 1)[1])[:200], "the grant shows read"
    grant_id = re.search(r'action="/console/keys/oauth/([^/"]+)/revoke"', page.html)
    assert grant_id is not None
    assert stack.poller.wait_idle(15), "the change stream did not catch up"
    trail = tenant.get("audit.list", {"entityId": grant_id.group(1), "limit": 10, "offset": 0})["auditRecords"]
    narrowed = trail[-1]
    assert (narrowed["operation"], narrowed["changedFields"]) == ("console.members.role", ["scopes"]), narrowed
    assert narrowed["actor"]["keyId"].startswith("mem_"), "the owner who changed the role"


def test_a_refresh_asking_for_fewer_scopes_gets_a_key_of_only_those(api: Api, tenant: Tenant) -> None:
    approved = approve(api, tenant, owner_of(tenant), ["read", "write:contacts"], resource=REST)
    tokens = exchange(api, approved, resource=REST).body
    renewed = _refresh(api, tokens, approved, scope="read")
    assert renewed.status == 200 and renewed.body["scope"] == "read", renewed.body
    created = api.command(
        "contacts.create", {"contact": {"lastName": "X", "personType": "natural"}}, key=renewed.body["access_token"]
    )
    assert created.status == 403, "write:contacts was not asked for"


def test_revoking_a_grant_disables_the_keys_and_webhooks_made_through_it(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    own_hook = _made_hook(api, tenant.key, ["contact.created"])  # the owner's own, made first: not the grant's
    approved = approve(api, tenant, owner, ["admin", "read", "write"], resource=REST)
    access = exchange(api, approved, resource=REST).body["access_token"]
    made = api.command(
        "apikeys.create", {"apiKey": {"agentName": "made-by-host", "scopes": ["read", "write", "admin"]}}, key=access
    )
    assert made.status == 200, made.body
    child = made.body["apiKey"]["key"]
    grandchild_answer = api.command(
        "apikeys.create", {"apiKey": {"agentName": "made-by-child", "scopes": ["read"]}}, key=child
    )
    grandchild = grandchild_answer.body["apiKey"]["key"]
    hook_answer = api.command(
        "webhooks.create",
        {"name": "host", "url": "https://host.example.org/hook", "events": ["contact.created"]},
        key=access,
    )
    assert hook_answer.status == 200, hook_answer.body
    hook = hook_answer.body["webhook"]
    hook_by_child = api.command(
        "webhooks.create",
        {"name": "child", "url": "https://host.example.org/hook2", "events": ["contact.created"]},
        key=child,
    ).body["webhook"]
    paused = _made_hook(api, child, ["contact.created"])
    tenant.ok("webhooks.update", {"webhook": {"id": paused, "enabled": False}})  # a person paused it before
    page = owner.get("/keys")
    grant_id = re.search(r'action="/console/keys/oauth/([^/"]+)/revoke"', page.html)
    assert grant_id is not None
    assert owner.post(f"/keys/oauth/{grant_id.group(1)}/revoke").status == 303

    assert tenant.get("webhooks.show", {"webhook": own_hook})["webhook"]["enabled"] is True
    assert "disabledReason" not in tenant.get("webhooks.show", {"webhook": paused})["webhook"], "left as it was"
    for key in (access, child, grandchild):
        assert api.query("info", key=key).status == 401
    for made_hook in (hook, hook_by_child):
        shown = tenant.get("webhooks.show", {"webhook": made_hook["id"]})["webhook"]
        assert shown["enabled"] is False, shown
        assert shown["disabledReason"] == "the OAuth grant it was made through ended", shown
    other = tenant.get("apikeys.show", {"apiKey": tenant.signup_answer["apiKey"]["id"]})["apiKey"]
    assert other["disabled"] is False, "the owner's own key is not the grant's"
