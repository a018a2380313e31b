"""`pmctl import`: an export's lines (exports.show's file) posted to a tenant through the public
interface, as any integrator would (the loading itself: exports/load.py). Running it again changes
nothing.

It speaks HTTP with the standard library (a key of the target tenant: write scopes of the areas
imported, read:aliases and write:aliases: a document's alias is looked up and mapped), so it runs
beside any deployment; the service's limits it keeps to and the entity types' fields are read from the
service's own modules. An entity exported without an alias has its id as `alias`: the upserts map such
an id from elsewhere, and aliases.upsert a document's (exports/load.py)."""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any

from chalicelib.exports.load import ImportRefused, Outcome, read_lines, run

__all__ = ["Api", "ImportRefused", "Outcome", "read_lines", "run"]


class Api:
    def __init__(self, base_url: str, key: str, timeout: float = 120.0) -> None:
        self.base = base_url.rstrip("/") + "/propertymanagement/v2"
        self.key = key
        self.timeout = timeout
        self.run = uuid.uuid4().hex  # a retried call of this run is answered once; a new run looks afresh

    def call(self, kind: str, name: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {self.key}"}
        if kind == "command":
            data = json.dumps(body or {}).encode()
            # a call retried within this run answers the first answer (Idempotency-Key)
            idempotency = hashlib.sha256(self.run.encode() + data).hexdigest()
            headers |= {"Content-Type": "application/json", "Idempotency-Key": idempotency}
            request = urllib.request.Request(f"{self.base}/command/{name}", data=data, headers=headers, method="POST")
        else:
            query = urllib.parse.urlencode(body or {}, doseq=True)  # a list as the key repeated
            request = urllib.request.Request(f"{self.base}/query/{name}?{query}", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read() or b"null")
