"""The export queue: exports.create sends one message per export, the export worker (Lambda
`run_exports`, fed by the queue) runs it."""

from __future__ import annotations

import json

from chalicelib import config
from chalicelib.sqs_client import sqs


def enqueue(tenant_id: str, export_id: str) -> None:
    url = config.export_queue_url()
    if url is None:
        raise RuntimeError("PM_EXPORT_QUEUE_URL is not set: exports have nowhere to go")
    sqs().send_message(QueueUrl=url, MessageBody=json.dumps({"tenantId": tenant_id, "exportId": export_id}))
