"""Resetting a sandbox to its seed, through the operations as an integrator's own clean-up would run
them, so the audit trail and the webhooks tell exactly what changed: what the seed does not hold is
deleted (referencing types first), the seed's entities that were deleted are restored (referenced
types first), and the seed is planted again (its upserts put back what was changed and leave the
rest untouched). Afterwards the sandbox holds the seed's totals and aliases again; its keys, members
and webhooks stay."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.context import CallContext
from chalicelib.declare import UPDATINGS
from chalicelib.exports import lines
from chalicelib.exports.load import ImportRefused
from chalicelib.registry import lifecycle_operation
from chalicelib.sandbox import seed as seeding
from chalicelib.store import aliases

PASSES = 5  # deletions retried while each pass frees more (an entity referencing one of its own type)


def reset(ctx: CallContext, seed: str, progress: Callable[[str], None] = lambda _text: None) -> dict[str, int]:
    """The sandbox of `ctx` back to the demo company of `seed`; how many entities went, came back
    and were planted (created, updated, unchanged)."""
    planted = seeding.lines_of(seed)
    seeded = {(line["type"], line["alias"]) for line in planted}
    caller = seeding.InProcess(ctx)
    live: set[str] = set()
    foreign: list[tuple[str, str]] = []  # (type, id) of what the seed does not hold, referencing types last
    kept: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}  # the seed's live entities: id, stored fields
    for kind in lines.kinds():
        for chunk in lines.entities(ctx, kind):
            for item in chunk:
                live.add(item.id)
                names = [name for name in lines.all_aliases(ctx, item) if (kind.etype.name, name) in seeded]
                if names:
                    kept[(kind.etype.name, names[0])] = (item.id, item.data_dict())
                else:
                    foreign.append((kind.etype.name, item.id))
    deleted = _delete(caller, list(reversed(foreign)))
    restored = _restore(caller, planted, live)
    outcome = seeding.plant(ctx, seed, progress)
    cleared = _clear_added_fields(caller, planted, kept)
    return {"deleted": deleted, "restored": restored, **outcome.counts, "cleared": cleared}


def _clear_added_fields(
    caller: seeding.InProcess, planted: list[dict[str, Any]], kept: dict[tuple[str, str], tuple[str, dict[str, Any]]]
) -> int:
    """The upserts set the seed's fields back but leave a field the seed does not set: such a field
    given since is cleared through the type's update command (`null` clears an optional field)."""
    done = 0
    for line in planted:
        found = kept.get((line["type"], line["alias"]))
        updating = UPDATINGS.get(line["type"])
        if found is None or updating is None:
            continue
        entity_id, stored = found
        payload = updating.op.args["properties"][updating.arg]["properties"]
        added = [
            name
            for name, value in stored.items()
            if _given(value) and name not in line["data"] and payload.get(name, {}).get("nullable")
        ]
        if not added:
            continue
        status, answer = caller.call(
            "command", updating.op.name, {updating.arg: {"id": entity_id, **dict.fromkeys(added)}}
        )
        if status != 200:
            raise ImportRefused(f"{updating.op.name} of {line['alias']} answered {status}: {answer}")
        done += 1
    return done


def _given(value: Any) -> bool:
    """A stored value someone gave (an empty one, or `false`, is what a fresh entity holds too)."""
    return value is not False and value not in (None, "", [], {})


def _delete(caller: seeding.InProcess, doomed: list[tuple[str, str]]) -> int:
    """Soft-deletes (restorable, audited), retried while a pass frees more; what cannot go (a type
    without a delete) stays."""
    done = 0
    for _ in range(PASSES):
        left: list[tuple[str, str]] = []
        for entity_type, entity_id in doomed:
            operation = lifecycle_operation(entity_type, "delete")
            if operation is None:
                continue
            status, _answer = caller.call("command", operation[0], {operation[1]: entity_id})
            if status == 200:
                done += 1
            elif status == 409:  # still referenced: by one deleted later in this pass
                left.append((entity_type, entity_id))
        if not left or len(left) == len(doomed):
            if left:
                raise ImportRefused(f"the sandbox's own data could not be deleted: {left[:3]}")
            return done
        doomed = left
    return done


def _restore(caller: seeding.InProcess, planted: list[dict[str, Any]], live: set[str]) -> int:
    """The seed's entities deleted since, restored in load order (what they reference first)."""
    named = aliases.lookup_many(caller.ctx, [line["alias"] for line in planted])
    done = 0
    for line in planted:
        found = named.get(line["alias"])
        if found is None or found[0] in live:
            continue
        operation = lifecycle_operation(line["type"], "restore")
        if operation is None:
            continue
        status, answer = caller.call("command", operation[0], {operation[1]: found[0]})
        if status != 200:
            raise ImportRefused(f"{operation[0]} of {line['alias']} answered {status}: {answer}")
        done += 1
    return done
