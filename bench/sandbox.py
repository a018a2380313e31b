"""Sandbox benchmark (issue 36): how long planting the demo company and resetting a sandbox take on
the local stack (moto's server in its own process, as `make serve` runs it), side by side in one
run: the reset after changes of every kind (entities added, changed, deleted), the reset with nothing
to do, and planting the whole company anew; the reset's target is under 60 s.

    make bench            (or: .venv/bin/python -m bench.sandbox)
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from bench.harness import SMOKE, Service, record, table
from chalicelib import dispatch, registry, resources
from chalicelib.context import CallContext
from chalicelib.sandbox import lifecycle
from chalicelib.scopes import ALL_SCOPES

CHANGES = 5 if SMOKE else 20  # of each kind: contacts added, contacts changed, responsibilities deleted
RESET_TARGET_S = 60


def main() -> str:
    resources.load_all()
    service = Service(moto_process=True)
    try:
        return run()
    finally:
        service.stop()


def _ctx(tenant_id: str) -> CallContext:
    return CallContext(
        tenant_id=tenant_id, key_id="", agent_name="bench", scopes=frozenset(ALL_SCOPES), channel="operator"
    )


def _run(ctx: CallContext, name: str, args: dict[str, Any]) -> Any:
    return dispatch.run(registry.REGISTRY[name], ctx, args)


def _change(ctx: CallContext) -> None:
    """Entities added, changed and deleted, CHANGES of each."""
    for n in range(CHANGES):
        _run(ctx, "contacts.create", {"contact": {"lastName": f"Neu {n}", "personType": "natural"}})
    people = _run(ctx, "contacts", {"limit": CHANGES, "offset": 0, "personType": "natural"})["contacts"]
    for person in people:
        _run(ctx, "contacts.update", {"contact": {"id": person["id"], "lastName": "Geändert", "title": "Dr."}})
    duties = _run(ctx, "responsibilities.list", {"limit": CHANGES, "offset": 0})["responsibilities"]
    for duty in duties:
        _run(ctx, "responsibilities.delete", {"responsibility": duty["id"]})


def run() -> str:
    seed = "empty" if SMOKE else "demo"
    started = time.perf_counter()
    tenant, _key, _secret = lifecycle.create("Bench HV", f"bench-{uuid.uuid4().hex[:8]}@example.org", seed)
    planted = time.perf_counter() - started
    ctx = _ctx(tenant["id"])
    _change(ctx)
    started = time.perf_counter()
    after_changes = lifecycle.reset(ctx)
    changed_reset = time.perf_counter() - started
    started = time.perf_counter()
    idle = lifecycle.reset(ctx)
    idle_reset = time.perf_counter() - started
    assert idle["deleted"] == idle["restored"] == idle["updated"] == idle["created"] == 0, idle
    rows = [
        ["plant the company anew (create)", f"{planted:.1f}", "", ""],
        [
            f"reset after {CHANGES} added, {CHANGES} changed, {CHANGES} deleted",
            f"{changed_reset:.1f}",
            f"{changed_reset / planted:.2f}" if planted else "",
            f"deleted {after_changes['deleted']}, restored {after_changes['restored']}, "
            f"updated {after_changes['updated']}, cleared {after_changes['cleared']}",
        ],
        ["reset with nothing to do", f"{idle_reset:.1f}", f"{idle_reset / planted:.2f}" if planted else "", ""],
    ]
    record(
        "sandbox reset after changes (make serve's stack)",
        f"{changed_reset:.1f} s",
        f"< {RESET_TARGET_S} s",
        "ok" if changed_reset < RESET_TARGET_S else "over",
    )
    out = f"Sandbox ({seed} seed):\n\n" + table(["step", "seconds", "of planting", "what it did"], rows)
    print(out, flush=True)
    return out


if __name__ == "__main__":
    main()
