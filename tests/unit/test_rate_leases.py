"""Leases of the shared counters (store/rates.py, issue 32): where a window's quota is large, an
instance takes several calls with one write and spends them from memory. On the real table code
against moto, with "instances" simulated by swapping the module's lease memory: the quota is
never exceeded across instances, a lone instance gets all of it, the writes fall to a tenth or
less, and small quotas are counted exactly as before."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib.store import rates
from chalicelib.store.model import Item

T0 = 1_800_000_000.5  # half a second into a 2-s window


@pytest.fixture()
def writes(memory_table: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The count ADDed by each conditional write that succeeded or not (the real one runs)."""
    seen: list[int] = []
    real = rates._add

    def add(*args: Any, **kwargs: Any) -> bool:
        seen.append(args[4])
        return real(*args, **kwargs)

    monkeypatch.setattr(rates, "_add", add)
    rates.reset()
    yield seen
    rates.reset()


def _admitted(attempts: int, quota: int = 200, now: float = T0, weight: int = 1) -> int:
    return sum(rates.spend("key#k1#key", 2, quota, now, weight) is None for _ in range(attempts))


def _hits(quota_window: int = 2, now: float = T0) -> int:
    item = Item.get("rate#key#k1#key", f"{quota_window}#{int(now // quota_window)}")
    return int(item.hits)


def test_a_lone_instance_gets_the_whole_quota_for_a_tenth_of_the_writes(writes: list[int]) -> None:
    assert rates.lease_size(200) == 20
    assert _admitted(1_000) == 200
    assert _hits() == 200
    # ten leases of 20; then a lease that does not fit, and each refused call's exact write
    assert writes == [20] * 10 + [20] + [1] * 800


def test_instances_together_never_exceed_the_quota(writes: list[int]) -> None:
    """Three instances take turns: each leases, the window fills, the last calls are exact."""
    memories: list[dict[tuple[str, int, int], int]] = [{}, {}, {}]
    admitted = 0
    for turn in range(600):
        rates._leases = memories[turn % 3]
        admitted += rates.spend("key#k1#key", 2, 200, T0) is None
    assert admitted <= 200 and _hits() <= 200
    unspent = sum(sum(memory.values()) for memory in memories)
    assert admitted + unspent == _hits()  # every call handed out is either spent or held
    assert 200 - admitted <= 2 * (rates.lease_size(200) - 1)  # what the two others may hold unspent


def test_a_window_with_less_room_than_a_lease_counts_each_call(writes: list[int]) -> None:
    Item("rate#key#k1#key", f"2#{int(T0 // 2)}", hits=190, type=rates.TYPE).save()
    assert _admitted(20) == 10  # the last ten calls, one write each once a lease did not fit
    assert writes == [20] + [1] * 20 and _hits() == 200


def test_a_lease_is_a_tenth_of_the_quota_from_two_calls_to_fifty() -> None:
    assert [rates.lease_size(q) for q in (3, 19, 20, 29, 200, 499, 500, 600, 100_000)] == [
        1,
        1,
        2,
        2,
        20,
        49,
        50,
        50,
        50,
    ]


def test_small_quotas_are_never_leased(writes: list[int]) -> None:
    assert rates.lease_size(19) == 1 and rates.lease_size(3) == 1
    assert _admitted(5, quota=3) == 3
    assert writes == [1, 1, 1, 1, 1] and _hits() == 3


