"""The table's stream handler: each entity change becomes an audit record. Records are
processed one by one with Powertools' BatchProcessor: a failing record is reported back
(batchItemFailures), so the stream redelivers it and everything after it; records
already done are written again harmlessly (the audit write is idempotent)."""

from __future__ import annotations

from typing import Any

from chalicelib.events import audit
from chalicelib.events.changes import from_record
from chalicelib.log import logger


def handle_record(record: dict[str, Any]) -> None:
    change = from_record(record)
    if change is None:
        return
    audit.record(change)


def handle_event(event: dict[str, Any]) -> dict[str, Any]:
    """Lambda entry for a DynamoDB stream batch; answers the partial batch failures."""
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
    from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

    processor = BatchProcessor(event_type=EventType.DynamoDBStreams)

    def one(record: DynamoDBRecord) -> None:
        handle_record(record.raw_event)

    result: dict[str, Any] = dict(process_partial_response(event=event, record_handler=one, processor=processor))
    if result.get("batchItemFailures"):
        logger.warning("stream records failed", extra={"failed": len(result["batchItemFailures"])})
    return result
