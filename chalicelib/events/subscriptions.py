"""The tenant's webhooks as the delivery side needs them, kept briefly per process: which
webhooks subscribe to what (the stream handler asks for every change), and where and how to
send (the delivery worker asks for every attempt). A webhook change seen in the stream, or
made in this process, drops the tenant's entries; elsewhere a change takes effect within
CACHE_SECONDS."""

from __future__ import annotations

import threading
import time
from typing import Any

from chalicelib.store import webhooks as webhook_store
from chalicelib.store.entities import fetch_entities

CACHE_SECONDS = 1.0
_lock = threading.Lock()
_subscribers: dict[str, tuple[float, list[dict[str, Any]]]] = {}
_targets: dict[tuple[str, str], tuple[float, dict[str, Any] | None]] = {}


def forget(tenant_id: str) -> None:
    with _lock:
        _subscribers.pop(tenant_id, None)
        for key in [k for k in _targets if k[0] == tenant_id]:
            _targets.pop(key, None)


def subscribers(tenant_id: str) -> list[dict[str, Any]]:
    """The tenant's enabled webhooks: id, subscribed events, the areas and the objects their events
    are limited to (None: a webhook of before areas, events/hearing.py; every object)."""
    with _lock:
        cached = _subscribers.get(tenant_id)
    if cached and time.monotonic() - cached[0] < CACHE_SECONDS:
        return cached[1]
    hooks = [
        {
            "id": h.id or "",
            "createdAt": str(h.createdAt or ""),
            "events": set(data.get("events", [])),
            "areas": frozenset(data["areas"]) if data.get("areas") is not None else None,
            "objects": _objects(data),
            "skipOwn": _own(data),
        }
        for h in fetch_entities(webhook_store.live_webhook_keys(tenant_id))
        if (data := h.data_dict()).get("enabled", True)
    ]
    with _lock:
        _subscribers[tenant_id] = (time.monotonic(), hooks)
    return hooks


def target(tenant_id: str, webhook_id: str) -> dict[str, Any] | None:
    """URL, secret and Authorization header of a live, enabled webhook; None otherwise."""
    key = (tenant_id, webhook_id)
    with _lock:
        cached = _targets.get(key)
    if cached and time.monotonic() - cached[0] < CACHE_SECONDS:
        return cached[1]
    found = webhook_store.delivery_target(tenant_id, webhook_id)
    with _lock:
        _targets[key] = (time.monotonic(), found)
    return found


def _own(data: dict[str, Any]) -> tuple[str, str] | None:
    """(actor field, value) of the changes a webhook that skips its own leaves out, else None."""
    if not data.get("skipOwnChanges"):
        return None
    owner = data.get("ownChangesOf") or {}
    if owner.get("integrationId"):
        return ("integrationId", owner["integrationId"])
    return ("keyId", owner.get("keyId") or "")


def _objects(data: dict[str, Any]) -> frozenset[str] | None:
    named = data.get("objects")
    return frozenset(named) if named is not None else None
