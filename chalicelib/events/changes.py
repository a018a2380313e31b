"""One entity change, read from a DynamoDB stream record.

Changes are entity items (SK "entity", a type of the entity catalogue) and the account's own
records: API keys (created, disabled) and the tenant (sign-up, plan and throttle changes),
audited like entities but never reverted. Key lookups, aliases, reference edges, unique
claims, idempotency markers, secrets and audit records themselves are bookkeeping and pass
silently."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from chalicelib import clock, ids
from chalicelib.entities import ENTITY_TYPES
from chalicelib.store.model import ENTITY_SK

REDACTED = "[redacted]"
# lookupPk is derived from a key's secret (its hash): kept out of the audit trail like the secret.
_SECRET_FIELDS = {"secret", "authorizationHeader", "key", "password", "token", "lookupPk"}
# The account's records (store/keys.py): an API key is an item SK "entity" of type apiKey, the
# tenant an item SK "tenant". The change stream's event filter (infra/resources.py) lets both through.
TENANT_SK = "tenant"
ACCOUNT_TYPES = {"apiKey": ENTITY_SK, "tenant": TENANT_SK}
_USE_FIELDS = {"lastUsedAt", "lastUsedIp"}  # a key's use (store/keys.py touch) is bookkeeping, not a change
_META = ("version", "createdAt", "updatedAt", "deletedAt")


@dataclass(frozen=True)
class Change:
    tenant_id: str
    entity_type: str
    entity_id: str
    action: str  # created | updated | deleted | restored
    at: str  # ISO time of the change (the writer's updatedAt)
    audit_id: str  # deterministic: the same stream record always yields the same id
    changed_by: dict[str, Any]
    before: dict[str, Any] | None  # the entity's state (data + version + deletedAt), None before a create
    after: dict[str, Any] | None
    aliases_only: bool  # only the aliases changed (no event, still audited)


def _deserialise(image: dict[str, Any] | None) -> dict[str, Any] | None:
    if not image:
        return None
    from boto3.dynamodb.types import TypeDeserializer

    plain = TypeDeserializer()
    return {name: plain.deserialize(value) for name, value in image.items()}


def _plain(value: Any) -> Any:
    """DynamoDB types to JSON types: Decimal to int (or str), sets to sorted lists."""
    from decimal import Decimal

    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(_plain(v) for v in value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else str(value)
    return value


def state(item: dict[str, Any] | None) -> dict[str, Any] | None:
    """What the audit keeps of an item: its fields (secrets redacted) and lifecycle meta."""
    if item is None:
        return None
    data = {k: (REDACTED if k in _SECRET_FIELDS else v) for k, v in _plain(item.get("data") or {}).items()}
    return {"data": data, **{k: _plain(item.get(k)) for k in _META}}


def audit_id(at: str, sequence: str) -> str:
    """A ULID whose time is the change's and whose rest comes from the stream sequence
    number: time-ordered, and the same for a record delivered twice."""
    moment = dt.datetime.fromisoformat(at.replace("Z", "+00:00"))
    millis = int(moment.timestamp() * 1000)
    digits = "".join(c for c in sequence if c.isdigit()) or "0"
    return f"aud_{ids.ulid_from(millis, int(digits) % (1 << 80))}"


def from_record(record: dict[str, Any]) -> Change | None:
    stream = record.get("dynamodb") or {}
    keys = _deserialise(stream.get("Keys")) or {}
    if keys.get("SK") not in (ENTITY_SK, TENANT_SK):
        return None
    new, old = _deserialise(stream.get("NewImage")), _deserialise(stream.get("OldImage"))
    current = new or old or {}
    entity_type = current.get("type")
    audited = (entity_type in ENTITY_TYPES and keys["SK"] == ENTITY_SK) or ACCOUNT_TYPES.get(str(entity_type)) == keys["SK"]
    if not audited or not current.get("tenantId"):
        return None
    action = _action(record.get("eventName", ""), old, new)
    if action is None:
        return None
    at = (new or {}).get("updatedAt") or (old or {}).get("updatedAt") or clock.now_iso()
    before, after = state(old), state(new)
    if entity_type in ACCOUNT_TYPES and action == "updated" and _only_use_changed(before, after):
        return None
    aliases_only = action == "updated" and before == after
    return Change(
        tenant_id=str(current["tenantId"]),
        entity_type=str(entity_type),
        entity_id=str(current.get("id")),
        action=action,
        at=str(at),
        audit_id=audit_id(str(at), str(stream.get("SequenceNumber", "0"))),
        changed_by=_plain((new or old or {}).get("changedBy") or {}),
        before=before,
        after=after,
        aliases_only=aliases_only,
    )


def _only_use_changed(before: dict[str, Any] | None, after: dict[str, Any] | None) -> bool:
    old, new = (before or {}).get("data", {}), (after or {}).get("data", {})
    changed = {name for name in old.keys() | new.keys() if old.get(name) != new.get(name)}
    return changed <= _USE_FIELDS and (before or {}).get("deletedAt") == (after or {}).get("deletedAt")


def _action(event: str, old: dict[str, Any] | None, new: dict[str, Any] | None) -> str | None:
    if event == "INSERT":
        return "created"
    if event == "REMOVE":
        return "deleted"  # entities are soft-deleted; a hard delete is still a deletion
    if event != "MODIFY" or old is None or new is None:
        return None
    if not old.get("deletedAt") and new.get("deletedAt"):
        return "deleted"
    if old.get("deletedAt") and not new.get("deletedAt"):
        return "restored"
    return "updated"
