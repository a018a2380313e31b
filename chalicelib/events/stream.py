"""The table's stream handler: each entity change becomes an audit record and, when it is an
event, an entry of the change feed (events/feed.py, written together), then a delivery per
subscribed webhook. A failure is reported back (batchItemFailures) as Lambda's
ReportBatchItemFailures for streams reads it: the stream goes on from the first failed
record, so that record and everything after it come again. Records already done are
written again harmlessly: audit ids and event ids are functions of the stream record, the
audit write puts the same content again, a delivery is written only if it does not exist."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib.entity_search import follow
from chalicelib.events import audit, deliveries, feed
from chalicelib.events.changes import Change, from_record
from chalicelib.log import logger

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord


def handle_record(record: dict[str, Any]) -> None:
    """One record on its own (dead-letter replay): its audit record, then its deliveries."""
    from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (  # cold start: see handle_event
        DynamoDBRecord,
    )

    change = from_record(DynamoDBRecord(record))
    if change is None:
        return
    _record([change])
    deliveries.fan_out(change)


def handle_event(event: dict[str, Any]) -> dict[str, Any]:
    """Lambda entry for a DynamoDB stream batch; answers the partial batch failures.

    The batch's audit records go out together (BatchWriteItem); if that fails, the whole
    batch is reported failed and comes again. Deliveries are then made record by record, in
    stream order; at the first record that fails (unreadable, or its deliveries could not be
    written) the batch stops, and that record and all after it are reported. Going on past
    it would let a later change of the same entity reach its webhooks before the failed
    one: the order per entity holds only if no delivery skips ahead of an earlier one."""
    from aws_lambda_powertools.utilities.data_classes import (  # cold start: Powertools' data classes (~100 ms)
        DynamoDBStreamEvent,  # load with the first batch, not with the REST app
    )

    records = list(DynamoDBStreamEvent(event).records) if event.get("Records") else []
    changes: dict[str, Change | None] = {}
    for record in records:
        try:
            changes[_sequence(record)] = from_record(record)
        except Exception:  # noqa: BLE001 - reported below; the stream redelivers it
            logger.exception("unreadable stream record")
    try:
        _record([c for c in changes.values() if c is not None])
    except Exception:  # noqa: BLE001 - reported whole; what was written is found again and skipped
        logger.exception("audit and feed writes of the batch failed")
        return _failed_from(records, 0)
    for index, record in enumerate(records):
        sequence = _sequence(record)
        if sequence not in changes:
            return _failed_from(records, index)
        change = changes[sequence]
        if change is None:
            continue
        try:
            deliveries.fan_out(change)
        except Exception:  # noqa: BLE001 - reported; the stream redelivers it and what follows
            logger.exception("webhook deliveries of a stream record failed", extra={"sequence": sequence})
            return _failed_from(records, index)
    return {"batchItemFailures": []}


def _record(changes: list[Change]) -> None:
    """Audit records (BatchWriteItem) for the changes without an event; for the others their
    audit records with their feed entries (TransactWriteItems, each change once); then the
    entity search's index (entity_search/follow.py: rewriting a row twice changes nothing)."""
    audit.record_many([c for c in changes if not c.has_event])
    feed.append([c for c in changes if c.has_event])
    follow.follow(changes)


def _failed_from(records: list[DynamoDBRecord], first: int) -> dict[str, Any]:
    failed = records[first:]
    logger.warning("stream records failed", extra={"failed": len(failed), "of": len(records)})
    return {"batchItemFailures": [{"itemIdentifier": _sequence(r)} for r in failed]}


def _sequence(record: DynamoDBRecord) -> str:
    return (record.dynamodb.sequence_number if record.dynamodb else None) or ""
