"""The safety limits, counted in the table so that every instance shares them: a Lambda
instance serves one request at a time, so a budget kept in its memory would never run out.
Every key has an overall limit (the documented default, or the tenant's `perKey`), and an
operation may have its own (`pmctl tenants throttle`). Above the keys, the tenant's keys
together have the tenant's limit (the default, or its `perTenant`): without it a tenant would
buy one more key's quota with every key it creates, and the stage's throttle, which every
tenant shares, would be the only limit left. A limit of `rate` calls a second with
`burst` at once allows `burst` calls per window of burst/rate seconds (store/rates.py: one
conditional write per limit and call, or per lease of several calls where the quota is large).
The interface promises no fixed quotas; this stops a runaway agent from flooding the service.
Anonymous commands (sign-up) are limited per source address the same way.

A refused call answers 429 with `Retry-After` and the `RateLimit-Policy` and `RateLimit`
fields of the IETF draft (draft-ietf-httpapi-ratelimit-headers). Once a window is full, this
instance refuses without a write until the window ends: a flood costs one write per window.

Every other answer of a key's call carries the two fields too (issue 52): the face `watch`es its
request, each limit the request's calls count against leaves its standing (what is left of its
window and when the window ends: store/rates.room), and `headers` names the nearest of them, the
one with the fewest calls left (then the later end). No limit in force, no fields."""

from __future__ import annotations

import hashlib
import ipaddress
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

from chalicelib import config
from chalicelib import error_codes as codes
from chalicelib.addresses import address_hash
from chalicelib.errors import Throttled
from chalicelib.store import confirmed_sources, rates

# Documented defaults: every key may make 100 calls a second, 200 at once; all keys of a tenant
# together three times that (well under the stage's 1,000 a second: no one tenant takes the stage
# from the others); no per-operation limits unless a tenant sets them (pmctl tenants throttle).
DEFAULT_RATE = 100.0
DEFAULT_BURST = 200
DEFAULT_TENANT_RATE = 300.0
DEFAULT_TENANT_BURST = 600


@dataclass(frozen=True)
class Limit:
    name: str  # "key", "tenant", the operation's name, or "signup" (per source address)
    rate: float  # calls per second
    burst: int  # calls per window
    seconds: int | None = None  # the window, where it is set rather than burst / rate
    tenant_wide: bool = False  # counted for all the tenant's keys together (not by name: a query is called "tenant")

    @property
    def window(self) -> int:
        return self.seconds or max(1, math.ceil(self.burst / self.rate))


@dataclass(frozen=True)
class Standing:
    """A limit as a call left it: `remaining` calls in its window, which ends in `reset` seconds."""

    limit: Limit
    remaining: int
    reset: int

    def fields(self) -> dict[str, str]:
        """The draft's two fields (draft-ietf-httpapi-ratelimit-headers-11, sections 3 and 4)."""
        name = self.limit.name
        return {
            "RateLimit-Policy": f'"{name}";q={self.limit.burst};w={self.limit.window}',
            "RateLimit": f'"{name}";r={self.remaining};t={self.reset}',
        }


_full: dict[tuple[str, int], float] = {}  # (subject, window) -> when that full window ends (time.time())
_lock = threading.Lock()
# The requests a face answers (request id -> each limit's latest standing by its subject); a
# request's calls may be admitted on other threads (an MCP request's tools), hence not a ContextVar.
_watched: dict[str, dict[str, Standing]] = {}
MAX_WATCHED = 1_000  # requests one instance answers at once, far beyond: past it, no more are watched


def watch(request_id: str) -> None:
    """Collect the standings of the limits `request_id`'s calls count against (a face, as it
    begins to answer the request; `headers` ends it)."""
    with _lock:
        if len(_watched) < MAX_WATCHED:
            _watched[request_id] = {}


def headers(request_id: str) -> dict[str, str]:
    """The RateLimit-Policy and RateLimit fields of the request's nearest limit (the fewest calls
    left, then the later end of its window), and stop watching it; none when no limit counted it."""
    with _lock:
        standings = _watched.pop(request_id, None)
    if not standings:
        return {}
    return min(standings.values(), key=lambda s: (s.remaining, -s.reset)).fields()


