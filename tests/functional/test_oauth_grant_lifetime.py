"""An OAuth grant lives as long as the person who approved it may give what it grants (issue 51):
a refresh needs the approver to be an active member still and caps the scopes to what their role
allows now; removing a member revokes their grants, a role change narrows them (point 2). Revoking a
grant disables what was made through it: the keys its tokens created, down the chain, and their
webhooks (point 4). A refresh with a narrower `scope` mints a key of only those (point 9)."""

from __future__ import annotations

import re
import uuid
from typing import Any

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


def _colleague(owner: Person, role: str) -> tuple[Person, str]:
    email = f"{role}-{uuid.uuid4().hex[:8]}@example.org"
    return invite(owner, email, role), email


def test_a_removed_approvers_grant_ends_and_refreshes_no_more(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    admin, email = _colleague(owner, "admin")
    approved = approve(api, tenant, admin, ["read", "write:contacts"], resource=REST)
    tokens = exchange(api, approved, resource=REST).body
    assert api.query("info", key=tokens["access_token"]).status == 200

    assert owner.post(f"/members/{_member_id(owner, email)}/remove").status == 303
    assert api.query("info", key=tokens["access_token"]).status == 401, "the grant's key ends with its approver"
    refreshed = _refresh(api, tokens, approved)
    assert refreshed.status == 400 and refreshed.body["error"] == "invalid_grant", refreshed.body


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


def test_a_demoted_admins_grant_keeps_only_what_a_viewer_may_give(api: Api, tenant: Tenant) -> None:
    owner = owner_of(tenant)
    admin, email = _colleague(owner, "admin")
    approved = approve(api, tenant, admin, ["admin", "read", "write:contacts"], resource=REST)
    tokens = exchange(api, approved, resource=REST).body
    assert api.query("apikeys.list", {"limit": 10, "offset": 0}, key=tokens["access_token"]).status == 200

    assert owner.post(f"/members/{_member_id(owner, email)}/role", {"role": "viewer"}).status == 303
    assert api.query("info", key=tokens["access_token"]).status == 401, "the wider key ends at once"
    renewed = _refresh(api, tokens, approved)
    assert renewed.status == 200, renewed.body
    assert renewed.body["scope"] == "read"
    narrow = renewed.body["access_token"]
    assert api.query("info", key=narrow).status == 200
    assert api.query("apikeys.list", {"limit": 10, "offset": 0}, key=narrow).status == 403
    created = api.command("contacts.create", {"contact": {"lastName": "X", "personType": "natural"}}, key=narrow)
    assert created.status == 403
    listed = owner.get("/keys").text()
    assert "admin" not in re.sub(r"\s+", " ", listed.split("Claude Desktop", 1)[1])[:200], "the grant shows read"


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
    page = owner.get("/keys")
    grant_id = re.search(r'action="/console/keys/oauth/([^/"]+)/revoke"', page.html)
    assert grant_id is not None
    assert owner.post(f"/keys/oauth/{grant_id.group(1)}/revoke").status == 303

    for key in (access, child, grandchild):
        assert api.query("info", key=key).status == 401
    for made_hook in (hook, hook_by_child):
        shown = tenant.get("webhooks.show", {"webhook": made_hook["id"]})["webhook"]
        assert shown["enabled"] is False, shown
    other = tenant.get("apikeys.show", {"apiKey": tenant.signup_answer["apiKey"]["id"]})["apiKey"]
    assert other["disabled"] is False, "the owner's own key is not the grant's"
