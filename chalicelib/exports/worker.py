"""The export worker (Lambda `run_exports`, fed by the export queue; locally the queue poller):
one message per export, the tenant's entities written as NDJSON lines (exports/lines.py) into a
gzip file in S3 (exports/sink.py), the files of its documents into a zip beside it
(exports/archive.py), then the export settled (store/exports.py).

While it writes, the worker renews the export's place among the tenant's running exports (a lease of
config.EXPORT_LEASE_SECONDS, store/exports.py): a worker that dies frees it a lease later, and one that
finds its place gone (it lapsed) stops and settles the export failed.

It reads as the key that asked reads, with the key as it is when the export runs (a key disabled
meanwhile exports nothing): its read areas, its objects, its integration's aliases. Memory stays
bounded: a chunk of entities, a part of the file and the remembered aliases at a time."""

from __future__ import annotations

import json
import time
from typing import Any

from aws_lambda_powertools.utilities.data_classes import SQSEvent

from chalicelib import clock, config
from chalicelib.context import CallContext
from chalicelib.errors import NotFound
from chalicelib.exports import archive, lines, sink
from chalicelib.exports import keys as files_of
from chalicelib.exports.queue import ExportJob
from chalicelib.log import logger
from chalicelib.store import exports as store
from chalicelib.store import keys


def handle_event(event: dict[str, Any]) -> dict[str, Any]:
    """An SQS event as Lambda delivers it. An export that fails is settled as failed (asking
    again makes a new one); only a worker that dies (its timeout) sees the message again."""
    for record in SQSEvent(event).records:
        try:
            job = ExportJob.from_body(record.body)
        except (ValueError, KeyError, TypeError):
            logger.exception("unreadable export message", extra={"messageId": record.message_id})
            continue
        export = store.get(job.tenant_id, job.export_id)
        if export is None:
            logger.warning("export message names no export", extra={"messageId": record.message_id})
            continue
        run(export)
    return {"batchItemFailures": []}


def reading_context(export: store.Export) -> CallContext:
    """The asking key's context as the key is now; NotFound when it is gone, disabled or expired."""
    asked = export.data["askedBy"]
    bare = CallContext(tenant_id=export.tenant_id, key_id=asked["keyId"], agent_name="", scopes=frozenset())
    key = keys.get_key(bare, asked["keyId"]).data_dict()
    if key.get("disabled") or (key.get("expiresAt") and key["expiresAt"] <= clock.now_iso()):
        raise NotFound("The key that asked for the export is disabled or expired.")
    return CallContext(
        tenant_id=export.tenant_id,
        key_id=asked["keyId"],
        agent_name=key["agentName"],
        scopes=frozenset(key["scopes"]),
        integration_id=key.get("integrationId"),
        person_id=key.get("personId"),
        operation="exports.create",
        channel=asked.get("channel") or "rest",
        untrusted_text=key.get("untrustedText") or "show",
        objects=frozenset(key["objects"]) if key.get("objects") is not None else None,
    )


def readable_kinds(ctx: CallContext, wanted: list[str] | None) -> list[lines.Kind]:
    """The exported types this key may read, of those asked for (all when none were), in order."""
    return [
        kind for kind in lines.kinds() if (wanted is None or kind.etype.name in wanted) and kind.readable_by(ctx.scopes)
    ]


RENEW_SECONDS = config.EXPORT_LEASE_SECONDS / 4  # a lease is renewed this long after the last renewal


class LeaseLost(Exception):
    """The export's place lapsed while the worker ran (it was stalled past its lease)."""


class _Lease:
    """The running export's place, renewed every RENEW_SECONDS as the worker writes."""

    def __init__(self, export: store.Export) -> None:
        self.export = export
        self.renewed = time.monotonic()

    def keep(self) -> None:
        if time.monotonic() - self.renewed < RENEW_SECONDS:
            return
        if not store.renew(self.export):
            raise LeaseLost(f"export {self.export.export_id} lost its place")
        self.renewed = time.monotonic()


def run(export: store.Export) -> None:
    attempt = store.start(export)
    if attempt is None:
        return  # settled already: a repeated message
    try:
        ctx = reading_context(export)
    except NotFound as gone:
        store.settle(export, store.FAILED, error=gone.detail)
        return
    entities = sink.PartUpload(
        files_of.export_key(export.tenant_id, export.export_id, files_of.ENTITIES_FILE), "application/gzip", gzip=True
    )
    files: archive.FileArchive | None = None
    lease = _Lease(export)
    try:
        counts: dict[str, int] = {}
        aliases = lines.Aliases(ctx)
        for kind in readable_kinds(ctx, export.data.get("entityTypes")):
            counts[kind.etype.name] = 0
            reading = ctx.for_operation("exports.create")  # what the reach learnt, per type
            for chunk in lines.entities(reading, kind):
                for item, line in lines.lines(reading, kind, chunk, aliases):
                    lease.keep()
                    if kind.upsert is None:
                        files = files or archive.FileArchive(
                            files_of.export_key(export.tenant_id, export.export_id, files_of.FILES_FILE)
                        )
                        line["file"] = files.add(kind.etype.name, line["alias"], item)
                    entities.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
                    counts[kind.etype.name] += 1
        lease.keep()
        size = entities.close()
        facts: dict[str, Any] = {"counts": counts, "size": size, "lines": sum(counts.values())}
        if files is not None:
            facts |= {"filesSize": files.close(), "files": files.count}
        store.settle(export, store.DONE, **facts)
        logger.info("export done", extra={"exportId": export.export_id, "lines": facts["lines"], "bytes": size})
    except Exception:  # noqa: BLE001 - settled as failed; the asker starts a new export
        logger.exception("export failed", extra={"exportId": export.export_id, "attempt": attempt})
        for upload in (entities, files):
            if upload is not None:
                try:
                    upload.abort()
                except Exception:  # noqa: BLE001 - the bucket's lifecycle removes parts left behind
                    logger.warning("could not abort an export's upload", exc_info=True)
        store.settle(export, store.FAILED, error="The export failed; start a new one (the request id is in the logs).")
