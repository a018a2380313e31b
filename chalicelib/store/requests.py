"""The per-key request log: one item per authenticated request (time, operation, status,
duration, source address, channel), kept REQUEST_LOG_DAYS by DynamoDB's TTL, newest first
under the key's own partition (PK `<tenant>#requests#<keyId>`, SK `<time>#<request id>`).

Where it is written (config.request_log_via_logs): locally, straight into the table, one
PutItem a request. In the cloud a request must not pay a write for its own bookkeeping (issue
32): the HTTP functions print the entry as one JSON line (`{"kind": "requestLog", ...}`) to
their log, CloudWatch Logs hands the lines that match LOG_FILTER to the WriteRequestLogs
function in batches (a subscription filter, infra/resources.py), and write_entries stores them
25 to a BatchWriteItem. The entry is the same item either way, keyed by its request id, so a
batch delivered twice writes the same items again. Delay: CloudWatch delivers within seconds;
a batch that keeps failing lands on the RequestLogFailureQueue (alarmed) with its lines.

Read back: newest first a page at a time (apikeys.requests.list: `page`), and counted per day and
operation, a bounded number of entries (apikeys.usage: `count`)."""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from chalicelib import clock, config
from chalicelib.context import CallContext
from chalicelib.log import logger
from chalicelib.store.model import Item

TYPE = "requestLog"
# The lines a function's log hands to the writer: CloudWatch Logs' filter pattern syntax for
# JSON log events (a line of the powertools logger has no top-level `kind`).
LOG_FILTER = '{ $.kind = "requestLog" }'
ENTRY_FIELDS = ("at", "operation", "method", "status", "durationMs", "channel", "requestId")


def _pk(tenant_id: str, key_id: str) -> str:
    return f"{tenant_id}#requests#{key_id}"


def record(ctx: CallContext, *, operation: str, method: str, status: int, ms: float, source_ip: str | None) -> None:
    """Log one entry; never fails the request it describes."""
    data: dict[str, Any] = {
        "at": clock.iso(clock.now()),
        "operation": operation,
        "method": method,
        "status": int(status),
        "durationMs": round(ms, 1),
        "channel": ctx.channel,
        "requestId": ctx.request_id,
    }
    if source_ip:
        data["sourceIp"] = source_ip
    entry = {"kind": TYPE, "tenantId": ctx.tenant_id, "keyId": ctx.key_id, "data": data}
    try:
        if config.request_log_via_logs():
            # one line, flushed: Lambda may freeze the instance as soon as the answer is out
            sys.stdout.write(json.dumps(entry, separators=(",", ":")) + "\n")
            sys.stdout.flush()
        else:
            _item(entry).save()
    except Exception:  # noqa: BLE001 - bookkeeping must never fail the request it rides on
        logger.exception("could not record the request", extra={"keyId": ctx.key_id})


def _item(entry: dict[str, Any]) -> Item:
    data = entry["data"]
    expires = clock.parse(data["at"]) + dt.timedelta(days=config.REQUEST_LOG_DAYS)
    return Item(
        _pk(entry["tenantId"], entry["keyId"]),
        f"{data['at']}#{data['requestId']}",
        type=TYPE,
        tenantId=entry["tenantId"],
        data=data,
        expiresAt=expires,
    )


def entry_of(line: str) -> dict[str, Any] | None:
    """A log line's entry, or None when the line is not one (anything else a function logs)."""
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict) or entry.get("kind") != TYPE:
        return None
    data = entry.get("data")
    if not (
        isinstance(entry.get("tenantId"), str)
        and isinstance(entry.get("keyId"), str)
        and isinstance(data, dict)
        and all(field in data for field in ENTRY_FIELDS)
        and isinstance(data["at"], str)
        and isinstance(data["requestId"], str)
    ):
        return None
    try:
        clock.parse(data["at"])
    except ValueError:
        return None
    return entry


def write_entries(lines: Iterable[str]) -> int:
    """Store the entries among `lines` (BatchWriteItem, 25 a call; pynamodb retries what DynamoDB
    leaves unprocessed and raises when it keeps doing so: the batch is then retried whole).
    Lines that are no entry are logged and skipped: one odd line must not hold up the others."""
    written = 0
    with Item.batch_write() as batch:
        for line in lines:
            entry = entry_of(line)
            if entry is None:
                logger.warning("not a request log entry", extra={"line": line[:200]})
                continue
            batch.save(_item(entry))
            written += 1
    return written


def _kept() -> Any:
    """The sort keys of the entries still kept: made less than REQUEST_LOG_DAYS ago. DynamoDB's TTL
    deletes an expired entry only some time later (days, at worst), so the read leaves out what is
    past its keeping itself, to the millisecond: an entry's sort key begins with its time, and one
    made exactly REQUEST_LOG_DAYS ago is gone ('$' sorts right after the '#' that ends the time)."""
    oldest = clock.iso(clock.now() - dt.timedelta(days=config.REQUEST_LOG_DAYS))
    return Item.sk > f"{oldest}$"


def page(tenant_id: str, key_id: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int, bool]:
    """Newest first, only the entries of the last REQUEST_LOG_DAYS (`_kept`). The total counts
    those up to config.COUNT_LIMIT (then capped): a busy key logs millions of requests in 30 days.
    A page past the cap is empty, read for nothing."""
    pk = _pk(tenant_id, key_id)
    if offset >= config.COUNT_LIMIT:
        items: list[Item] = []
    else:
        newest = Item.query(pk, _kept(), scan_index_forward=False, limit=offset + limit)
        items = list(newest)[offset : offset + limit]
    counted = Item.count(pk, _kept(), limit=config.COUNT_LIMIT + 1)
    return [item.data_dict() for item in items], min(counted, config.COUNT_LIMIT), counted > config.COUNT_LIMIT


@dataclass(frozen=True)
class Counted:
    """A key's calls counted from its entries (`count`)."""

    calls: Counter[tuple[str, str]]  # (day YYYY-MM-DD, operation) -> calls
    read: int  # entries read (the work done)
    after: str | None  # None: every entry since `since`; else only those after this time


def count(tenant_id: str, key_id: str, since: str, budget: int) -> Counted:
    """The key's calls from `since` (a timestamp of ours, within REQUEST_LOG_DAYS) on, per UTC day
    and operation, for apikeys.usage. The log has no counters (a request pays no write for its
    bookkeeping), so its entries are counted: at most `budget` of them, the newest first, in one
    Query (paged by DynamoDB's 1 MB), and one more read to tell whether there were more. Then the
    count is exact from a moment on (`after`, the time of the first entry left out): every entry
    after it, none at or before it (of those at it, some were read, some not)."""
    newest = Item.query(_pk(tenant_id, key_id), Item.sk >= since, scan_index_forward=False, limit=budget + 1)
    found = [(item.sk.split("#", 1)[0], str(item.data_dict().get("operation") or "unknown")) for item in newest]
    after = found[budget][0] if len(found) > budget else None
    calls: Counter[tuple[str, str]] = Counter(
        (at[:10], operation) for at, operation in found[:budget] if after is None or at > after
    )
    return Counted(calls, len(found), after)
