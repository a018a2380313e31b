"""Sends what is due: the oldest pending delivery of each entity per webhook, claimed so
two dispatchers never send the same attempt. In AWS a scheduled function runs it (and the
stream handler after each batch); locally a thread of `make serve` runs the same loop."""

from __future__ import annotations

import threading
from typing import Any

from chalicelib import clock
from chalicelib.events import deliveries, sender
from chalicelib.log import logger
from chalicelib.store.entities import entity_pk
from chalicelib.store.model import ENTITY_SK, Item


def run_due(limit: int = 100) -> int:
    """One pass: send every due delivery that is first in line; answers how many went out."""
    sent = 0
    hooks: dict[str, Any] = {}
    for item in deliveries.due(clock.now_iso(), limit):
        if not deliveries.first_in_line(item) or not deliveries.claim(item):
            continue
        tenant_id, webhook_id = item.tenantId or "", item.id or ""
        key = f"{tenant_id}#{webhook_id}"
        if key not in hooks:
            hooks[key] = _webhook(tenant_id, webhook_id)
        hook = hooks[key]
        data = item.data_dict()
        if hook is None:
            deliveries.settle(item, {"statusCode": 410, "error": "the webhook was deleted or disabled"})
            continue
        outcome = sender.send(hook["url"], data["payload"], data["eventId"], hook["secret"], hook.get("authorizationHeader"))
        deliveries.settle(item, outcome)
        sent += 1
    return sent


def _webhook(tenant_id: str, webhook_id: str) -> dict[str, Any] | None:
    try:
        item = Item.get(entity_pk(tenant_id, webhook_id), ENTITY_SK, consistent_read=True)
    except Item.DoesNotExist:
        return None
    data = item.data_dict()
    if item.deletedAt or not data.get("enabled", True):
        return None
    return {**data, **sender.secrets_of(tenant_id, webhook_id)}


class DispatcherThread(threading.Thread):
    def __init__(self, interval: float = 0.05) -> None:
        super().__init__(daemon=True, name="webhook-dispatcher")
        self.interval = interval
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                busy = run_due() > 0
            except Exception:  # noqa: BLE001 - the deliveries stay due; try again
                logger.exception("webhook dispatch failed")
                busy = False
            if not busy:
                self.stopping.wait(self.interval)

    def stop(self) -> None:
        self.stopping.set()
