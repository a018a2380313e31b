"""Sends what is due: the oldest pending delivery of each entity per webhook, claimed so
two dispatchers never send the same attempt. In AWS a scheduled function runs it (and the
stream handler after each batch); locally a thread of `make serve` runs the same loop."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from chalicelib import clock
from chalicelib.events import deliveries, sender
from chalicelib.log import logger
from chalicelib.store.entities import entity_pk
from chalicelib.store.model import ENTITY_SK, Item

SENDERS = 16  # deliveries in flight at once: one slow receiver does not hold up the others
_pool: ThreadPoolExecutor | None = None
_in_flight: set[Future[None]] = set()
_flight_lock = threading.Lock()


def run_due(limit: int = 100) -> int:
    """One pass: start sending every due delivery that is first in line, in parallel, and
    answer how many were started. The pass does not wait for them: a receiver that takes
    the whole timeout holds up only its own deliveries, not the next pass (a delivery in
    flight stays claimed, so no pass sends it twice). `drain` waits for them."""
    global _pool
    _pool = _pool or ThreadPoolExecutor(max_workers=SENDERS, thread_name_prefix="webhook-send")
    hooks: dict[str, Any] = {}
    started = 0
    for item in deliveries.due(clock.now_iso(), limit):
        if not deliveries.first_in_line(item) or not deliveries.claim(item):
            continue
        key = f"{item.tenantId}#{item.id}"
        if key not in hooks:
            hooks[key] = _webhook(item.tenantId or "", item.id or "")
        job = _pool.submit(_send_one, item, hooks[key])
        with _flight_lock:
            _in_flight.add(job)
        job.add_done_callback(_landed)
        started += 1
    return started


def _landed(job: Future[None]) -> None:
    with _flight_lock:
        _in_flight.discard(job)
    error = job.exception()
    if error is not None:  # not settled: the claim runs out and the delivery is sent again
        logger.error("webhook send failed", exc_info=error)


def drain(timeout: float) -> None:
    """Wait (at most `timeout` seconds) for the sends in flight: the scheduled function
    does before it returns, or they would be frozen mid-send."""
    with _flight_lock:
        pending = list(_in_flight)
    wait(pending, timeout=timeout)


def _send_one(item: Item, hook: dict[str, Any] | None) -> None:
    if hook is None:
        deliveries.settle(item, {"statusCode": 410, "error": "the webhook was deleted or disabled"})
        return
    data = item.data_dict()
    outcome = sender.send(hook["url"], data["payload"], data["eventId"], hook["secret"], hook.get("authorizationHeader"))
    deliveries.settle(item, outcome)


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
    """The local dispatcher: sends what is due, then sleeps until a delivery made in this
    process is due (deliveries.hint_due) or, at the latest, `interval` seconds (for claims
    that expired: locally every delivery is made in this process)."""

    def __init__(self, interval: float = 5.0) -> None:
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
                deliveries.wait_until_due(self.interval, self.stopping)

    def stop(self) -> None:
        self.stopping.set()
