"""The per-key request log: one item per authenticated request (time, operation, status,
duration, source address, channel), kept REQUEST_LOG_DAYS by DynamoDB's TTL, newest first
under the key's own partition (PK `<tenant>#requests#<keyId>`, SK `<time>#<request id>`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from chalicelib import clock, config
from chalicelib.context import CallContext
from chalicelib.log import logger
from chalicelib.store.model import Item

TYPE = "requestLog"


def _pk(tenant_id: str, key_id: str) -> str:
    return f"{tenant_id}#requests#{key_id}"


def record(ctx: CallContext, *, operation: str, method: str, status: int, ms: float, source_ip: str | None) -> None:
    """Write one entry; never fails the request it describes."""
    moment = clock.now()
    data: dict[str, Any] = {
        "at": clock.iso(moment),
        "operation": operation,
        "method": method,
        "status": int(status),
        "durationMs": round(ms, 1),
        "channel": ctx.channel,
        "requestId": ctx.request_id,
    }
    if source_ip:
        data["sourceIp"] = source_ip
    expires = moment + dt.timedelta(days=config.REQUEST_LOG_DAYS)
    try:
        Item(
            _pk(ctx.tenant_id, ctx.key_id),
            f"{data['at']}#{ctx.request_id}",
            type=TYPE,
            tenantId=ctx.tenant_id,
            data=data,
            expiresAt=expires,
        ).save()
    except Exception:  # noqa: BLE001 - bookkeeping must never fail the request it rides on
        logger.exception("could not record the request", extra={"keyId": ctx.key_id})


def page(tenant_id: str, key_id: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int, bool]:
    """Newest first. The total counts the key's partition (its last REQUEST_LOG_DAYS) up to
    config.COUNT_LIMIT (then capped): a busy key logs millions of requests in 30 days. A page
    past the cap is empty, read for nothing."""
    pk = _pk(tenant_id, key_id)
    if offset >= config.COUNT_LIMIT:
        items: list[Item] = []
    else:
        items = list(Item.query(pk, scan_index_forward=False, limit=offset + limit))[offset : offset + limit]
    counted = Item.count(pk, limit=config.COUNT_LIMIT + 1)
    return [item.data_dict() for item in items], min(counted, config.COUNT_LIMIT), counted > config.COUNT_LIMIT
