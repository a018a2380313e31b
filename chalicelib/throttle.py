"""The per-key safety throttle: token buckets per key (all its calls) and, where a tenant
configures one, per key and operation. The interface promises no fixed quotas; this only
stops a runaway agent from flooding the service.

Buckets live in the serving instance's memory (a Lambda container, `make serve`): the limit
holds per instance, which is what a safety throttle needs; account-wide quotas belong to API
Gateway usage plans. A refused call answers 429 with `Retry-After` and the `RateLimit-Policy`
and `RateLimit` fields of the IETF draft (draft-ietf-httpapi-ratelimit-headers)."""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from chalicelib.errors import Throttled

# Documented defaults: every key may make 100 calls a second, 200 at once; no per-operation
# limits unless a tenant sets them (pmctl tenants throttle).
DEFAULT_RATE = 100.0
DEFAULT_BURST = 200


@dataclass(frozen=True)
class Limit:
    name: str  # "key" or the operation's name
    rate: float  # tokens per second
    burst: int  # bucket size

    @property
    def window(self) -> int:
        return max(1, math.ceil(self.burst / self.rate))


@dataclass
class _Bucket:
    tokens: float
    updated: float


_buckets: dict[tuple[str, str], _Bucket] = {}
_lock = threading.Lock()


def _default() -> Limit | None:
    rate = float(os.environ.get("PM_THROTTLE_RATE", DEFAULT_RATE))
    burst = int(os.environ.get("PM_THROTTLE_BURST", DEFAULT_BURST))
    return Limit("key", rate, burst) if rate > 0 and burst > 0 else None


def _limit(name: str, spec: Any) -> Limit | None:
    if not isinstance(spec, dict):
        return None
    rate, burst = float(spec.get("rate", 0)), int(spec.get("burst", 0) or spec.get("rate", 0))
    return Limit(name, rate, max(burst, 1)) if rate > 0 else None


def limits(tenant_config: dict[str, Any] | None, operation: str, *, overall: bool = True) -> list[Limit]:
    """The limits a call of `operation` counts against: the key's overall limit (the tenant's
    `perKey`, else the default; `{"rate": 0}` turns it off) and the operation's, if set."""
    config = tenant_config or {}
    found = [_limit("key", config["perKey"]) if "perKey" in config else _default()] if overall else []
    found.append(_limit(operation, (config.get("operations") or {}).get(operation)))
    return [limit for limit in found if limit is not None]


def take(key_id: str, operation: str, tenant_config: dict[str, Any] | None, *, overall: bool = True) -> None:
    """Spend one token of every applicable bucket, or refuse with 429 (spending none).
    `overall` False counts only the operation's own limit (a tool run inside an MCP request,
    which counted against the key's overall limit already)."""
    applicable = limits(tenant_config, operation, overall=overall)
    if not applicable:
        return
    now = time.monotonic()
    with _lock:
        buckets = [(limit, _refilled(key_id, limit, now)) for limit in applicable]
        for limit, bucket in buckets:
            if bucket.tokens < 1:
                wait = (1 - bucket.tokens) / limit.rate
                raise Throttled(
                    f"Too many requests for this key ({limit.name} limit: {limit.rate:g} per second, {limit.burst} at once). Retry after {math.ceil(wait)} s.",
                    code="throttled",
                    headers={
                        "Retry-After": str(math.ceil(wait)),
                        "RateLimit-Policy": f'"{limit.name}";q={limit.burst};w={limit.window}',
                        "RateLimit": f'"{limit.name}";r=0;t={math.ceil(wait)}',
                    },
                )
        for _, bucket in buckets:
            bucket.tokens -= 1


def _refilled(key_id: str, limit: Limit, now: float) -> _Bucket:
    bucket = _buckets.get((key_id, limit.name))
    if bucket is None:
        bucket = _buckets[(key_id, limit.name)] = _Bucket(float(limit.burst), now)
    bucket.tokens = min(float(limit.burst), bucket.tokens + (now - bucket.updated) * limit.rate)
    bucket.updated = now
    return bucket


def reset() -> None:
    """Forget every bucket (tests)."""
    with _lock:
        _buckets.clear()
