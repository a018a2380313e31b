"""The one table. Every item is an `Item`; what kind of record it is lives in `type`.

Why one model class rather than one per entity: the domain fields of each entity are
declared once, as the JSON Schema of its operations (registry), and stored in the
`data` map. A pynamodb class per entity would declare the same fields a second time.
Keys, indexes, soft delete, versions and the `changedBy` stamp are common to all
entities and live here.

Key layout (tenant id leads every tenant key, so no read can cross tenants). Each record kind's
keys are built in one store module, named on the right; nothing outside store/ spells a key or
imports this module (import-linter's "table layout" contract in pyproject.toml):
  entity        PK = <tenant>#<id>                        SK = "entity"           entities.py
  tenant        PK = <tenant>                             SK = "tenant"           keys.py
  api key       PK = <tenant>#<keyId>                     SK = "entity"           keys.py (type apiKey)
  key lookup    PK = keyhash#<sha256 of secret>           SK = "lookup"           key_lookups.py (the one
                tenant-less item: it is how a request finds its tenant)
  created by key PK = <tenant>#<keyId>                    SK = "created#<contactId>"  reach.py (a contact an
                object-limited key created: within its reach; written in the contact's transaction)
  agent guard   PK = <tenant>#agent#<integration>#<agent> SK = "agent"            keys.py
  sandbox register PK = <tenant>#sandboxregister        SK = "sandboxes"        keys.py (the cap on a
                company's sandboxes: {tenantId: createdAt}, written in the sandbox's own transaction)
  live keys     PK = <tenant>#livekeys                    SK = "livekeys"         live_keys.py (the cap on a
                tenant's live keys: {keyId: expiresAt}, written in the key's own transaction)
  alias         PK = <tenant>#alias#<integration>#<alias> SK = "alias"            aliases.py
  unique claim  PK = <tenant>#unique#<type>.<field>#<v>   SK = "unique"           uniques.py
  reference     PK = <tenant>#<target id>                 SK = "ref#<source>#<path>"  refs.py
  idempotency   PK = <tenant>#idem#<keyId>#<sha256>       SK = "idem"             idempotency.py (TTL)
  request log   PK = <tenant>#requests#<keyId>            SK = <time-ordered id>  requests.py (TTL)
  audit record  PK = <tenant>#<auditId>                   SK = "audit"            audit_records.py
  feed head     PK = <tenant>#feed                        SK = "head"             feed.py (the last number)
  feed entry    PK = <tenant>#feed#<seq // 10000>         SK = <seq, 12 digits>   feed.py (TTL)
  webhook       PK = <tenant>#<webhookId>                 SK = "entity" / "secret" / "health" / "lease<n>"
                                                                                  entities.py, webhooks.py
  delivery      PK = <tenant>#<webhookId>                 SK = "delivery#<eventId>"  deliveries.py (TTL)
  upload batch  PK = <tenant>#<batchId>                   SK = "batch"            uploads.py (TTL)
  reservation   PK = <tenant>#<batchId>                   SK = "upload#<documentId>"  uploads.py (TTL)
  export        PK = <tenant>#<exportId>                  SK = "export"           exports.py (TTL)
  export runs   PK = <tenant>#exports                     SK = "runs"             exports.py (TTL; the running exports:
                {holder: {exportId, until}}, one per key or integration, a ceiling per tenant)
  dead letter   PK = deadletter#stream                    SK = <stream sequence>  deadletters.py
  rate window   PK = rate#<subject>                       SK = <window>#<index>   rates.py (TTL)
  signup guard  PK = signup#<sha256 of e-mail>            SK = "signup"           keys.py
  pending sign-up PK = signup#<sha256 of e-mail>          SK = "pending"          signups.py (TTL)
  member        PK = member#<sha256 of e-mail>            SK = <tenant>           members.py (gsi1 lists
                a tenant's members: gsi1pk = <tenant>#member)
  session       PK = session#<sha256 of the cookie>       SK = "session"          sessions.py (TTL)
  sign-in code  PK = signin#<sha256 of e-mail>            SK = "code"             sessions.py (TTL)
  confirmed source PK = confirmed#<sha256 of e-mail>      SK = <sha256 of source> confirmed_sources.py (TTL)
  sign-in choice PK = choice#<sha256 of the cookie>       SK = "choice"           choices.py (TTL)
  oauth client  PK = oauthclient#<clientId>               SK = "client"           oauth.py (TTL: unused 30 days)
  oauth request PK = oauthrequest#<requestId>             SK = "request"          oauth.py (TTL; authorize -> consent)
  oauth code    PK = oauthcode#<sha256 of the code>       SK = "code"             oauth.py (TTL; spent once)
  oauth refresh PK = oauthrefresh#<sha256 of the token>   SK = "refresh"          oauth.py (TTL; rotated once)
  integration   PK = integration#<id>                     SK = "integration"      integrations.py (operator-
                level, no tenant; its connections SK = "tenant#<tenantId>" and issued keys SK = "key#<keyId>"
                share the partition)

Indexes: gsi1 lists the live items of one type (gsi1pk = <tenant>#<type>); gsi2..gsi4
serve up to three filters per type (gsiNpk = <tenant>#<type>#<field>=<value>). All sort
by id (time-ordered), so lists are stable. gsi5 lists a type's live entities by their last
change (gsi5pk = <tenant>#<type>, gsi5sk = <updatedAt>#<id>): a list's `updatedSince`.
Soft-deleted items drop their index keys (sparse indexes), so lists and totals skip them
without a filter expression.
"""

