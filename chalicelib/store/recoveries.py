"""A webhook's recoveries (webhooks.deliveries.recover, issue 51): one runs at a time, and a
webhook is recovered at most config.RECOVERIES_PER_DAY times a day (UTC). A recovery runs until
every redelivery it queued is settled (delivered, or failed at the end of its schedule); the
delivery worker counts them (settled), so a recovery over a receiver that is still down waits
for it, and the same range cannot be sent twice at once.

  recovery   PK <tenant>#<webhook id>  SK "recovery"   the latest recovery (id, since, until,
             queued, settled, startedAt) and how many were started on `day`

A claim reads the item and writes it under the condition that it did not change meanwhile (its
version), so two recoveries at the same moment cannot both start."""

from __future__ import annotations

import datetime as dt
from typing import Any

from pynamodb.exceptions import PutError, UpdateError

from chalicelib import clock, config
from chalicelib import error_codes as codes
from chalicelib.errors import Conflict, Throttled
from chalicelib.store.entities import entity_pk
from chalicelib.store.model import Item

RECOVERY_SK = "recovery"
# A redelivery's whole retry schedule lasts about 27.6 hours (events/deliveries.SCHEDULE): past
# this a recovery counts as ended, even if one of its messages was lost and never settled.
LEASE_HOURS = 28


def _key(tenant_id: str, webhook_id: str) -> tuple[str, str]:
    return entity_pk(tenant_id, webhook_id), RECOVERY_SK


# A recovery queues its events within a call; one that never counted them (its call died) is over after this.
COUNTING_MINUTES = 10


def running(data: dict[str, Any], now: dt.datetime) -> bool:
    """Whether the recovery described by `data` (a claim's, or {} for none yet) still sends."""
    if not data:
        return False
    since_start = now - clock.parse(str(data["startedAt"]))
    if not data["counted"]:
        return since_start < dt.timedelta(minutes=COUNTING_MINUTES)
    return since_start < dt.timedelta(hours=LEASE_HOURS) and int(data["settled"]) < int(data["queued"])


def claim(tenant_id: str, webhook_id: str, recovery_id: str, since: str) -> None:
    """Start a recovery, or refuse: 409 recovery_running while the last one sends, 429
    recovery_limit_reached past the day's number (Retry-After: the next day)."""
    now = clock.now()
    today = now.date().isoformat()
    try:
        item: Item | None = Item.get(*_key(tenant_id, webhook_id), consistent_read=True)
    except Item.DoesNotExist:
        item = None
    data = item.data_dict() if item is not None else {}
    if running(data, now):
        raise Conflict(
            f"A recovery of this webhook since {data.get('since')} is still sending "
            f"({data.get('settled', 0)} of {data.get('queued', 0)} settled); recover again once it is done.",
            code=codes.RECOVERY_RUNNING,
            extra={"running": {k: data.get(k) for k in ("id", "since", "until", "queued", "settled", "startedAt")}},
        )
    started_today = int(data["count"]) if data.get("day") == today else 0
    if started_today >= config.RECOVERIES_PER_DAY:
        tomorrow = dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)
        wait = max(1, int((tomorrow - now).total_seconds()))
        raise Throttled(
            f"This webhook was recovered {started_today} times today, as often as it may be "
            f"({config.RECOVERIES_PER_DAY} a day); retry after {wait} s.",
            code=codes.RECOVERY_LIMIT_REACHED,
            headers={"Retry-After": str(wait)},
        )
    fresh = {
        "id": recovery_id,
        "since": since,
        "queued": 0,
        "settled": 0,
        "counted": False,  # until the queued events are counted (set_queued)
        "startedAt": clock.iso(now),
        "day": today,
        "count": started_today + 1,
    }
    stored = Item(*_key(tenant_id, webhook_id), type="recovery", tenantId=tenant_id, id=webhook_id, data=fresh)
    try:
        if item is None:
            stored.save(condition=Item.pk.does_not_exist())
        else:
            stored.version = item.version + 1
            stored.save(condition=Item.version == item.version)
    except PutError as err:
        if getattr(err, "cause_response_code", None) != "ConditionalCheckFailedException":
            raise
        raise Conflict(
            "Another recovery of this webhook started at the same moment.", code=codes.RECOVERY_RUNNING
        ) from None


def set_queued(tenant_id: str, webhook_id: str, recovery_id: str, queued: int, until: str | None) -> None:
    """How many redeliveries the recovery queued (before they are sent, so none settles unseen)."""
    data: Any = Item.data
    actions = [data["queued"].set(queued), data["counted"].set(True)]
    if until is not None:
        actions.append(data["until"].set(until))
    _update(tenant_id, webhook_id, recovery_id, actions)


def settled(tenant_id: str, webhook_id: str, recovery_id: str) -> None:
    """One redelivery of the recovery was settled (the delivery worker)."""
    _update(tenant_id, webhook_id, recovery_id, [Item.data["settled"].add(1)])  # type: ignore[index]


def _update(tenant_id: str, webhook_id: str, recovery_id: str, actions: list[Any]) -> None:
    data: Any = Item.data
    try:
        Item(*_key(tenant_id, webhook_id)).update(actions=actions, condition=data["id"] == recovery_id)
    except UpdateError as err:
        if getattr(err, "cause_response_code", None) != "ConditionalCheckFailedException":
            raise  # else a later recovery took the item: this one's counts no longer matter
