"""Who is calling: the key's tenant, integration, agent, binding and scopes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CallContext:
    tenant_id: str
    key_id: str
    agent_name: str
    scopes: frozenset[str]
    integration_id: str | None = None
    person_id: str | None = None  # contact id when the key is person-bound
    request_id: str = ""
    operation: str = ""

    @property
    def integration_key(self) -> str:
        """Partition of aliases: each integration has its own, the tenant's own keys share '-'."""
        return self.integration_id or "-"

    @property
    def binding(self) -> dict[str, Any]:
        if self.person_id:
            return {"type": "person", "contactId": self.person_id}
        return {"type": "company"}

    def stamp(self) -> dict[str, Any]:
        """The `changedBy` written on every item this call changes; the stream handler
        attributes the change from it without reading anything else."""
        return {
            "keyId": self.key_id,
            "agentName": self.agent_name,
            "integrationId": self.integration_id,
            "personId": self.person_id,
            "requestId": self.request_id,
            "operation": self.operation,
        }

    def for_operation(self, name: str) -> CallContext:
        return CallContext(
            tenant_id=self.tenant_id,
            key_id=self.key_id,
            agent_name=self.agent_name,
            scopes=self.scopes,
            integration_id=self.integration_id,
            person_id=self.person_id,
            request_id=self.request_id,
            operation=name,
        )
