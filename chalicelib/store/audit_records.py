"""Audit records: one per change of an entity or of the account, written by the stream handler
(events/audit.py decides their content), and which items of the table the audit follows.

  record   PK <tenant>#<audit id>   SK "audit"   type "audit"
           gsi1 all records of the tenant   gsi1pk <tenant>#audit
           gsi2 per entity                  gsi2pk <tenant>#audit#entityId=<entity id>
           gsi3 per key                     gsi3pk <tenant>#audit#keyId=<key id>
           gsi4 per agent                   gsi4pk <tenant>#audit#agentName=<agent name>

Every index sorts by the audit id, a ULID whose time is the change's, so a time range is a key
condition, never a filter over everything."""

from __future__ import annotations

from typing import Any, NamedTuple, Required, TypedDict, cast

from chalicelib import ids
from chalicelib.entities import ENTITY_TYPES
from chalicelib.store import integrations, members, oauth
from chalicelib.store.entity_reads import fetch_many, matching_entries
from chalicelib.store.integrations import CONNECTION_TYPE
from chalicelib.store.keys import API_KEY, TENANT_ID_PREFIX, TENANT_SK
from chalicelib.store.members import TYPE as MEMBER_TYPE
from chalicelib.store.model import ENTITY_SK, INDEXES, Item

AUDIT_SK = "audit"
AUDIT_TYPE = "audit"
FILTER_SLOTS = {"entityId": 2, "keyId": 3, "agentName": 4}  # the filters an index serves, most selective first
# An integration's connection to a tenant: SK "tenant#<tenant id>" under the integration's
# partition (store/integrations.py), the integration as the tenant sees it.
CONNECTION_SK_PREFIX = "tenant#"
# The sort keys of the items the audit follows, in the syntax of the stream's event filter
# (events/changes.py STREAM_FILTER); audited_type tells them apart from bookkeeping.
# A member of the console's team: SK <tenant id> under the person's address (store/members.py).
MEMBER_SK_PREFIX = TENANT_ID_PREFIX + "_"
AUDITED_SORT_KEYS: list[Any] = [
    ENTITY_SK,
    TENANT_SK,
    oauth.GRANT_SK,
    {"prefix": CONNECTION_SK_PREFIX},
    {"prefix": MEMBER_SK_PREFIX},
]
# The audit's entity types of the account's own records, by the prefix of their entity id: an
# index entry names its record's entity id (gsi2pk), so a list tells them apart without reading
# a record (events/audit.py decides who sees them).
ACCOUNT_TYPES_BY_PREFIX = {
    API_KEY.prefix: API_KEY.name,
    integrations.ID_PREFIX: "integration",
    members.ID_PREFIX: MEMBER_TYPE,
    oauth.GRANT_ID_PREFIX: oauth.GRANT_TYPE,
    TENANT_ID_PREFIX: "tenant",
}


def account_type_of(entity_id: str) -> str | None:
    """The account's record type an entity id names (apiKey, integration, member, oauthGrant, tenant),
    else None."""
    return ACCOUNT_TYPES_BY_PREFIX.get(ids.prefix_of(entity_id) or "")


class Binding(TypedDict, total=False):
    type: Required[str]  # person | company
    contactId: str  # the person's


class Actor(TypedDict):
    keyId: str | None
    agentName: str | None
    integrationId: str | None
    binding: Binding


class AuditRecord(TypedDict):
    """The record's `data` map, as audit.show answers it."""

    id: str
    at: str
    tenantId: str
    entityType: str
    entityId: str
    action: str  # created | updated | deleted | restored
    operation: str | None
    requestId: str | None
    channel: str | None
    actor: Actor
    before: dict[str, Any] | None  # the state: data (secrets redacted), version, createdAt, updatedAt, deletedAt
    after: dict[str, Any] | None
    changedFields: list[str]


def audited_type(sk: str, item_type: str) -> str | None:
    """The audit's entity type of a changed item, None for bookkeeping (key lookups, aliases,
    edges, unique claims, idempotency markers, secrets, audit records themselves)."""
    if item_type in ENTITY_TYPES or item_type == API_KEY.name:
        return item_type if sk == ENTITY_SK else None
    if item_type == "tenant":
        return item_type if sk == TENANT_SK else None
    if item_type == CONNECTION_TYPE:
        return "integration" if sk.startswith(CONNECTION_SK_PREFIX) else None
    if item_type == MEMBER_TYPE:
        return item_type if sk.startswith(MEMBER_SK_PREFIX) else None
    if item_type == oauth.GRANT_TYPE:
        return item_type if sk == oauth.GRANT_SK else None
    return None


