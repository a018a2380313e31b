"""Caches above the store (auth's key cache, account's tenant cache) hold records the store
changes; they subscribe here, and the store tells them after its write, so that this instance
never answers from what it just changed. The store knows no cache; a cache that is not loaded
has nothing to evict."""

from __future__ import annotations

from collections.abc import Callable

_key_listeners: list[Callable[[str], None]] = []
_tenant_listeners: list[Callable[[str], None]] = []


def on_key_changed(listener: Callable[[str], None]) -> None:
    _key_listeners.append(listener)


def on_tenant_changed(listener: Callable[[str], None]) -> None:
    _tenant_listeners.append(listener)


def key_changed(key_id: str) -> None:
    for listener in _key_listeners:
        listener(key_id)


def tenant_changed(tenant_id: str) -> None:
    for listener in _tenant_listeners:
        listener(tenant_id)