def _stand(request_id: str | None, subject: str, standing: Standing) -> None:
    if not request_id:
        return
    with _lock:
        watched = _watched.get(request_id)
        if watched is not None:
            watched[subject] = standing


def _default() -> Limit | None:
    rate, burst = config.throttle_default(DEFAULT_RATE, DEFAULT_BURST)
    return Limit("key", rate, burst) if rate > 0 and burst > 0 else None


def _tenant_default() -> Limit | None:
    rate, burst = config.tenant_throttle_default(DEFAULT_TENANT_RATE, DEFAULT_TENANT_BURST)
    return Limit("tenant", rate, burst, tenant_wide=True) if rate > 0 and burst > 0 else None


def _limit(name: str, spec: Any, *, tenant_wide: bool = False) -> Limit | None:
    if not isinstance(spec, dict):
        return None
    rate, burst = float(spec.get("rate", 0)), int(spec.get("burst", 0) or spec.get("rate", 0))
    return Limit(name, rate, max(burst, 1), tenant_wide=tenant_wide) if rate > 0 else None


def limits(tenant_config: dict[str, Any] | None, operation: str) -> list[Limit]:
    """The limits a call of `operation` counts against, narrowest first: the operation's own,
    if set; the key's overall limit (the tenant's `perKey`, else the default); the tenant's
    limit over all its keys (its `perTenant`, else the default). `{"rate": 0}` turns one off."""
    config_ = tenant_config or {}
    found = [_limit(operation, (config_.get("operations") or {}).get(operation))]
    found.append(_limit("key", config_["perKey"]) if "perKey" in config_ else _default())
    found.append(
        _limit("tenant", config_["perTenant"], tenant_wide=True) if "perTenant" in config_ else _tenant_default()
    )
    return [limit for limit in found if limit is not None]


def take(
    tenant_id: str,
    key_id: str,
    operation: str,
    tenant_config: dict[str, Any] | None,
    *,
    weight: int = 1,
    request_id: str | None = None,
) -> None:
    """Count a call of the key against every applicable limit, or refuse with 429: the
    tenant-wide one on `tenant_id`'s counter (a sandbox's calls on its company's:
    account.accountable). The
    narrower limits are counted first: a call refused by the key's overall limit has still used
    its operation's budget, one refused by the tenant's has used the key's. A call of `weight`
    counts as that many calls (an MCP tool call and the JMESPath expressions it evaluates), in
    the same writes. Each limit's standing is left for `request_id`'s answer (`watch`)."""
    for limit in limits(tenant_config, operation):
        if limit.tenant_wide:
            _spend(
                f"tenant#{tenant_id}",
                limit,
                what="this tenant's keys together",
                code=codes.TENANT_THROTTLED,
                weight=weight,
                request_id=request_id,
            )
        else:  # the key's overall limit ("key") and each operation's own, each a counter of the key's
            _spend(
                f"key#{key_id}#{limit.name}",
                limit,
                what="this key",
                weight=weight,
                request_id=request_id,
            )


# The OAuth authorization server's requests admitted per source address on their own limit
# (config.oauth_limit); every other anonymous command (sign-up, an OAuth client's registration) on
# the sign-up limit.
OAUTH_REQUESTS = ("oauth.authorize", "oauth.token")


def take_anonymous(source_ip: str | None, operation: str) -> None:
    """Count an anonymous command (sign-up; an OAuth authorize or token request) against its
    source address's limit for it (an IPv6 address by its /64: source_of), each operation on a
    budget of its own."""
    name, setting = (
        ("oauth", config.oauth_limit()) if operation in OAUTH_REQUESTS else ("signup", config.signup_limit())
    )
    _spend_per_window(f"source#{source_of(source_ip)}#{operation}", name, setting, "this source address")


