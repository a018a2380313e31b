"""Issue 53, point 3, on `make serve` as a newcomer runs it (its own process, its own stack,
the stream poller and the index file in its state folder): a created or renamed entity is found,
and a deleted one gone, within 2 seconds of the write's answer. It runs with the `quiet` tests,
last and alone, since two busy cores shared by several runs can exceed 2 s on their own."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests import serve_process
from tests.client import Api, Tenant
from tests.eventually import eventually

FRESH_SECONDS = 2.0


def _ids(tenant: Tenant, query: str) -> set[str]:
    answer = tenant.get("search", {"query": query, "limit": 10, "offset": 0})
    return {result["id"] for result in answer["results"]}


def _within(check: Callable[[], bool], what: str) -> float:
    """Seconds until `check` holds, at most FRESH_SECONDS (else the test fails naming `what`)."""
    started = time.monotonic()
    eventually(check, timeout=FRESH_SECONDS, interval=0.02, message=what)
    return time.monotonic() - started


@pytest.mark.quiet
def test_on_make_serve_a_created_renamed_and_deleted_contact_is_found_then_gone_within_two_seconds(
    tmp_path: Path,
) -> None:
    from chalicelib.local.stack import free_port

    port = free_port()
    proc = serve_process.start(port, tmp_path)
    try:
        tenant = Api(f"http://127.0.0.1:{port}", outbox_dir=str(tmp_path / "outbox")).signup(company="Frisch GmbH")
        first, second = f"Lerchenfeld{uuid.uuid4().hex[:6]}", f"Amselgrund{uuid.uuid4().hex[:6]}"
        contact = tenant.contact(lastName=first)
        created = _within(lambda: contact["id"] in _ids(tenant, first), "the created contact found")
        tenant.ok(
            "contacts.update", {"contact": {"id": contact["id"], "lastName": second, "version": contact["version"]}}
        )
        renamed = _within(lambda: contact["id"] in _ids(tenant, second), "the renamed contact found")
        assert contact["id"] not in _ids(tenant, first)
        tenant.ok("contacts.delete", {"contact": contact["id"]})
        deleted = _within(lambda: contact["id"] not in _ids(tenant, second), "the deleted contact gone")
        print(f"fresh after: created {created:.3f} s, renamed {renamed:.3f} s, deleted {deleted:.3f} s")
    finally:
        serve_process.stop(proc)
