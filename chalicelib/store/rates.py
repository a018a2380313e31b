"""Request counters every instance shares: one item per (subject, window length, window),
counted with one conditional UpdateItem (ADD the call's weight unless the window is full: 1, more
for an MCP tool call that evaluates JMESPath), gone by TTL a minute after its window. A subject
is a key's limit (`key#<keyId>#key` for its overall limit, `key#<keyId>#<operation>` for an operation's own), a tenant
(`tenant#<tenantId>`, all its keys together), a sign-up source address or an e-mail address. A
tenant's item takes up to its limit's writes a second (default 300), well under one partition's
1,000.

Fixed windows: a caller can fit up to twice a window's quota around a window's edge, which
is what a safety limit allows; the count itself is exact across every instance.

Leases (issue 32): a write per call would cost more than most reads it guards. Where a
window's quota is large (at least LEASE_SHARE * 2 calls, as every key's and tenant's default),
an instance takes a lease of several calls at once (a tenth of the quota, at most LEASE_MAX)
with one conditional write that succeeds only while the window has room for the whole lease,
and spends it from memory; once the window has less room than a lease, calls are counted one
write each, as before. So the item counts calls handed out, never more than the quota (a heavy
call's weight - 1 aside, as before); what an instance leased and did not spend is lost to the
others for that window: a caller may be refused while up to (lease - 1) calls per other
instance remain unspent. Small quotas (sign-ups, mail, invitations, the limits tests set) are
never leased. tests/unit/test_rate_leases.py holds both bounds.

What is left (issue 52, the RateLimit header): every write answers the item's new count, which
this instance keeps for the window (`room`). The room it tells is the quota less that count: a
lease counts in full, this instance's unspent calls included, so it is never more than the calls
the window had left at that write. Between its writes an instance serves its lease from memory
and tells the room of its last write: calls other instances counted since are not in it (it
catches up at the next write, at most a lease of this instance's calls later). Where calls are
counted a write each (small quotas, a window with less room than a lease) it is exact."""

from __future__ import annotations

import datetime as dt
import threading

from pynamodb.exceptions import UpdateError

from chalicelib.store.model import Item

TYPE = "rate"
KEEP_SECONDS = 60  # past the window's end, before the TTL may remove the item
LEASE_SHARE = 10  # a lease is a tenth of the window's quota ...
LEASE_MAX = 50  # ... and at most this many calls
MAX_LEASES = 10_000  # leases this instance remembers; past it, those of ended windows are dropped

_leases: dict[tuple[str, int, int], int] = {}  # (subject, window seconds, window index) -> calls held
_no_room: set[tuple[str, int, int]] = set()  # windows a lease did not fit: counted a call at a time
_counted: dict[tuple[str, int, int], int] = {}  # window -> its count at this instance's last write
_lock = threading.Lock()


def lease_size(quota: int) -> int:
    """Calls one write leases for a window of `quota`; 1 means no leasing."""
    size = min(LEASE_MAX, quota // LEASE_SHARE)
    return size if size >= 2 else 1


def reset() -> None:
    """Forget this instance's leases (tests change limits between calls)."""
    with _lock:
        _leases.clear()
        _no_room.clear()
        _counted.clear()


def _is_full(err: UpdateError) -> bool:
    return getattr(err, "cause_response_code", None) == "ConditionalCheckFailedException"


def spend(subject: str, window_seconds: int, quota: int, now: float, weight: int = 1) -> float | None:
    """Count a request of `weight` (calls it stands for) in the subject's current window. None
    when counted; when the window already holds `quota`, nothing is counted and the answer is
    the seconds until the window ends. A window with room takes the whole weight, so it may
    end up to weight - 1 over its quota: a heavy call is never refused forever."""
    index = int(now // window_seconds)
    ends = (index + 1) * window_seconds
    lease = (subject, window_seconds, index)
    with _lock:
        held = _leases.get(lease, 0)
        if held >= weight:
            _leases[lease] = held - weight
            return None
        leasable = lease not in _no_room
    size = lease_size(quota)
    if leasable and size > weight:
        leased = _add(subject, window_seconds, index, ends, size, room_for=size, quota=quota)
        with _lock:
            _forget_ended(now)
            if leased:
                _leases[lease] = _leases.get(lease, 0) + size - weight
                return None
            _no_room.add(lease)
    counted = _add(subject, window_seconds, index, ends, weight, room_for=1, quota=quota)
    with _lock:
        _forget_ended(now)
    if counted:
        return None
    return max(ends - now, 0.001)


def room(subject: str, window_seconds: int, quota: int, now: float) -> int:
    """Calls the subject's current window had left at this instance's last write of it (the
    module's docstring: never more than were left then; a lease counts as spent in full). A
    window this instance never wrote has told it nothing: 0, not the whole quota."""
    with _lock:
        counted = _counted.get((subject, window_seconds, int(now // window_seconds)))
    return 0 if counted is None else max(0, quota - counted)


def _add(subject: str, window_seconds: int, index: int, ends: int, count: int, *, room_for: int, quota: int) -> bool:
    """ADD `count` to the window's item if it has room for `room_for` more calls; False when not.
    The write answers the item's new count (UpdateItem's ALL_NEW, which pynamodb reads back into
    the item): remembered for `room`."""
    item = Item(f"rate#{subject}", f"{window_seconds}#{index}")
    expires = dt.datetime.fromtimestamp(ends + KEEP_SECONDS, dt.UTC)
    try:
        item.update(
            actions=[Item.hits.add(count), Item.type.set(TYPE), Item.expiresAt.set(expires)],
            condition=Item.hits.does_not_exist() | (Item.hits <= quota - room_for),
        )
    except UpdateError as err:
        if _is_full(err):
            return False
        raise
    window = (subject, window_seconds, index)
    with _lock:
        _counted[window] = max(int(item.hits or 0), _counted.get(window, 0))  # a count never falls
    return True


def _forget_ended(now: float) -> None:
    """Under _lock: drop what this instance knows of ended windows once it knows many."""
    if len(_leases) + len(_no_room) + len(_counted) < MAX_LEASES:
        return
    for window in [*_leases, *_no_room, *_counted]:
        _, seconds, index = window
        if (index + 1) * seconds <= now:
            _leases.pop(window, None)
            _no_room.discard(window)
            _counted.pop(window, None)
