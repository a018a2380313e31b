"""The sandbox worker (Lambda `run_sandboxes`, fed by the sandbox queue; locally the queue poller):
one message per job (sandbox/jobs.py), a sandbox's planting or reset, run by lifecycle.run_job
through the registry's operations in this process (the seed writes through the upserts and
documents.upload), which leaves the sandbox `ready`, or `failed` with what failed.

A job that raised is reported in `batchItemFailures`: SQS hands it out again once its visibility
timeout is over (both jobs may run twice: the upserts change nothing the second time) and moves it
to the dead-letter queue after the last attempt. The other jobs of the batch stand. A message that
names no sandbox (deleted before its job ran) is done with: nothing is left to plant, and a live
tenant is never touched. Logged: the message id, the tenant, the action and a failure's traceback
(log.py redacts any key or secret in it), never the stamp (who asked)."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import SQSEvent, SQSRecord

from chalicelib.entities import ENTITY_TYPES
from chalicelib.errors import NotFound
from chalicelib.log import logger
from chalicelib.registry import REGISTRY
from chalicelib.sandbox import lifecycle
from chalicelib.sandbox.jobs import SandboxJob
from chalicelib.store import keys

JOBS = (lifecycle.PLANT, lifecycle.RESET)
# How often SQS hands a job out before its dead-letter queue (infra/resources.py): a job that
# failed twice more after the first failure will not succeed by itself.
MAX_RECEIVES = 3


def require_registry() -> None:
    """The operations the seed runs must be registered in this process (chalicelib.resources.load_all(),
    as app.py does at import and the local poller before it starts): without them every job would
    fail at its first upsert and wait its retries out, the sandbox `failed`."""
    if "document" not in ENTITY_TYPES or "documents.upload" not in REGISTRY:
        raise RuntimeError(
            f"the sandbox worker cannot start: the registry is empty ({len(ENTITY_TYPES)} entity types, "
            f"{len(REGISTRY)} operations); load the resource modules first "
            "(chalicelib.resources.load_all(), as app.py does)"
        )


def handle_event(event: dict[str, Any]) -> dict[str, Any]:
    """An SQS event as Lambda delivers it (one job a batch in Lambda; any number here)."""
    require_registry()
    failures: list[dict[str, str]] = []
    for record in SQSEvent(event).records:
        if not run(record):
            failures.append({"itemIdentifier": record.message_id})
    return {"batchItemFailures": failures}


def run(record: SQSRecord) -> bool:
    """One job; False when it is to come back (it raised, or its message cannot be read)."""
    try:
        job = SandboxJob.from_body(record.body)
        if job.action not in JOBS:
            raise ValueError(f"unknown sandbox job {job.action!r}")
    except (ValueError, KeyError, TypeError):
        logger.exception("unreadable sandbox job", extra={"messageId": record.message_id})
        return False  # its dead-letter queue keeps it for someone to look at
    facts = {"messageId": record.message_id, "tenantId": job.tenant_id, "action": job.action}
    try:
        keys.sandbox_seed(job.tenant_id)
    except NotFound:
        logger.warning("sandbox job names no sandbox", extra=facts)
        return True
    try:
        counts = lifecycle.run_job(job.tenant_id, job.action, job.stamp)
    except Exception as failed:  # noqa: BLE001 - run_job set the sandbox failed; SQS retries the job
        logger.error("sandbox job failed", extra={**facts, "error": type(failed).__name__}, exc_info=True)
        return False
    logger.info("sandbox job done", extra={**facts, **{f"count_{name}": n for name, n in counts.items()}})
    return True
