"""API keys: format, hashing, lookup with a short per-Lambda cache, and scope checks.

A key is `pm_<env>_` + 30 random base62 characters + a 6-character CRC32 checksum, so
secret scanners can spot it and a mistyped key is refused without a database read.
Only the SHA-256 of a key is stored.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
import threading
import time
import zlib
from dataclasses import dataclass

from chalicelib import clock, config
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.errors import Forbidden, Unauthorized
from chalicelib.registry import AREAS, SCOPE_ADMIN, SCOPE_DESTRUCTIVE, SCOPE_READ, SCOPE_WRITE, Operation
from chalicelib.store.key_lookups import KeyFacts, key_facts

_BASE62 = string.digits + string.ascii_letters
_RANDOM_LENGTH = 30
_CHECKSUM_LENGTH = 6

ALL_SCOPES = (SCOPE_READ, SCOPE_WRITE, SCOPE_DESTRUCTIVE, SCOPE_ADMIN)
KEY_SCOPES = ALL_SCOPES + tuple(f"write:{area}" for area in AREAS)


def _base62(number: int, width: int) -> str:
    chars = []
    for _ in range(width):
        number, rest = divmod(number, 62)
        chars.append(_BASE62[rest])
    return "".join(reversed(chars))


def _checksum(body: str) -> str:
    return _base62(zlib.crc32(body.encode()), _CHECKSUM_LENGTH)


def new_secret() -> str:
    body = "".join(secrets.choice(_BASE62) for _ in range(_RANDOM_LENGTH))
    return f"pm_{config.key_environment()}_{body}{_checksum(body)}"


def well_formed(secret: str) -> bool:
    parts = secret.split("_")
    if len(parts) != 3 or parts[0] != "pm" or parts[1] not in ("live", "test"):
        return False
    tail = parts[2]
    if len(tail) != _RANDOM_LENGTH + _CHECKSUM_LENGTH or any(c not in _BASE62 for c in tail):
        return False
    return hmac.compare_digest(_checksum(tail[:_RANDOM_LENGTH]), tail[_RANDOM_LENGTH:])


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


# --- scopes -------------------------------------------------------------------------


def has_scope(scopes: frozenset[str], needed: str) -> bool:
    if needed.startswith("write:"):
        return SCOPE_WRITE in scopes or needed in scopes
    return needed in scopes


def allows(scopes: frozenset[str], op: Operation) -> bool:
    return all(has_scope(scopes, needed) for needed in op.required_scopes)


def authorise(ctx: CallContext, op: Operation) -> None:
    missing = [s for s in op.required_scopes if not has_scope(ctx.scopes, s)]
    if missing:
        raise Forbidden(
            f"This key lacks the scope {' and '.join(missing)} needed for {op.name}.",
            code=codes.MISSING_SCOPE,
            extra={"requiredScopes": list(op.required_scopes)},
        )


# --- lookup ---------------------------------------------------------------------------


@dataclass
class _Cached:
    facts: KeyFacts
    fetched: float
    last_used_written: float


_cache: dict[str, _Cached] = {}
_cache_lock = threading.Lock()


def forget_key(key_id: str) -> None:
    """Drop a key from this Lambda's cache (after disabling it here)."""
    with _cache_lock:
        for hashed in [h for h, c in _cache.items() if c.facts.get("keyId") == key_id]:
            del _cache[hashed]


def authenticate(header: str | None, *, request_id: str = "", source_ip: str | None = None) -> CallContext:
    if not header:
        raise Unauthorized("Send the header `Authorization: Bearer <API key>`.", code=codes.MISSING_KEY)
    if "," in header:  # how a repeated header arrives joined; no key holds a comma
        raise Unauthorized(
            "The request carries more than one Authorization value; send exactly one `Bearer <API key>`.",
            code=codes.INVALID_KEY,
        )
    scheme, _, secret = header.strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret:
        raise Unauthorized("The Authorization header must read `Bearer <API key>`.", code=codes.INVALID_KEY)
    if not well_formed(secret):
        raise Unauthorized("This is not a valid API key (format or checksum).", code=codes.INVALID_KEY)
    hashed = secret_hash(secret)
    facts = _facts(hashed)
    if facts.get("disabled"):
        raise Unauthorized("This API key has been disabled.", code=codes.KEY_DISABLED)
    expires = facts.get("expiresAt")
    if expires and expires <= clock.now_iso():
        raise Unauthorized("This API key has expired.", code=codes.KEY_EXPIRED)
    _touch(hashed, facts, source_ip)
    return CallContext(
        tenant_id=facts["tenantId"],
        key_id=facts["keyId"],
        agent_name=facts["agentName"],
        scopes=frozenset(facts["scopes"]),
        integration_id=facts.get("integrationId"),
        person_id=facts.get("personId"),
        request_id=request_id,
    )


def _facts(hashed: str) -> KeyFacts:
    now = time.monotonic()
    with _cache_lock:
        cached = _cache.get(hashed)
    if cached and now - cached.fetched < config.KEY_CACHE_SECONDS:
        return cached.facts
    facts = key_facts(hashed)
    if facts is None:
        raise Unauthorized("Unknown API key.", code=codes.INVALID_KEY)
    with _cache_lock:
        _cache[hashed] = _Cached(facts, now, cached.last_used_written if cached else 0.0)
    return facts


def _touch(hashed: str, facts: KeyFacts, source_ip: str | None) -> None:
    """Record last use at most once a minute per key and Lambda, so a read stays one call."""
    now = time.monotonic()
    with _cache_lock:
        cached = _cache.get(hashed)
        if not cached or now - cached.last_used_written < config.LAST_USED_RESOLUTION_SECONDS:
            return
        cached.last_used_written = now
    from chalicelib.store import (  # cycle: store.keys imports auth at import to evict its cache
        # (known: store.keys -> auth)
        keys,
    )

    keys.record_use(facts["tenantId"], facts["keyId"], clock.now_iso(), source_ip)
