"""The export queue: exports.create sends one message per export, the export worker (Lambda
`run_exports`, fed by the queue) runs it. `ExportJob` is the message, built and read here."""

from __future__ import annotations

import json
from dataclasses import dataclass

from chalicelib import config
from chalicelib.sqs_client import sqs


@dataclass(frozen=True)
class ExportJob:
    """The message of one export: the one place that knows its shape."""

    tenant_id: str
    export_id: str

    def body(self) -> str:
        return json.dumps({"tenantId": self.tenant_id, "exportId": self.export_id})

    @classmethod
    def from_body(cls, body: str) -> ExportJob:
        """The message's export; a KeyError, TypeError or ValueError for a body that is not one."""
        message = json.loads(body)
        return cls(str(message["tenantId"]), str(message["exportId"]))


def enqueue(tenant_id: str, export_id: str) -> None:
    url = config.export_queue_url()
    if url is None:
        raise RuntimeError("PM_EXPORT_QUEUE_URL is not set: exports have nowhere to go")
    sqs().send_message(QueueUrl=url, MessageBody=ExportJob(tenant_id, export_id).body())
