"""An export's lines are sent in calls of one upsert each, in order, of at most
config.MAX_UPSERT_ITEMS items and load.MAX_BODY_BYTES of items (each line's data as JSON and its
alias): the batching of chalicelib/exports/load.py, with a caller that records the calls."""

from __future__ import annotations

import json
from typing import Any

from chalicelib import config
from chalicelib.exports import load


class Recording:
    """Answers every upsert as created and notes the items of each call."""

    timeout = 1.0

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[dict[str, Any]]]] = []

    def call(self, kind: str, name: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        items = (body or {})["items"]
        self.calls.append((name, items))
        results = [
            {"alias": item["alias"], "id": f"id-{item['alias']}", "result": "created", "errors": []} for item in items
        ]
        return 200, {"results": results, "counts": {"created": len(items)}}


def _line(upsert: str, n: int, size: int = 10) -> dict[str, Any]:
    return {"upsert": upsert, "type": "contact", "alias": f"a{n}", "data": {"lastName": "x" * size}}


def _size(item: dict[str, Any]) -> int:
    data = {k: v for k, v in item.items() if k != "alias"}
    return len(json.dumps(data)) + len(item["alias"])


def test_a_run_of_one_upsert_is_cut_at_the_item_count_and_a_change_of_upsert_starts_a_call() -> None:
    lines = [_line("contacts.upsert", n) for n in range(config.MAX_UPSERT_ITEMS + 3)]
    lines += [_line("units.upsert", n) for n in range(2)] + [_line("contacts.upsert", 9999)]
    caller = Recording()
    outcome = load.run(caller, iter(lines), None, lambda _text: None)
    counts = [(name, len(items)) for name, items in caller.calls]
    assert counts == [
        ("contacts.upsert", config.MAX_UPSERT_ITEMS),
        ("contacts.upsert", 3),
        ("units.upsert", 2),
        ("contacts.upsert", 1),
    ]
    assert [item["alias"] for _, items in caller.calls for item in items] == [line["alias"] for line in lines]
    assert outcome.counts["created"] == len(lines)


def test_a_call_never_carries_more_than_the_byte_bound_of_items() -> None:
    big = load.MAX_BODY_BYTES // 7  # seven of these pass the bound, so a call holds six
    lines = [_line("contacts.upsert", n, size=big) for n in range(20)]
    caller = Recording()
    load.run(caller, iter(lines), None, lambda _text: None)
    assert [len(items) for _, items in caller.calls] == [6, 6, 6, 2]
    assert all(sum(map(_size, items)) <= load.MAX_BODY_BYTES for _, items in caller.calls)
    assert [item["alias"] for _, items in caller.calls for item in items] == [line["alias"] for line in lines]
