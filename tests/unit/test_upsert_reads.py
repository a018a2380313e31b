"""An upsert call reads the entities of other types its items reference in batches before its items
run (store.read_ahead): a hundred units of one unit group read the group once, not once a unit, and
a referenced entity deleted before the call still fails the item that names it (404), as when each
item read it itself."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib import dispatch, ids
from chalicelib.context import CallContext
from chalicelib.registry import REGISTRY
from chalicelib.resources import load_all
from chalicelib.scopes import ALL_SCOPES
from chalicelib.store.model import Item

pytestmark = pytest.mark.usefixtures("memory_table")


def _ctx() -> CallContext:
    return CallContext(
        tenant_id=ids.new_id("ten"), key_id="", agent_name="test", scopes=frozenset(ALL_SCOPES), channel="operator"
    )


def _run(ctx: CallContext, name: str, args: dict[str, Any]) -> Any:
    load_all()
    return dispatch.run(REGISTRY[name], ctx, args)


def _units(count: int, group: str = "g-a") -> list[dict[str, Any]]:
    return [
        {"alias": f"u-{n}", "objectId": "o-1", "unitGroupId": group, "number": f"A {n}", "type": "apartment"}
        for n in range(count)
    ]


def test_the_units_of_one_call_read_their_unit_group_once(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx()
    _run(ctx, "objects.upsert", {"items": [{"alias": "o-1", "name": "Haus", "type": "rental"}]})
    _run(
        ctx, "unitgroups.upsert", {"items": [{"alias": "g-a", "objectId": "o-1", "name": "Haus A", "type": "building"}]}
    )
    single_reads: list[str] = []
    get = Item.get

    def counted(*args: Any, **kwargs: Any) -> Any:
        single_reads.append(str(args[0]))
        return get(*args, **kwargs)

    monkeypatch.setattr(Item, "get", counted)
    answer = _run(ctx, "units.upsert", {"items": _units(100)})
    assert answer["counts"]["created"] == 100, answer["results"][:2]
    assert single_reads == []  # the unit group (and the object) came with the call's batched reads


def test_a_referenced_entity_deleted_before_the_call_still_fails_the_item() -> None:
    ctx = _ctx()
    _run(ctx, "objects.upsert", {"items": [{"alias": "o-1", "name": "Haus", "type": "rental"}]})
    group = _run(
        ctx, "unitgroups.upsert", {"items": [{"alias": "g-a", "objectId": "o-1", "name": "Haus A", "type": "building"}]}
    )["results"][0]["id"]
    _run(ctx, "unitgroups.delete", {"unitGroup": group})
    answer = _run(ctx, "units.upsert", {"items": _units(2)})
    assert [r["result"] for r in answer["results"]] == ["failed", "failed"]
    assert {r["code"] for r in answer["results"]} == {"not_found"}
