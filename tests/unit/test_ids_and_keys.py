"""Ids and API key format, without any storage."""

from __future__ import annotations

from chalicelib import auth, ids, keyformat
from chalicelib.registry import REGISTRY
from chalicelib.resources import load_all


def test_ids_carry_their_type_and_sort_by_creation() -> None:
    made = [ids.new_id("con") for _ in range(50)]
    assert all(ids.prefix_of(i) == "con" for i in made)
    assert len(set(made)) == 50
    assert [m[:14] for m in made] == sorted(m[:14] for m in made)  # the time part never goes back


def test_ids_made_in_one_millisecond_sort_in_the_order_made(monkeypatch: object) -> None:
    """ULID's monotonic mode: the same millisecond (or a clock that steps back) counts up."""
    import pytest

    mp = pytest.MonkeyPatch()
    clock = iter([1_800_000_000.0005] * 200 + [1_799_999_999.0] * 50)
    mp.setattr(ids.time, "time", lambda: next(clock))
    try:
        made = [ids.new_id("con") for _ in range(250)]
    finally:
        mp.undo()
    assert made == sorted(made) and len(set(made)) == 250
    assert {m[4:14] for m in made} == {made[0][4:14]}  # all in the one millisecond


def test_aliases_do_not_look_like_ids() -> None:
    assert ids.looks_like_id(ids.new_id("obj"))
    for alias in ("crm-4711", "con_", "CON_01K00000000000000000000000", "con_01K0000000000000000000000I"):
        assert not ids.looks_like_id(alias)


def test_secret_format_and_checksum() -> None:
    secret = keyformat.new_secret()
    assert secret.startswith("pm_test_") and len(secret) == len("pm_test_") + 36
    assert keyformat.well_formed(secret)
    flipped = secret[:-7] + ("a" if secret[-7] != "a" else "b") + secret[-6:]
    assert not keyformat.well_formed(flipped)
    assert not keyformat.well_formed(secret.replace("pm_test_", "pm_prod_"))
    assert keyformat.secret_hash(secret) != keyformat.secret_hash(flipped)


def test_live_keys_in_the_live_environment(monkeypatch: object) -> None:
    import pytest

    mp = pytest.MonkeyPatch()
    mp.setenv("PM_KEY_ENVIRONMENT", "live")
    try:
        assert keyformat.new_secret().startswith("pm_live_")
    finally:
        mp.undo()


def test_scope_rules() -> None:
    load_all()
    create, merge, listing, keys = (
        REGISTRY["contacts.create"],
        REGISTRY["contacts.merge"],
        REGISTRY["contacts"],
        REGISTRY["apikeys.list"],
    )
    assert auth.allows(frozenset({"read"}), listing)
    assert not auth.allows(frozenset({"read"}), create)
    assert auth.allows(frozenset({"write:contacts"}), create)
    assert auth.allows(frozenset({"write"}), create)
    assert not auth.allows(frozenset({"write:objects"}), create)
    assert not auth.allows(frozenset({"write"}), merge)
    assert auth.allows(frozenset({"write:contacts", "destructive"}), merge)
    assert not auth.allows(frozenset({"destructive"}), merge)  # destructive needs the area's write scope too
    assert not auth.allows(frozenset({"read", "write", "destructive"}), keys)
    assert auth.allows(frozenset({"admin"}), keys)
