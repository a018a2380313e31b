"""What a tenant's account allows right now: the trial and the throttle, checked on every
authenticated call (REST and MCP) from a short per-instance cache of the tenant record."""

from __future__ import annotations

import threading
import time
from typing import Any

from chalicelib import clock, config, throttle
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.errors import Forbidden, Throttled, Unauthorized
from chalicelib.store import evictions, integrations, keys

TENANT_CACHE_SECONDS = 10.0

_cache: dict[str, tuple[float, dict[str, Any]]] = {}  # "tenant:<id>" / "integration:<id>" -> (read at, facts)
_lock = threading.Lock()


def _cached(name: str, read: Any) -> dict[str, Any]:
    now = time.monotonic()
    with _lock:
        cached = _cache.get(name)
    if cached and now - cached[0] < TENANT_CACHE_SECONDS:
        return cached[1]
    facts = read()
    with _lock:
        _cache[name] = (now, facts)
    return facts


def tenant_facts(tenant_id: str) -> dict[str, Any]:
    """The tenant record's data (plan, trial end, throttle), read at most every 10 s."""
    return _cached(f"tenant:{tenant_id}", lambda: keys.get_tenant(tenant_id).data_dict())


def _integration_facts(integration_id: str) -> dict[str, Any]:
    return _cached(f"integration:{integration_id}", lambda: integrations.get(integration_id) or {"disabled": True})


def forget_tenant(tenant_id: str) -> None:
    """Drop a tenant from this instance's cache (after the operator changed it here)."""
    with _lock:
        _cache.pop(f"tenant:{tenant_id}", None)


evictions.on_tenant_changed(forget_tenant)


def accountable(tenant_id: str) -> str:
    """The tenant whose trial and limits a tenant's calls and invitations count against: for a
    sandbox made in a company's console, that company (its parent); else the tenant itself. A
    sandbox is a full tenant: counted on its own, each would be one more tenant's quota."""
    return str(tenant_facts(tenant_id).get("parentTenantId") or tenant_id)


def refuse_ended_trial(tenant_id: str) -> None:
    """403 `trial_ended` when the free trial of the tenant (of a sandbox: of its company) is over."""
    facts = tenant_facts(accountable(tenant_id))
    trial_end = facts.get("trialEndsAt")
    if trial_end and clock.now_iso() >= trial_end:
        raise Forbidden(
            f"The free trial of {facts.get('companyName', 'this account')} ended on {trial_end[:10]}. "
            "Your data is kept, unchanged. "
            f"To continue with the enterprise plan, write to {config.sales_contact()}; "
            "access returns as soon as the plan is active.",
            code=codes.TRIAL_ENDED,
            extra={"trialEndsAt": trial_end},
        )


def _throttle_of(tenant_id: str, company_id: str) -> dict[str, Any] | None:
    """The throttle settings a call counts against: the tenant's own; for a sandbox its company's,
    where the sandbox's own per-key and per-operation settings (the operator's) take precedence."""
    own = tenant_facts(tenant_id).get("throttle")
    if company_id == tenant_id:
        return own if isinstance(own, dict) else None
    company = tenant_facts(company_id).get("throttle")
    merged = {**(company if isinstance(company, dict) else {})}
    merged |= {name: spec for name, spec in (own if isinstance(own, dict) else {}).items() if name != "perTenant"}
    return merged or None


def admit(ctx: CallContext, operation: str, *, weight: int = 1) -> None:
    """Refuse the call when the key's integration is disabled (401), the trial has ended (403
    `trial_ended`) or the key, or its tenant's keys together, are over their safety throttle
    (429); the data stays untouched. A sandbox made in a company's console is held to that
    company's trial and tenant-wide limit (accountable). A call of `weight` counts as that many calls: a domain tool
    run through MCP (each step of a pipeline) counts as a call of its own, as over REST (the MCP
    request that runs it counted once already), and each JMESPath expression evaluated with it
    (its `$expr`s, its `transform` or `_transform`) as one more. What the limits have left goes
    to the answer of the call's request (throttle.watch: its RateLimit fields)."""
    if ctx.integration_id and _integration_facts(ctx.integration_id).get("disabled"):
        # disabling an integration disables its keys one by one; this closes the window
        # in which one of them (or one it was minting just then) could still be used
        raise Unauthorized("The integration this key belongs to has been disabled.", code=codes.INTEGRATION_DISABLED)
    refuse_ended_trial(ctx.tenant_id)
    company = accountable(ctx.tenant_id)  # a sandbox's calls count against its company's limits
    throttle.take(
        company,
        ctx.key_id,
        operation,
        _throttle_of(ctx.tenant_id, company),
        weight=weight,
        request_id=ctx.request_id,
    )


def charge(ctx: CallContext, weight: int) -> None:
    """Count `weight` more calls for an admitted call that read more than a call does (a page of a
    key limited to objects counts its judging reads: events/feed.py, events/audit.py), against the
    limits `admit` counted it on. The call itself is answered (its reads are made); a window
    this fills refuses the calls that follow (429)."""
    if weight <= 0 or not ctx.key_id:
        return
    company = accountable(ctx.tenant_id)
    try:
        throttle.take(
            company,
            ctx.key_id,
            ctx.operation or "",
            _throttle_of(ctx.tenant_id, company),
            weight=weight,
            request_id=ctx.request_id,
        )
    except Throttled:  # full already: the next call is refused
        return


def admit_anonymous(operation: str, source_ip: str | None) -> None:
    """An unauthenticated command (the sign-up's two steps), from whichever face, counts
    against its source address's limit (429)."""
    throttle.take_anonymous(source_ip, operation)
