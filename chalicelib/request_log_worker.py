"""The WriteRequestLogs function (app.py write_request_logs): CloudWatch Logs hands it the
request-log lines of the HTTP functions (the subscription filter store/requests.LOG_FILTER),
and it stores them in batches (store/requests.write_entries).

The event is CloudWatch Logs' own: `{"awslogs": {"data": <base64 of gzip of JSON>}}`, the JSON
holding `messageType` (DATA_MESSAGE, or CONTROL_MESSAGE when the subscription is checked) and
`logEvents` [{id, timestamp, message}]. A batch that fails raises: Lambda retries the
asynchronous invocation twice, then hands the event to the on-failure destination."""

from __future__ import annotations

import base64
import gzip
import io
import json
from typing import Any

from aws_lambda_powertools.utilities.data_classes import CloudWatchLogsEvent
from aws_lambda_powertools.utilities.data_classes.cloud_watch_logs_event import CloudWatchLogsDecodedData

from chalicelib.log import logger
from chalicelib.store import requests

# A subscription batch is at most 1 MB of log data (CloudWatch's limit); its gzip holds far less,
# but a decompression bomb must not take the function's memory.
MAX_BATCH_BYTES = 4 * 1024 * 1024


def lines_of(event: dict[str, Any]) -> list[str]:
    """The log lines of a subscription event (none for a control message). Read through Powertools'
    data classes, but unpacked here: its `decompress_logs_data` has no bound on what a gzip holds."""
    packed = base64.b64decode(CloudWatchLogsEvent(event).raw_logs_data)
    with gzip.GzipFile(fileobj=io.BytesIO(packed)) as unpacked:
        raw = unpacked.read(MAX_BATCH_BYTES + 1)
    if len(raw) > MAX_BATCH_BYTES:
        raise ValueError(f"a log batch over {MAX_BATCH_BYTES} bytes unpacked")
    batch = CloudWatchLogsDecodedData(json.loads(raw))
    if batch.message_type != "DATA_MESSAGE":
        return []
    return [str(log_event.message) for log_event in batch.log_events]


def handle_event(event: dict[str, Any]) -> dict[str, int]:
    lines = lines_of(event)
    written = requests.write_entries(lines)
    logger.info("request log entries written", extra={"lines": len(lines), "written": written})
    return {"lines": len(lines), "written": written}
