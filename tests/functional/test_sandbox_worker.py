"""The sandbox worker (issue 36): a sandbox made or reset in the console is a job on the sandbox queue
(sandbox/jobs.py), which the worker (sandbox/worker.py; here the test stack's queue poller, as
`run_sandboxes` in Lambda) runs through the operations. The sandbox says `planting` at once and
`ready` once it holds the demo company (the small one, PM_DEMO_SIZE=small as the tests set it: its
size is test_sandboxes.py's); a job that fails leaves it `failed` and comes back (SQS
batch item failures) without holding up the others; a job for no sandbox changes nothing."""

from __future__ import annotations

import json
import uuid
from typing import Any

import boto3
import pytest

from chalicelib import config
from chalicelib.context import CallContext
from chalicelib.sandbox import lifecycle, worker
from chalicelib.sandbox import seed as seeding
from chalicelib.sandbox.demo import TOTALS
from chalicelib.scopes import ALL_SCOPES
from chalicelib.store import keys
from tests.client import Api, Tenant
from tests.eventually import eventually
from tests.functional.test_sandboxes import _totals

PLANTING_SECONDS = 120.0  # the small demo company: seconds on the embedded stack, longer on a busy machine


def _state(tenant_id: str) -> str:
    return str(keys.get_tenant(tenant_id).data_dict().get("sandboxState"))


def _create(parent: Tenant, seed: str, **kw: Any) -> tuple[dict[str, Any], str]:
    email = f"sandbox-{uuid.uuid4().hex[:8]}@example.org"
    tenant, _key, secret = lifecycle.create(
        "Spielwiese HV", email, seed, channel="console", parent_tenant_id=parent.id, **kw
    )
    return tenant, secret


def _record(tenant_id: str, action: str = lifecycle.PLANT, body: str | None = None) -> dict[str, Any]:
    stamp = CallContext(
        tenant_id=tenant_id, key_id="", agent_name="Tester", scopes=frozenset(ALL_SCOPES), channel="console"
    ).stamp()
    text = body if body is not None else json.dumps({"tenantId": tenant_id, "action": action, "stamp": stamp})
    return {"messageId": str(uuid.uuid4()), "body": text}


@pytest.mark.slow
def test_a_queued_demo_sandbox_is_planting_at_once_then_ready_with_the_demo_company(api: Api, tenant: Tenant) -> None:
    created, secret = _create(tenant, "demo", queued=True)
    assert created["sandboxState"] == lifecycle.PLANTING
    assert [(s["id"], s["sandboxState"]) for s in keys.sandboxes_of(tenant.id)] == [(created["id"], lifecycle.PLANTING)]
    eventually(
        lambda: _state(created["id"]) == lifecycle.READY,
        timeout=PLANTING_SECONDS,
        message="the sandbox worker planted the demo company",
    )
    seeded = _totals(api, secret)
    assert config.demo_size() == "small"  # tests/conftest.py
    assert seeded == {kind: TOTALS["small"][kind] for kind in seeded}
    assert seeded["object"] == 1 and seeded["unit"] == 6 and seeded["document"] == 3
    assert [(s["id"], s["sandboxState"]) for s in keys.sandboxes_of(tenant.id)] == [(created["id"], lifecycle.READY)]
    assert "sandboxState" not in keys.get_tenant(tenant.id).data_dict()  # the live tenant is no sandbox


def test_a_job_for_no_sandbox_changes_nothing_and_the_next_job_runs(stack: Any, tenant: Tenant) -> None:
    """Through the poller: a message naming a live tenant is done with (a live tenant never gets a
    sandbox's state), and the job behind it plants its sandbox. The local queue keeps a failing job
    as the deployed one does (MAX_RECEIVES attempts, then its dead-letter queue)."""
    sqs = boto3.client("sqs", region_name=config.region())
    url = config.sandbox_queue_url()
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["RedrivePolicy"])["Attributes"]
    assert json.loads(attributes["RedrivePolicy"])["maxReceiveCount"] == worker.MAX_RECEIVES
    handled = stack.sandboxes.handled
    sqs.send_message(QueueUrl=url, MessageBody=_record(tenant.id)["body"])
    created, _secret = _create(tenant, lifecycle.EMPTY, queued=True)
    eventually(lambda: _state(created["id"]) == lifecycle.READY, message="the empty sandbox planted")
    eventually(lambda: stack.sandboxes.handled >= handled + 2, message="both messages handled")
    assert "sandboxState" not in keys.get_tenant(tenant.id).data_dict()


def test_a_failing_job_is_a_batch_item_failure_and_the_others_stand(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's answer for a batch (Lambda hands it one job, the local poller as well): the job
    that raised and the unreadable message come back to SQS, its sandbox `failed` with what failed;
    the planted one is `ready`; the one for no sandbox is done with."""
    monkeypatch.setattr(lifecycle.jobs, "enqueue", lambda *_args: None)  # the records are made here
    lines_of = seeding.lines_of

    def refused(seed: str) -> list[dict[str, Any]]:
        if seed == "zerbrochen":
            raise RuntimeError("the seed is broken")
        return lines_of(seed)

    monkeypatch.setattr(seeding, "lines_of", refused)
    broken, _ = _create(tenant, "zerbrochen", queued=True)
    empty, _ = _create(tenant, lifecycle.EMPTY, queued=True)
    records = [
        _record(broken["id"]),
        _record("", body="{not json"),
        _record(empty["id"]),
        _record(tenant.id),
        _record(empty["id"], action="explode"),
    ]
    answer = worker.handle_event({"Records": records})
    failed = {f["itemIdentifier"] for f in answer["batchItemFailures"]}
    assert failed == {records[0]["messageId"], records[1]["messageId"], records[4]["messageId"]}
    assert _state(broken["id"]) == lifecycle.FAILED
    assert "the seed is broken" in keys.get_tenant(broken["id"]).data_dict()["sandboxDetail"]
    assert _state(empty["id"]) == lifecycle.READY
    assert "sandboxState" not in keys.get_tenant(tenant.id).data_dict()
    # a reset is a job like a planting: the empty sandbox is reset and ready again
    assert worker.handle_event({"Records": [_record(empty["id"], lifecycle.RESET)]}) == {"batchItemFailures": []}
    assert _state(empty["id"]) == lifecycle.READY
