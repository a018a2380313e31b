"""The scopes' own rules (chalicelib/scopes.py) where no request reaches them: `area_scope` runs
when the operations are declared, at import, so a declaration naming an area or a kind of scope
that does not exist fails the import instead of making a scope no key can hold."""

from __future__ import annotations

import pytest

from chalicelib import scopes


def test_an_area_scope_is_read_or_write_of_a_known_area() -> None:
    assert scopes.area_scope("read", "contacts") == "read:contacts"
    assert scopes.area_scope("write", "objects") == "write:objects"
    for wide, area in (("read", "nowhere"), ("delete", "contacts"), ("admin", "contacts"), ("delete", "nowhere")):
        with pytest.raises(ValueError, match=f"no scope {wide}:{area}"):
            scopes.area_scope(wide, area)


def test_read_alone_reads_every_area_and_an_area_scope_its_own() -> None:
    assert scopes.readable_areas(frozenset({"read"})) == frozenset(scopes.AREAS)
    assert scopes.readable_areas(frozenset({"read:contacts", "write:objects"})) == frozenset({"contacts"})
    assert scopes.readable_areas(frozenset({"write"})) == frozenset()