def test_what_an_instance_remembers_of_ended_windows_is_bounded(
    writes: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rates, "MAX_LEASES", 3)
    for n in range(5):  # five windows, one lease each
        assert _admitted(1, now=T0 + 2 * n) == 1
    assert len(rates._leases) <= 3 and (("key#k1#key", 2, int((T0 + 8) // 2)) in rates._leases)


def test_past_its_bound_an_instance_forgets_exactly_the_windows_that_ended(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound counts leases and full windows together, and is reached at MAX_LEASES itself; then
    every window that ended by now goes (one ending at this very moment too), from both memories,
    and the current window's lease stays (issue 29: `_forget_ended`'s survivors)."""
    monkeypatch.setattr(rates, "MAX_LEASES", 4)
    now = 100.0  # window 50 of 2 s: [100, 102)
    rates.reset()
    try:
        with rates._lock:
            rates._leases.update({("k", 2, 48): 3, ("k", 2, 49): 3, ("k", 2, 50): 3})  # 49 ends at 100 exactly
            rates._no_room.add(("k", 2, 47))
            rates._forget_ended(now)
        assert rates._leases == {("k", 2, 50): 3} and rates._no_room == set()
        with rates._lock:
            rates._leases.update({("k", 2, 48): 3, ("k", 2, 49): 3})  # 3 windows in all: under the bound
            rates._forget_ended(now)
        assert len(rates._leases) == 3
    finally:
        rates.reset()


def test_a_lease_is_for_its_window_only(writes: list[int]) -> None:
    assert _admitted(1) == 1  # leases 20, spends 1
    assert _admitted(1, now=T0 + 2) == 1  # the next window: a new lease, the old one's 19 are gone
    assert writes == [20, 20] and _hits(now=T0 + 2) == 20


def test_a_heavy_call_takes_its_weight_from_the_lease(writes: list[int]) -> None:
    assert _admitted(1, weight=5) == 1  # lease 20, 15 left
    assert _admitted(3, weight=5) == 3  # 0 left
    assert _admitted(1, weight=5) == 1  # a second lease
    assert writes == [20, 20] and _hits() == 40


# --- what is left, as the RateLimit field tells it (issue 52: rates.room) ---------------------------


def test_the_room_told_is_never_more_than_a_lone_instance_has_left(writes: list[int]) -> None:
    """A lease counts as spent in full: the room lags what is truly left by less than a lease,
    never runs ahead of it, and reaches 0 with the window."""
    admitted = 0
    for _ in range(220):
        if rates.spend("key#k1#key", 2, 200, T0) is None:
            admitted += 1
            told = rates.room("key#k1#key", 2, 200, T0)
            assert 0 <= 200 - admitted - told < rates.lease_size(200), (admitted, told)
    assert admitted == 200 and rates.room("key#k1#key", 2, 200, T0) == 0


def test_counted_a_write_each_the_room_is_exact(writes: list[int]) -> None:
    told = []
    for _ in range(4):
        rates.spend("key#k1#key", 2, 3, T0)
        told.append(rates.room("key#k1#key", 2, 3, T0))
    assert told == [2, 1, 0, 0] and writes == [1, 1, 1, 1]


def test_another_instances_calls_show_in_the_room_at_this_ones_next_write(writes: list[int]) -> None:
    """Two instances: each tells the counter's room at its own last write (its own lease and the
    other's counted in full), and catches up with the other's calls when it writes again."""
    first: dict[tuple[str, int, int], int] = {}
    second: dict[tuple[str, int, int], int] = {}

    def on(instance: tuple[dict[tuple[str, int, int], int], dict[tuple[str, int, int], int]]) -> None:
        rates._leases, rates._counted = instance

    a, b = ({}, first), ({}, second)
    on(a)
    rates.spend("key#k1#key", 2, 200, T0)  # a leases 20
    assert rates.room("key#k1#key", 2, 200, T0) == 180
    on(b)
    rates.spend("key#k1#key", 2, 200, T0)  # b leases 20: 40 handed out
    assert rates.room("key#k1#key", 2, 200, T0) == 160
    on(a)
    for _ in range(19):  # a spends the rest of its lease from memory: no write, the same room
        rates.spend("key#k1#key", 2, 200, T0)
    assert rates.room("key#k1#key", 2, 200, T0) == 180
    rates.spend("key#k1#key", 2, 200, T0)  # a's next lease: it sees b's
    assert rates.room("key#k1#key", 2, 200, T0) == 140 == 200 - _hits()
    assert writes == [20, 20, 20]


def test_a_window_this_instance_never_wrote_tells_no_room(writes: list[int]) -> None:
    rates.spend("key#k1#key", 2, 200, T0)
    assert rates.room("key#k1#key", 2, 200, T0 + 2) == 0  # the next window: nothing known, nothing promised
    assert rates.room("key#k2#key", 2, 200, T0) == 0


def test_what_an_instance_remembers_of_counts_is_bounded(writes: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rates, "MAX_LEASES", 3)
    for n in range(6):  # six windows of a small quota: counted a write each, never leased
        rates.spend("key#k1#key", 2, 3, T0 + 2 * n)
    assert len(rates._counted) <= 3 and rates.room("key#k1#key", 2, 3, T0 + 10) == 2
