"""The sandbox queue: the console asks for a sandbox's planting or reset (a minute's work, longer
than a request may take) by one message; the sandbox worker (sandbox/worker.py) runs it.
`SandboxJob` is the message, built and read here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chalicelib import config
from chalicelib.sqs_client import sqs


@dataclass(frozen=True)
class SandboxJob:
    """One job: `action` (plant or reset) of the sandbox `tenant_id`, run as `stamp` (who asked)."""

    tenant_id: str
    action: str
    stamp: dict[str, Any]

    def body(self) -> str:
        return json.dumps({"tenantId": self.tenant_id, "action": self.action, "stamp": self.stamp})

    @classmethod
    def from_body(cls, body: str) -> SandboxJob:
        """The message's job; a KeyError, TypeError or ValueError for a body that is not one."""
        message = json.loads(body)
        return cls(str(message["tenantId"]), str(message["action"]), dict(message["stamp"]))


def enqueue(tenant_id: str, action: str, stamp: dict[str, Any]) -> None:
    """One job: `action` (plant or reset) of the sandbox, run as `stamp` (who asked)."""
    url = config.sandbox_queue_url()
    if url is None:
        raise RuntimeError("PM_SANDBOX_QUEUE_URL is not set: sandbox jobs have nowhere to go")
    sqs().send_message(QueueUrl=url, MessageBody=SandboxJob(tenant_id, action, stamp).body())
