"""Who is calling: the key's tenant, integration, agent, binding and scopes."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

# The surfaces a change can come through, as the audit trail names them: the REST interface, the
# MCP server, the console (a signed-in person), and the operator's CLI (pmctl).
CHANNELS = ("rest", "mcp", "console", "operator", "oauth")


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
    channel: str = "rest"  # the surface the call came through, one of CHANNELS (shown in the audit trail)
    source_ip: str | None = None  # of an anonymous call (sign-up): its per-address limits count per source
    # "omit": over MCP, free text another party wrote comes back as a placeholder naming its
    # author (store/authors.py); "show" (default): as written, marked with `lastChangedBy`
    untrusted_text: str = "show"
    # The object ids an object-limited key is limited to (store/reach.py); None: every object.
    objects: frozenset[str] | None = None
    # An OAuth access token's face (mcp or rest: the resource its grant was for); None: every face.
    audience: str | None = None
    # What one operation has learnt about the key's reach (store/reach.py); each operation starts afresh.
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

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
            "channel": self.channel,
        }

    def for_operation(self, name: str) -> CallContext:
        return replace(self, operation=name, memo={})
