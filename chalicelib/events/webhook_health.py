"""How much of the delivery fleet one webhook may take, and when it has failed long enough
to be switched off. Decided per webhook, on its health item (store/webhooks.py):

- At most MAX_IN_FLIGHT attempts of a webhook are in flight at once, each holding a lease
  that runs out by itself after the attempt's deadline. A receiver that tarpits therefore
  holds at most that many senders; with at most MAX_WEBHOOKS webhooks a tenant holds at most
  25 x 4 = 100, whatever it does, and the fleet has room beyond that for everybody else.
- A webhook whose last attempt failed rests before its next one: as long as it has been
  failing, at least REST_MIN_SECONDS and at most REST_MAX_SECONDS (longer if it answered a
  Retry-After, up to the cap). Its waiting deliveries stay in the queue meanwhile, costing
  nobody a sender.
- It is disabled when it has failed without a single success for DISABLE_AFTER (a
  `disabledReason` says so), or at once when the receiver answers 410 Gone."""

from __future__ import annotations

import datetime as dt
import random
import threading
import time
from dataclasses import dataclass

from chalicelib import clock, config
from chalicelib.events import sender
from chalicelib.events.deliveries import RETRY_AFTER_CAP_SECONDS
from chalicelib.events.sender import Outcome
from chalicelib.store import webhooks as store

DISABLE_AFTER = dt.timedelta(days=5)
REST_MIN_SECONDS = 5.0
REST_MAX_SECONDS = 3600.0
LEASE_SECONDS = sender.TIMEOUT_SECONDS + 5  # an attempt's deadline, and room to record it
BUSY_WAIT_MAX_SECONDS = 60.0
BUSY_MEMORY_SECONDS = 1.0  # how long this process assumes a webhook whose leases were all held stays so


class _Memory:
    """What this process has seen of its webhooks' state, so that a waiting delivery can be
    turned away without a read: until when a webhook rests (a success seen elsewhere ends a
    rest early; this process learns it when its rest is over), and until when its leases are
    held (at most BUSY_MEMORY_SECONDS, or until this process gives one back)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rests: dict[tuple[str, str], float] = {}
        self.busy: dict[tuple[str, str], float] = {}

    def note(self, table: dict[tuple[str, str], float], key: tuple[str, str], until: float | None) -> None:
        with self.lock:
            if until:
                table[key] = until
            else:
                table.pop(key, None)

    def left(self, table: dict[tuple[str, str], float], key: tuple[str, str]) -> float:
        with self.lock:
            return table.get(key, 0.0) - time.time()


_memory = _Memory()


def known_wait(tenant_id: str, webhook_id: str, *, deferred: int = 0) -> float | None:
    """How long a delivery waits that this process already knows cannot go now (its webhook
    rests, or all its leases are held); None if it does not know that."""
    key = (tenant_id, webhook_id)
    rest_left = _memory.left(_memory.rests, key)
    if rest_left > 0:
        return _spread(rest_left)
    if _memory.left(_memory.busy, key) > 0:
        return _busy_wait(deferred)
    return None


def _spread(left: float) -> float:
    """A turned-away delivery comes back after the rest, at a random moment within as long
    again: only MAX_IN_FLIGHT of a webhook's backlog can go at once, and the rest of it
    should not all ask at the same instant the rest ends."""
    return left * random.uniform(1.0, 2.0) + random.uniform(0, 0.5)


def _busy_wait(deferred: int) -> float:
    """Grows with how often the delivery was turned away, so a long backlog is not asked about
    in a loop."""
    return min(BUSY_WAIT_MAX_SECONDS, 2.0**deferred) * random.uniform(0.5, 1.5)


@dataclass(frozen=True)
class Admission:
    slot: int | None  # the lease held for this attempt; None: not now
    wait: float = 0.0  # when not admitted: seconds until it is worth asking again
    failing_since: str | None = None  # when the webhook's failures began (None: it is fine)


def admit(tenant_id: str, webhook_id: str, *, deferred: int = 0) -> Admission:
    """A lease for one attempt, or how long to wait: while the webhook rests, until the rest
    ends; while its leases are all held, a while that grows with `deferred` (how often this
    delivery has been turned away already). A healthy webhook's attempt costs one write
    here: a claim of a random slot that holds only if the slot is free and the webhook does
    not rest; the facts are read only when it is refused."""
    now = time.time()
    slot = random.randrange(store.MAX_IN_FLIGHT)  # concurrent workers seldom race for the same slot
    claimed = store.claim_lease(tenant_id, webhook_id, slot, now, now + LEASE_SECONDS)
    if claimed is not None:
        return Admission(slot, failing_since=claimed.get("failingSince"))
    health = store.health(tenant_id, webhook_id)
    rest_until = float(health.get("restUntil") or 0)
    if rest_until > now:
        _memory.note(_memory.rests, (tenant_id, webhook_id), rest_until)
        return Admission(None, _spread(rest_until - now))
    free = [n for n in range(store.MAX_IN_FLIGHT) if float(health.get(store.lease_slot(n)) or 0) < now]
    for slot in random.sample(free, min(2, len(free))):
        claimed = store.claim_lease(tenant_id, webhook_id, slot, now, now + LEASE_SECONDS)
        if claimed is not None:
            return Admission(slot, failing_since=claimed.get("failingSince"))
    _memory.note(_memory.busy, (tenant_id, webhook_id), now + BUSY_MEMORY_SECONDS)
    return Admission(None, _busy_wait(deferred))


def record(tenant_id: str, webhook_id: str, admission: Admission, outcome: Outcome) -> None:
    """Give the lease back and note the outcome; rest or disable the webhook if it failed."""
    slot = admission.slot
    _memory.note(_memory.busy, (tenant_id, webhook_id), None)  # a lease is free again
    if outcome.delivered:
        store.record(tenant_id, webhook_id, release=slot, set_fields={}, remove_fields=("failingSince", "restUntil"))
        _memory.note(_memory.rests, (tenant_id, webhook_id), None)
        return
    if outcome.status_code == 410:
        store.record(tenant_id, webhook_id, release=slot, set_fields={})
        store.disable(tenant_id, webhook_id, "The receiver answered 410 Gone.")
        return
    failing_since = admission.failing_since or clock.now_iso()
    failing_for = (clock.now() - clock.parse(failing_since)).total_seconds()
    scale = config.webhook_retry_scale()
    rest = min(REST_MAX_SECONDS * scale, max(REST_MIN_SECONDS * scale, failing_for))
    rest = max(rest, float(min(outcome.retry_after or 0, RETRY_AFTER_CAP_SECONDS)))
    store.record(
        tenant_id,
        webhook_id,
        release=slot,
        set_fields={"restUntil": time.time() + rest},
        keep_first={"failingSince": failing_since},
    )
    _memory.note(_memory.rests, (tenant_id, webhook_id), time.time() + rest)
    if failing_for > DISABLE_AFTER.total_seconds():
        store.disable(
            tenant_id, webhook_id, f"Deliveries failed for more than 5 days without a success (last: {outcome.reason})."
        )