def take_for_address(email: str, purpose: str, source: str | None) -> None:
    """Count a mail to `email` (a sign-up or sign-in code, an invitation) from `source` (the
    requester: a source address, or the inviting company, see `company_source`). Two limits:
    per address and source, so a stranger spends only their own budget and cannot lock the
    owner of the address out; and per address across sources, so no one floods a mailbox from
    many sources. A source that has redeemed a code of the address before passes the second
    (store/confirmed_sources.py). The narrower limit counts first: refused there, a request
    counts nothing against the address's total."""
    hashed, requester = address_hash(email)[:32], source_of(source)
    _spend_per_window(
        f"address#{hashed}#{purpose}#{hashlib.sha256(requester.encode()).hexdigest()[:32]}",
        "address",
        config.address_limit(),
        "this e-mail address from here",
    )
    total = config.address_total_limit()
    if total[0] > 0 and not confirmed_sources.confirmed(email, requester):
        _spend_per_window(f"address#{hashed}#{purpose}", "address_total", total, "this e-mail address")


def take_invitation(tenant_id: str) -> None:
    """Count an invitation the company sends against its own limit (config.invite_limit); a
    sandbox's invitations are its company's (pass account.accountable's tenant)."""
    _spend_per_window(f"tenant#{tenant_id}#invite", "invitations", config.invite_limit(), "this company's invitations")


def take_sandbox_change(tenant_id: str) -> None:
    """Count a sandbox the company creates or resets against its limit per day
    (config.sandbox_change_limit): each plants a company of data through the operations."""
    _spend_per_window(
        f"tenant#{tenant_id}#sandboxes",
        "sandboxes",
        config.sandbox_change_limit(),
        "this company's sandbox creations and resets",
        code=codes.SANDBOX_CHANGES_THROTTLED,
    )


def remember_confirmed(email: str, source: str | None) -> None:
    """`source` redeemed a code mailed to `email`: from now on it passes the address's total limit."""
    confirmed_sources.remember(email, source_of(source))


def company_source(tenant_id: str) -> str:
    """An invitation's requester, for take_for_address: the inviting company."""
    return f"tenant {tenant_id}"


def source_of(source: str | None) -> str:
    """A requester as the limits count it: an IPv6 address by its /64 (what one subscriber
    usually holds, so a stranger gains nothing by walking their own prefix), anything else as given."""
    if not source:
        return "unknown"
    try:
        ip = ipaddress.ip_address(source)
    except ValueError:
        return source
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _spend_per_window(
    subject: str, name: str, setting: tuple[int, int], what: str, *, code: codes.ErrorCode = codes.THROTTLED
) -> None:
    """A limit set as (count, window seconds); a count of 0 is off."""
    quota, window = setting
    if quota > 0:
        _spend(subject, Limit(name, quota / window, quota, window), what=what, code=code)


def _spend(
    subject: str,
    limit: Limit,
    *,
    what: str,
    code: codes.ErrorCode = codes.THROTTLED,
    weight: int = 1,
    request_id: str | None = None,
) -> None:
    now = time.time()
    with _lock:
        ends = _full.get((subject, limit.window))
    wait = (
        ends - now if ends is not None and ends > now else rates.spend(subject, limit.window, limit.burst, now, weight)
    )
    if wait is None:
        if request_id:
            window_ends = (int(now // limit.window) + 1) * limit.window
            left = rates.room(subject, limit.window, limit.burst, now)
            _stand(request_id, subject, Standing(limit, left, max(1, math.ceil(window_ends - now))))
        return
    with _lock:
        _full[(subject, limit.window)] = now + wait
        if len(_full) > 10_000:  # forget windows that ended
            for stale in [k for k, v in _full.items() if v <= now]:
                del _full[stale]
    seconds = math.ceil(wait)
    spent = Standing(limit, 0, seconds)
    _stand(request_id, subject, spent)  # a charge's refusal answers no 429 (account.charge): its answer says so
    raise Throttled(
        f"Too many requests for {what} ({limit.name} limit: {limit.burst} per {limit.window} s). "
        f"Retry after {seconds} s.",
        code=code,
        headers={"Retry-After": str(seconds), **spent.fields()},
    )


def reset() -> None:
    """Forget the windows this instance saw full and the leases it holds (tests change limits
    between calls)."""
    with _lock:
        _full.clear()
    rates.reset()
