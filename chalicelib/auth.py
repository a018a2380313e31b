"""API keys at the door: a request's key looked up (with a short per-Lambda cache) and its
scopes checked against the operation. The key format is keyformat.py's, the scope words
scopes.py's."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from chalicelib import clock, config
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.errors import Forbidden, Unauthorized
from chalicelib.keyformat import secret_hash, well_formed
from chalicelib.registry import Operation
from chalicelib.scopes import SCOPE_READ, meets
from chalicelib.store import evictions, keys
from chalicelib.store.key_lookups import KeyFacts, key_facts


def allows(scopes: frozenset[str], op: Operation, *, object_limited: bool = False) -> bool:
    """Whether a key of these scopes (limited to objects or not) may run the operation."""
    if object_limited and op.refused_to_object_keys:
        return False
    return all(meets(scopes, needed) for needed in op.required_scopes)


def authorise(ctx: CallContext, op: Operation) -> None:
    missing = [s for s in op.required_scopes if not meets(ctx.scopes, s)]
    if missing:
        named = ["a read scope (`read` or `read:<area>`)" if s == SCOPE_READ else s for s in missing]
        raise Forbidden(
            f"This key lacks the scope {' and '.join(named)} needed for {op.name}.",
            code=codes.MISSING_SCOPE,
            extra={"requiredScopes": list(op.required_scopes)},
        )
    if ctx.objects is not None and op.refused_to_object_keys:
        raise Forbidden(
            f"This key is limited to objects, and {op.name} is not open to such keys: {op.refused_to_object_keys}",
            code=codes.OUTSIDE_KEY_OBJECTS,
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


evictions.on_key_changed(forget_key)


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
        untrusted_text=facts.get("untrustedText") or "show",
        objects=frozenset(facts["objects"]) if "objects" in facts else None,
        audience=facts.get("audience"),
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
    keys.record_use(facts["tenantId"], facts["keyId"], clock.now_iso(), source_ip)