def record_pk(tenant_id: str, audit_id: str) -> str:
    return f"{tenant_id}#{audit_id}"


def slot_pk(tenant_id: str, name: str | None = None, value: str | None = None) -> str:
    """An index's partition: all of the tenant's records, or those with one filter's value."""
    return f"{tenant_id}#audit" if name is None else f"{tenant_id}#audit#{name}={value}"


def item_of(record: AuditRecord) -> Item:
    tenant_id, audit_id = record["tenantId"], record["id"]
    slots: dict[str, Any] = {"gsi1pk": slot_pk(tenant_id), "gsi1sk": audit_id}
    values = {"entityId": record["entityId"], **{n: record["actor"][n] for n in ("keyId", "agentName")}}
    for name, slot in FILTER_SLOTS.items():
        if values[name]:
            slots[f"gsi{slot}pk"], slots[f"gsi{slot}sk"] = slot_pk(tenant_id, name, values[name]), audit_id
    return Item(
        record_pk(tenant_id, audit_id),
        AUDIT_SK,
        type=AUDIT_TYPE,
        tenantId=tenant_id,
        id=audit_id,
        data=record,
        createdAt=record["at"],
        **slots,
    )


def write_records(records: list[AuditRecord]) -> None:
    """BatchWriteItem, 25 a call. A record's content is a function of its stream record, so
    writing it again when the stream redelivers changes nothing: no condition needed."""
    with Item.batch_write() as batch:
        for record in records:
            batch.save(item_of(record))


def get_record(tenant_id: str, audit_id: str) -> AuditRecord | None:
    try:
        item = Item.get(record_pk(tenant_id, audit_id), AUDIT_SK, consistent_read=True)
    except Item.DoesNotExist:
        return None
    return cast(AuditRecord, item.data_dict())


class RecordRef(NamedTuple):
    """An index entry of a record: its key (for `records`) and the id of the entity it is about."""

    key: str
    entity_id: str


def record_refs(
    tenant_id: str, filters: dict[str, str], lowest: str | None, highest: str | None
) -> tuple[list[RecordRef], bool]:
    """The records with these filter values (of FILTER_SLOTS) whose audit id lies between
    `lowest` and `highest` (either may be open), oldest first, and whether the read stopped at
    config.COUNT_LIMIT. The most selective filter picks the index, the id range is its key
    condition, the other filters are checked on the index keys; the entity id comes from the
    entity index's key, which every index carries."""
    chosen = next((name for name in FILTER_SLOTS if filters.get(name)), None)
    slot = FILTER_SLOTS[chosen] if chosen else 1
    hash_key = slot_pk(tenant_id, chosen, filters[chosen]) if chosen else slot_pk(tenant_id)
    sort_attr = getattr(Item, f"gsi{slot}sk")
    condition = None
    if lowest and highest:
        condition = sort_attr.between(lowest, highest)
    elif lowest:
        condition = sort_attr >= lowest
    elif highest:
        condition = sort_attr <= highest
    checks = {
        f"gsi{FILTER_SLOTS[n]}pk": slot_pk(tenant_id, n, filters[n])
        for n in FILTER_SLOTS
        if filters.get(n) and n != chosen
    }
    entity_slot = f"gsi{FILTER_SLOTS['entityId']}pk"
    entries, capped = matching_entries(INDEXES[slot], hash_key, condition, checks, (entity_slot,))
    entity_prefix = slot_pk(tenant_id, "entityId", "")
    return [
        RecordRef(entry.pk, str(getattr(entry, entity_slot)).removeprefix(entity_prefix)) for entry in entries
    ], capped


def records(keys: list[str]) -> list[AuditRecord]:
    """The records of these keys (record_refs), in that order."""
    return [cast(AuditRecord, item.data_dict()) for item in fetch_many([(pk, AUDIT_SK) for pk in keys])]
