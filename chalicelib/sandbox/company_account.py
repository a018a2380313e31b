"""A sandbox held to the account of the company whose people asked for it (issue 51): the company's
trial (403 `trial_ended`), its cap of live sandboxes (409 `sandbox_limit_reached`) and its sandbox
changes per day (429 `sandbox_changes_throttled`). Apart from the sandbox's life (lifecycle.py) so
that these guards are what `make mutate` changes in its `sandboxes` group."""

from __future__ import annotations

from chalicelib import account, config, throttle
from chalicelib import error_codes as codes
from chalicelib.errors import Conflict
from chalicelib.store import keys


def admit_creation(parent_tenant_id: str) -> int:
    """Refuses a new sandbox of the company as its account stands; answers the cap that the
    creation's transaction holds it to (keys.hold_sandbox: another creation may take the last place
    meanwhile)."""
    cap = config.max_sandboxes()
    account.refuse_ended_trial(parent_tenant_id)
    held = keys.sandbox_count(parent_tenant_id)
    if held >= cap:
        raise limit_reached(cap, held)
    throttle.take_sandbox_change(parent_tenant_id)
    return cap


def admit_reset(parent_tenant_id: str) -> None:
    """A reset asked for by the company's people: held to its trial, one of its changes a day."""
    account.refuse_ended_trial(parent_tenant_id)
    throttle.take_sandbox_change(parent_tenant_id)


def limit_reached(cap: int, held: int) -> Conflict:
    return Conflict(
        f"The company holds {held} sandboxes; a company may hold at most {cap}. Delete a sandbox it no longer "
        "needs, then create the new one.",
        code=codes.SANDBOX_LIMIT_REACHED,
        extra={"maxSandboxes": cap, "sandboxes": held},
    )
