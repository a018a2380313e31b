"""Request counters every instance shares: one item per (subject, window length, window),
counted with one conditional UpdateItem (ADD the call's weight unless the window is full: 1, more
for an MCP tool call that evaluates JMESPath), gone by TTL a minute after its window. A subject
is a key's limit (`key#<keyId>#key` for its overall limit, `key#<keyId>#<operation>` for an operation's own), a tenant
(`tenant#<tenantId>`, all its keys together), a sign-up source address or an e-mail address. A
tenant's item takes up to its limit's writes a second (default 300), well under one partition's
1,000.

Fixed windows: a caller can fit up to twice a window's quota around a window's edge, which
is what a safety limit allows; the count itself is exact across every instance."""

from __future__ import annotations

import datetime as dt

from pynamodb.exceptions import UpdateError

from chalicelib.store.model import Item

TYPE = "rate"
KEEP_SECONDS = 60  # past the window's end, before the TTL may remove the item


def _is_full(err: UpdateError) -> bool:
    return getattr(err, "cause_response_code", None) == "ConditionalCheckFailedException"


def spend(subject: str, window_seconds: int, quota: int, now: float, weight: int = 1) -> float | None:
    """Count a request of `weight` (calls it stands for) in the subject's current window. None
    when counted; when the window already holds `quota`, nothing is counted and the answer is
    the seconds until the window ends. A window with room takes the whole weight, so it may
    end up to weight - 1 over its quota: a heavy call is never refused forever."""
    index = int(now // window_seconds)
    ends = (index + 1) * window_seconds
    item = Item(f"rate#{subject}", f"{window_seconds}#{index}")
    expires = dt.datetime.fromtimestamp(ends + KEEP_SECONDS, dt.UTC)
    try:
        item.update(
            actions=[Item.hits.add(weight), Item.type.set(TYPE), Item.expiresAt.set(expires)],
            condition=Item.hits.does_not_exist() | (Item.hits < quota),
        )
    except UpdateError as err:
        if _is_full(err):
            return max(ends - now, 0.001)
        raise
    return None
