"""A sandbox's demo data written into it through the registry's operations, in the service's own
process: the demo company's lines (sandbox/demo.py) loaded as an export is loaded (exports/load.py),
so validation, aliases, the audit trail and webhook events apply as to any integrator's upserts. How
much of a company a seed plants is the process's PM_DEMO_SIZE (config.demo_size(): `full`, or `small`
for tests), read when it is planted or reset."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import Any

from chalicelib import config, dispatch, registry
from chalicelib.context import CallContext
from chalicelib.errors import ApiError
from chalicelib.exports import load
from chalicelib.scopes import ALL_SCOPES

SEED_AGENT = "demo data"  # the audit trail's agent of the seed's changes
EMPTY = "empty"  # the seed that plants nothing


class InProcess:
    """exports/load.py's Caller, running the operations here as one key of the sandbox."""

    timeout = 120.0

    def __init__(self, ctx: CallContext) -> None:
        self.ctx = ctx

    def call(self, kind: str, name: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        try:
            return 200, dispatch.run(registry.REGISTRY[name], self.ctx, body or {})
        except ApiError as refused:
            return refused.status, refused.problem()


def seeder(tenant_id: str, key_id: str, channel: str) -> CallContext:
    """Who writes the seed: the sandbox's first key, as the agent `demo data`."""
    return CallContext(
        tenant_id=tenant_id, key_id=key_id, agent_name=SEED_AGENT, scopes=frozenset(ALL_SCOPES), channel=channel
    )


def lines_of(seed: str) -> list[dict[str, Any]]:
    """The seed's lines (exports/lines.py's format), in load order, at the demo size set."""
    if seed == EMPTY:
        return []
    from chalicelib.sandbox import demo  # cold start: Faker and fpdf2 load only when a sandbox is seeded

    return demo.demo_lines(seed, config.demo_size())


def plant(ctx: CallContext, seed: str, progress: Callable[[str], None] = lambda _text: None) -> load.Outcome:
    """The demo company of `seed` written into the sandbox; a failed item raises (the generator's
    data must pass the operations' rules)."""
    planted = lines_of(seed)
    if not planted:  # the empty seed: nothing to load, no files
        return load.run(InProcess(ctx), iter(()), None, progress)
    from chalicelib.sandbox import demo  # cold start: as in lines_of

    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as files:
        for name, content in demo.demo_files(seed, config.demo_size()).items():
            files.writestr(name, content)
    with zipfile.ZipFile(archive) as files:
        outcome = load.run(InProcess(ctx), iter(planted), files, progress)
    if outcome.failures:
        raise load.ImportRefused(f"the demo data was refused: {outcome.failures[:3]}")
    return outcome
