"""One entity change, read from a DynamoDB stream record.

Changes are entity items (a type of the entity catalogue) and the account's own records: API
keys (created, disabled), the tenant (sign-up, plan and throttle changes) and an integration's
connection to the tenant (connected, disabled). The account's records are audited like
entities, but they are no events of the interface (no webhook gets them) and never reverted.
Key lookups, aliases, reference edges, unique claims, idempotency markers, secrets and audit
records themselves are bookkeeping and pass silently (store/audit_records.py tells the items
apart by their keys)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chalicelib import clock, ids, jsontext
from chalicelib.store import audit_records

if TYPE_CHECKING:  # the stream handler loads Powertools' data classes with its first batch (events/stream.py)
    from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

REDACTED = "[redacted]"
# lookupPk is derived from a key's secret (its hash): kept out of the audit trail like the secret.
_SECRET_FIELDS = {"secret", "authorizationHeader", "key", "password", "token", "lookupPk"}
# the audit's entity types of the account (a member: a person of the console's team)
ACCOUNT_TYPES = frozenset(audit_records.ACCOUNT_TYPES_BY_PREFIX.values())
# What the event source's filter lets through (infra/resources.py): the sort keys of the items the
# audit follows (store/audit_records.py); from_record drops the rest anyway.
STREAM_FILTER = {"dynamodb": {"Keys": {"SK": {"S": audit_records.AUDITED_SORT_KEYS}}}}
# Written on a key's record when it is used (store/keys.py record_use): bookkeeping, not a
# change of the account, so neither in the record's state nor a record of its own.
_USAGE_FIELDS = {"lastUsedAt", "lastUsedIp"}
_META = ("version", "createdAt", "updatedAt", "deletedAt")
# Left out of a type's state: e-mail addresses of the console's people (a member's; the tenant's is
# its owner's) stay out of the trail (the member's id and name say who it was, and the trail lives
# longer than a membership); bookkeeping: a sandbox's planting state (the worker's), an OAuth grant's
# live access key (each refresh swaps it; the key's creation is a record of its own).
_LEFT_OUT_FIELDS = {
    "member": frozenset({"email"}),
    "tenant": frozenset({"email", "sandboxState", "sandboxDetail"}),
    "oauthGrant": frozenset({"accessKeyId"}),
}


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
    account: bool = False  # a record of the account (key, tenant, integration): audited, no event, never reverted

    @property
    def has_event(self) -> bool:
        """An event of the interface (webhooks, the change feed): not the account's, not only aliases."""
        return not (self.aliases_only or self.account)


def state(item: dict[str, Any] | None, entity_type: str = "") -> dict[str, Any] | None:
    """What the audit keeps of an item: its fields (secrets redacted, people's addresses left
    out) and lifecycle meta."""
    if item is None:
        return None
    left_out = _USAGE_FIELDS | _LEFT_OUT_FIELDS.get(entity_type, frozenset())
    data = {
        k: (REDACTED if k in _SECRET_FIELDS else v)
        for k, v in jsontext.plain(item.get("data") or {}).items()
        if k not in left_out
    }
    return {"data": data, **{k: jsontext.plain(item.get(k)) for k in _META}}


def audit_id(at: str, sequence: str) -> str:
    """A ULID whose time is the change's and whose rest comes from the stream sequence
    number: time-ordered, and the same for a record delivered twice."""
    moment = clock.parse(at)
    millis = int(moment.timestamp() * 1000)
    digits = "".join(c for c in sequence if c.isdigit()) or "0"
    return f"aud_{ids.ulid_from(millis, int(digits) % (1 << 80))}"


def removed_by_ttl(record: DynamoDBRecord) -> bool:
    """DynamoDB's TTL removed the item (an OAuth grant's access key a week after its expiry): no
    change anyone made. AWS marks such a stream record with the service as its user identity."""
    identity = record.user_identity
    return identity.get("type") == "Service" and identity.get("principalId") == "dynamodb.amazonaws.com"


def from_record(record: DynamoDBRecord) -> Change | None:
    """The change a stream record holds (Powertools' record: its images as Python values, numbers
    as Decimal), or None for bookkeeping, a TTL removal or a write that changed nothing."""
    stream = record.dynamodb
    if stream is None or removed_by_ttl(record):
        return None
    new, old = stream.new_image or None, stream.old_image or None
    current = new or old or {}
    entity_type = audit_records.audited_type(str(stream.keys.get("SK", "")), str(current.get("type")))
    if entity_type is None or not current.get("tenantId"):
        return None
    action = _action(record.get("eventName") or "", old, new)
    if action is None:
        return None
    at = (new or {}).get("updatedAt") or (old or {}).get("updatedAt") or clock.now_iso()
    before, after = state(old, entity_type), state(new, entity_type)
    account = entity_type in ACCOUNT_TYPES
    if account and action == "updated" and before == after:
        return None  # only a key's use (lastUsedAt) or a grant's access key was written: no change of the account
    aliases_only = action == "updated" and before == after
    if aliases_only and (old or {}).get("aliases") == (new or {}).get("aliases"):
        return None  # only bookkeeping was written (an index key a backfill filled in: store/backfills.py)
    return Change(
        tenant_id=str(current["tenantId"]),
        entity_type=str(entity_type),
        entity_id=str(current.get("id")),
        action=action,
        at=str(at),
        audit_id=audit_id(str(at), stream.sequence_number or "0"),
        changed_by=jsontext.plain((new or old or {}).get("changedBy") or {}),
        before=before,
        after=after,
        aliases_only=aliases_only,
        account=account,
    )


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
