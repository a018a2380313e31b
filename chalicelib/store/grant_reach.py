"""How long an OAuth grant lives and what ends with it (issue 51).

A grant holds what the person who approved it may give: while they are an active member, at most
the scopes their role allows now (members.ROLE_SCOPES). Every token request asks (approver_scopes);
removing a member ends their grants and a role change narrows them (follow_member), so nothing
waits for the next refresh.

A grant's tokens are keys, and such a key may make keys and webhooks of its own. What was made
through a grant is everything down that chain: the grant's access keys (`oauthGrantId`), the keys
any of them created (`createdByKeyId`), recursively, and the webhooks any of those created
(`ownChangesOf.keyId`). Ending a grant disables all of it; narrowing one disables what holds more
than the narrowed scopes. Both read the tenant's key records and webhooks once: rare, bounded by
the tenant's keys (live ones capped, config.max_live_keys) and webhooks (config.MAX_WEBHOOKS)."""

from __future__ import annotations

from typing import Any

from chalicelib.context import CallContext
from chalicelib.errors import NotFound
from chalicelib.scopes import hearable_areas, holds
from chalicelib.store import keys, members
from chalicelib.store import oauth as grants
from chalicelib.store import webhooks as webhook_store
from chalicelib.store.entity_reads import fetch_entities

WEBHOOK_REASON = "the OAuth grant it was made through ended"
APPROVER_GONE = "its approver is no longer a member of the company"  # a grant's revokedReason


def approver_scopes(tenant_id: str, grant: dict[str, Any]) -> list[str]:
    """The grant's scopes its approver may give now; [] when they are no longer an active member."""
    member = members.by_id(tenant_id, str((grant.get("approvedBy") or {}).get("keyId") or ""))
    if member is None or members.status(member) != members.ACTIVE:
        return []
    allowed = members.ROLE_SCOPES.get(str(member.data_dict().get("role")), frozenset())
    return [scope for scope in grant["scopes"] if holds(allowed, scope)]


def end(ctx: CallContext, grant_id: str, reason: str) -> dict[str, Any] | None:
    """Revoke the grant (an audited change by `ctx`) and disable what was made through it; its
    facts, None when it was not live."""
    revoked = grants.revoke_grant(ctx.tenant_id, grant_id, ctx.stamp(), reason)
    if revoked is not None:
        _disable_made(ctx, grant_id, keep=None)
    return revoked


def narrow(ctx: CallContext, grant: dict[str, Any], scopes: list[str]) -> None:
    """The grant holds only `scopes` (fewer than it did); what was made through it holding more
    is disabled (its live access key among them: the next refresh mints a narrowed one)."""
    if grants.narrow_grant(ctx.tenant_id, str(grant["id"]), scopes, ctx.stamp()):
        _disable_made(ctx, str(grant["id"]), keep=frozenset(scopes))


def follow_member(ctx: CallContext, member_id: str) -> None:
    """After a member's removal or role change: their grants ended or narrowed to what they may
    give now."""
    for grant in grants.grants_approved_by(ctx.tenant_id, member_id):
        scopes = approver_scopes(ctx.tenant_id, grant)
        if not scopes:
            end(ctx, str(grant["id"]), APPROVER_GONE)
        elif scopes != list(grant["scopes"]):
            narrow(ctx, grant, scopes)


def _disable_made(ctx: CallContext, grant_id: str, keep: frozenset[str] | None) -> None:
    """Disable the live keys and enabled webhooks made through the grant; with `keep`, only those
    holding more than it (a key: a scope `keep` does not hold; a webhook: an area it hears that
    `keep` may not)."""
    records = keys.key_records(ctx.tenant_id)
    made = {str(data["keyId"]) for data in records if data.get("oauthGrantId") == grant_id}
    while True:  # down the chain of creators
        more = {str(data["keyId"]) for data in records if data.get("createdByKeyId") in made} - made
        if not more:
            break
        made |= more
    live = [data for data in records if not data.get("disabled")]  # pragma: no mutate - saves disable_key's read
    for data in live:
        if data["keyId"] in made and (keep is None or not all(holds(keep, scope) for scope in data["scopes"])):
            _disable_key(ctx, str(data["keyId"]))
    audible = hearable_areas(keep) if keep is not None else frozenset()
    for hook in fetch_entities(webhook_store.live_webhook_keys(ctx.tenant_id)):
        data = hook.data_dict()
        if (data.get("ownChangesOf") or {}).get("keyId") not in made or not data.get("enabled", True):
            continue
        if keep is None or data.get("areas") is None or not set(data["areas"]) <= audible:
            webhook_store.disable(ctx.tenant_id, str(hook.id), WEBHOOK_REASON)


def _disable_key(ctx: CallContext, key_id: str) -> None:
    try:
        keys.disable_key(ctx, key_id)
    except NotFound:
        pass  # expired and gone meanwhile