from __future__ import annotations

import json
from typing import Any

from pynamodb.attributes import Attribute, MapAttribute, NumberAttribute, TTLAttribute, UnicodeAttribute
from pynamodb.constants import NUMBER
from pynamodb.exceptions import TransactWriteError
from pynamodb.indexes import GlobalSecondaryIndex, IncludeProjection
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from chalicelib import config
from chalicelib.store import faults

SLOT_COUNT = 4  # gsi1 (all of a type) + three filter slots
CHANGED_SLOT = 5  # gsi5: a type's live entities by their last change (lists' updatedSince)
ENTITY_SK = "entity"


def _other_slot_keys(slot: int) -> list[str]:
    """Each index carries the other indexes' partition keys, so a list filtered on two
    fields queries one index and checks the other field on the returned keys."""
    return [f"gsi{n}pk" for n in range(1, SLOT_COUNT + 1) if n != slot]


def _index(slot: int) -> type[GlobalSecondaryIndex[Any]]:
    meta = type(
        "Meta",
        (),
        {"index_name": f"gsi{slot}", "projection": IncludeProjection(_other_slot_keys(slot))},
    )
    attrs = {
        "Meta": meta,
        f"gsi{slot}pk": UnicodeAttribute(hash_key=True),
        f"gsi{slot}sk": UnicodeAttribute(range_key=True),
    }
    return type(f"Gsi{slot}", (GlobalSecondaryIndex,), attrs)


class WholeNumberAttribute(Attribute[int]):
    """A number that is always whole (an item's version): read back as an int, so no caller
    casts it. Stored as DynamoDB numbers always were."""

    attr_type = NUMBER

    def serialize(self, value: int) -> str:
        return json.dumps(int(value))

    def deserialize(self, value: str) -> int:
        return int(json.loads(value))


class _TableMeta:
    billing_mode = "PAY_PER_REQUEST"
    stream_view_type = "NEW_AND_OLD_IMAGES"

    @property
    def table_name(self) -> str:  # read per use: stages and tests set it in the environment
        return config.table_name()

    @property
    def region(self) -> str:
        return config.region()


class Item(Model):
    Meta = _TableMeta()  # type: ignore[assignment]

    pk = UnicodeAttribute(hash_key=True, attr_name="PK")
    sk = UnicodeAttribute(range_key=True, attr_name="SK")
    type = UnicodeAttribute()
    tenantId = UnicodeAttribute(null=True)
    id = UnicodeAttribute(null=True)
    data = MapAttribute[str, Any](default=dict)
    version = WholeNumberAttribute(default=1)
    createdAt = UnicodeAttribute(null=True)
    updatedAt = UnicodeAttribute(null=True)
    deletedAt = UnicodeAttribute(null=True)
    changedBy = MapAttribute[str, Any](null=True)
    textBy = MapAttribute[str, Any](null=True)  # an entity's text field -> who last wrote it (store/authors.py)
    aliases = MapAttribute[str, Any](null=True)  # integration -> [alias, ...]
    expiresAt = TTLAttribute(null=True)  # DynamoDB's TTL: set as an aware datetime, stored as epoch seconds
    hits = NumberAttribute(null=True)  # a request counter's count (store/rates.py)
    seq = WholeNumberAttribute(null=True)  # the change feed's last number (store/feed.py head)
    fileKey = UnicodeAttribute(null=True)  # S3 key of an entity's file (documents, UVIs); never shown
    fileVersion = UnicodeAttribute(null=True)  # the S3 version registered: a later upload to the key cannot replace it

    gsi1pk = UnicodeAttribute(null=True)
    gsi1sk = UnicodeAttribute(null=True)
    gsi2pk = UnicodeAttribute(null=True)
    gsi2sk = UnicodeAttribute(null=True)
    gsi3pk = UnicodeAttribute(null=True)
    gsi3sk = UnicodeAttribute(null=True)
    gsi4pk = UnicodeAttribute(null=True)
    gsi4sk = UnicodeAttribute(null=True)
    gsi5pk = UnicodeAttribute(null=True)
    gsi5sk = UnicodeAttribute(null=True)  # <updatedAt>#<id>

    gsi1 = _index(1)()
    gsi2 = _index(2)()
    gsi3 = _index(3)()
    gsi4 = _index(4)()
    gsi5 = _index(CHANGED_SLOT)()

    def data_dict(self) -> dict[str, Any]:
        return self.data.as_dict() if self.data is not None else {}


