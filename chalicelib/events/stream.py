"""The table's stream handler: each entity change becomes an audit record. Records are
processed one by one with Powertools' BatchProcessor: a failing record is reported back
(batchItemFailures), so the stream redelivers it and everything after it; records
already done are written again harmlessly (the audit write is idempotent)."""

from __future__ import annotations

from typing import Any

from chalicelib.events import audit, deliveries
from chalicelib.events.changes import Change, from_record
from chalicelib.log import logger


def handle_record(record: dict[str, Any]) -> None:
    """One record on its own (dead-letter replay): its audit record, then its deliveries."""
    change = from_record(record)
    if change is None:
        return
    audit.record(change)
    deliveries.fan_out(change)


def handle_event(event: dict[str, Any]) -> dict[str, Any]:
    """Lambda entry for a DynamoDB stream batch; answers the partial batch failures.

    The batch's audit records go out together (BatchWriteItem); if that fails, the whole
    batch is reported failed and comes again. Deliveries are then made record by record,
    and a record whose deliveries fail is reported on its own (Powertools BatchProcessor)."""
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
    from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

    records = event.get("Records", [])
    changes: dict[str, Change | None] = {}
    for record in records:
        try:
            changes[_sequence(record)] = from_record(record)
        except Exception:  # noqa: BLE001 - reported below; the stream redelivers it
            logger.exception("unreadable stream record")
    try:
        audit.record_many([c for c in changes.values() if c is not None])
    except Exception:  # noqa: BLE001 - nothing of the batch counts as done
        logger.exception("audit batch write failed")
        return {"batchItemFailures": [{"itemIdentifier": _sequence(r)} for r in records]}

    def one(record: DynamoDBRecord) -> None:
        sequence = _sequence(record.raw_event)
        if sequence not in changes:
            raise ValueError("unreadable stream record")
        change = changes[sequence]
        if change is not None:
            deliveries.fan_out(change)

    processor = BatchProcessor(event_type=EventType.DynamoDBStreams)
    result: dict[str, Any] = dict(process_partial_response(event=event, record_handler=one, processor=processor))
    if result.get("batchItemFailures"):
        logger.warning("stream records failed", extra={"failed": len(result["batchItemFailures"])})
    return result


def _sequence(record: dict[str, Any]) -> str:
    return str((record.get("dynamodb") or {}).get("SequenceNumber", ""))