INDEXES = {1: Item.gsi1, 2: Item.gsi2, 3: Item.gsi3, 4: Item.gsi4, CHANGED_SLOT: Item.gsi5}


def reset_connection() -> None:
    """Forget the cached DynamoDB connection (tests switch endpoints between suites)."""
    Item._connection = None


def create_table() -> None:
    """Create the table with its indexes and stream, and turn on TTL for idempotency records."""
    if not Item.exists():
        Item.create_table(wait=True)
    client = Item._get_connection().connection.client
    status = client.describe_time_to_live(TableName=config.table_name())["TimeToLiveDescription"]
    if status.get("TimeToLiveStatus") not in ("ENABLED", "ENABLING"):
        client.update_time_to_live(
            TableName=config.table_name(),
            TimeToLiveSpecification={"Enabled": True, "AttributeName": "expiresAt"},
        )


class TransactionCancelled(Exception):
    """A transaction was refused; `failed` holds the labels of the items whose condition
    did not hold, `reasons` every label's reason code (None where the item was fine)."""

    def __init__(self, failed: list[Any], reasons: dict[Any, str | None], cause: Exception) -> None:
        super().__init__(f"transaction cancelled: {failed or reasons}")
        self.failed = failed
        self.reasons = reasons
        self.cause = cause


class Transaction:
    """One TransactWriteItems call (on leaving the `with` block), whose items carry labels.

    pynamodb sends condition checks first, then deletes, puts and updates, whatever order
    they were added in; DynamoDB answers cancellation reasons in the order sent. The labels
    follow the same order, so a refused condition maps back to what it was about.

    A refusal that no condition caused (throttling, a conflict with a concurrent transaction,
    DynamoDB unavailable) raises the typed error of store/faults.py instead: it says nothing
    about the data, and nothing of the transaction was written."""

    def __init__(self) -> None:
        self._tx = TransactWrite(connection=Item._get_connection().connection)
        self._labels: dict[str, list[Any]] = {"check": [], "delete": [], "put": [], "update": []}

    def __len__(self) -> int:
        return sum(len(labels) for labels in self._labels.values())

    def save(self, item: Item, condition: Any = None, label: Any = None) -> None:
        self._tx.save(item, condition=condition)
        self._labels["put"].append(label)

    def update(self, item: Item, actions: list[Any], condition: Any = None, label: Any = None) -> None:
        self._tx.update(item, actions=actions, condition=condition)
        self._labels["update"].append(label)

    def delete(self, item: Item, condition: Any = None, label: Any = None) -> None:
        self._tx.delete(item, condition=condition)
        self._labels["delete"].append(label)

    def condition_check(self, pk: str, sk: str, condition: Any, label: Any = None) -> None:
        self._tx.condition_check(Item, pk, sk, condition=condition)
        self._labels["check"].append(label)

    def __enter__(self) -> Transaction:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None or len(self) == 0:
            return
        try:
            self._tx._commit()
        except TransactWriteError as err:
            fault = faults.translate(err)  # throttled, in conflict, unavailable: not about the data
            if fault is not None:
                raise fault from err
            order = self._labels["check"] + self._labels["delete"] + self._labels["put"] + self._labels["update"]
            codes = [reason.code if reason is not None else None for reason in (err.cancellation_reasons or [])]
            reasons = dict(zip(order, codes, strict=False))
            failed = [label for label, code in zip(order, codes, strict=False) if code == "ConditionalCheckFailed"]
            raise TransactionCancelled(failed, reasons, err) from err
