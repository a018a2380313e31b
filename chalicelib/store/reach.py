"""The reach of an object-limited key: is this entity within the key's objects?

A key may be limited to objects (`CallContext.objects`, docs/concepts/keys-and-scopes.md, "Object-limited keys"). Each
entity type has a home, the one rule of this module (HOMES):
  self     an object is its own home
  field    the object its `objectId` names (units, contracts, processes, ...)
  parent   its parent's home: a bank account use's contract, a process update's process,
           a document's location (an object group as location lies outside)
  linked   a contact: within when a live contract (a party), responsibility or advisor of the
           key's objects references it, or when this key created it
  outside  every other type (object groups, signatories, call records, posts, mandates,
           webhooks): never within a limited key's reach
Types this module does not know (a new one) lie outside, and the unit test of this table insists
that every declared entity type is named here. Records that are no entities of the catalogue (API
keys) are not the reach's: key management has rules of its own.

store/entities.py asks this module on every read (get_item: out of reach answers the same 404
as a missing entity), list (list_page: hits out of reach are dropped before paging, so totals
are exact) and write (a home outside the key's objects: 403 `outside_key_objects`; a reference
to an entity out of reach: 404 at its path, as for a missing one). Other modules ask `within`.

Cost. An unlimited key costs nothing: every caller checks `limited(ctx)` first. For a limited key
what one operation learns is kept in `ctx.memo` (each operation starts afresh):
  object, field homes     from the item already read, or the index hits of a list (their
                          `objectId` index key is projected into every index): no further read
  parent homes            1 BatchGetItem per 100 distinct parents (a document at a process
                          update: one more for the processes)
  one contact             1 GetItem (created by this key?) + 1 Query of its reference edges
                          + 1 BatchGetItem per 100 contracts, responsibilities, advisors naming it
                          (CONTACT_READS); judging more contacts at once than the linked set
                          costs (linked_set_reads) reads the set instead
  contacts of a list      the linked set: per type (contract, responsibility, advisor) one Query
                          per key object (up to PER_OBJECT_QUERIES objects) or of the tenant's
                          whole type list, + 1 BatchGetItem per 100 contracts within (their
                          parties), + 1 Query of the contacts this key created
  entries of a page       (the change feed, the audit trail) judged JUDGED_TOGETHER at a time, each
                          batch in one go (judge: its parents in one BatchGetItem, its contacts
                          together); the page ends after the batch at which the reach has made
                          PAGE_READS reads (its cursor goes on from there), and the call counts
                          against the key's rate limits as one call more per PAGE_READS reads (weight)
Every Query reads at most config.COUNT_LIMIT entries; a list whose reach stopped there says so
(`capped`). The memo counts the requests made (reads).

Contacts created by a limited key are recorded in the key's partition (see created_marker)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from chalicelib import config, ids
from chalicelib import error_codes as codes
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES, EntityType, by_prefix
from chalicelib.errors import Forbidden, not_found_at
from chalicelib.store import refs
from chalicelib.store.entity_reads import (
    BATCH_GET_SIZE,
    entity_id_of,
    entity_pk,
    fetch_entities,
    filter_pk,
    filter_value,
    list_pk,
)
from chalicelib.store.model import INDEXES, Item

HomeKind = Literal["self", "field", "parent", "linked", "objects", "outside"]


@dataclass(frozen=True)
class Home:
    kind: HomeKind
    field: str = ""  # the field naming the object (field), the parent (parent) or the objects (objects)


OBJECT_FIELD = "objectId"
HOMES: dict[str, Home] = {
    "object": Home("self"),
    **{
        name: Home("field", OBJECT_FIELD)
        for name in (
            "objectAddress",
            "unitGroup",
            "unit",
            "contract",
            "process",
            "advisor",
            "responsibility",
            "inboundInvoice",
            "uviDocument",  # uploaded for an object: its consumption information is the object's
            "bankAccountInfo",  # an object's account; a contact's has no objectId and lies outside
        )
    },
    "bankAccountUse": Home("parent", "contractId"),
    "processUpdate": Home("parent", "processId"),
    "document": Home("parent", "locationId"),
    "contact": Home("linked"),
    # a webhook made by a key limited to objects names them (its events are theirs): within a key
    # holding each of them; a webhook of every object (none named) lies outside
    "webhook": Home("objects", "objects"),
    **{name: Home("outside") for name in ("objectGroup", "signatory", "callRecord", "post", "directDebitMandate")},
}
OUTSIDE = Home("outside")
# The entity types that link a contact to their object, and the field of theirs that names it.
LINKS = {"contract": "parties", "responsibility": "contactId", "advisor": "contactId"}
# Up to this many objects, a linked set is read per object (one Query each); beyond, from the
# tenant's whole list of the type (fewer Queries for a key of many objects).
PER_OBJECT_QUERIES = 20
# The reads one contact is judged with on its own (created by this key? its edges, their linkers):
# judging more contacts at once than the linked set costs (linked_set_reads) reads the set instead.
CONTACT_READS = 3
# A page of many entries (the change feed, the audit trail) judges them this many at a time, each
# batch together (judge), and ends after the batch at which the reach has made PAGE_READS reads:
# a key limited to objects pays a bounded number of reads per page and follows the cursor for more.
JUDGED_TOGETHER = BATCH_GET_SIZE
PAGE_READS = 4

CREATED_PREFIX = "created#"


def limited(ctx: CallContext) -> bool:
    """Whether the call's key is limited to objects (else nothing here applies: check this first)."""
    return ctx.objects is not None


def home(type_name: str) -> Home:
    return HOMES.get(type_name, OUTSIDE)


def applies(type_name: str) -> bool:
    """Whether the reach rules this type: the entity types of the catalogue (not API keys)."""
    return type_name in ENTITY_TYPES


@dataclass
class _Memo:
    verdicts: dict[str, bool] = field(default_factory=dict)  # entity id -> within?
    linked: frozenset[str] | None = None  # the linked contacts, once read
    linked_capped: bool = False
    reads: int = 0  # the DynamoDB requests the reach made for this operation so far


def _memo(ctx: CallContext) -> _Memo:
    memo = ctx.memo.get("reach")
    if memo is None:
        memo = ctx.memo["reach"] = _Memo()
    assert isinstance(memo, _Memo)
    return memo


def reads(ctx: CallContext) -> int:
    """How many DynamoDB requests the reach has made for this operation so far (a page that
    judges many entries stops once they reach its bound: events/feed.py, events/audit.py)."""
    return _memo(ctx).reads


def weight(ctx: CallContext) -> int:
    """The calls more than one that an operation of many judged entries counts as: one per
    PAGE_READS reads of the reach (account.charge counts them)."""
    return _memo(ctx).reads // PAGE_READS if limited(ctx) else 0


def count_reads(ctx: CallContext, requests: int) -> None:
    """Count requests made to judge entries besides the reach's own (the audit records a page
    reads for their states, past the first batch): they spend the page's PAGE_READS too."""
    _memo(ctx).reads += requests


def _fetch(ctx: CallContext, pks: list[str]) -> list[Item]:
    """fetch_entities, counted: one BatchGetItem per BATCH_GET_SIZE keys."""
    count_reads(ctx, -(-len(pks) // BATCH_GET_SIZE))
    return fetch_entities(pks)


def _objects(ctx: CallContext) -> frozenset[str]:
    assert ctx.objects is not None, "ask limited(ctx) first"
    return ctx.objects


def _type_of(entity_id: str) -> str | None:
    etype = by_prefix(ids.prefix_of(entity_id))
    return etype.name if etype is not None else None


# --- one entity -----------------------------------------------------------------------------


def item_within(ctx: CallContext, type_name: str, entity_id: str, data: dict[str, Any]) -> bool:
    """Whether an entity read already (its type, id and fields) lies within the key's objects."""
    if not applies(type_name):
        return True
    memo = _memo(ctx)
    if entity_id not in memo.verdicts:
        _decide(ctx, [(entity_id, type_name, data)])
    return memo.verdicts[entity_id]


def judge(ctx: CallContext, entries: Iterable[tuple[str, str, dict[str, Any]]]) -> set[str]:
    """Those of the (id, type, fields) entities read already that lie within the key's objects,
    judged together: one BatchGetItem per 100 parents they need, the contacts among them by the
    cheaper of their own reads and the linked set. An entity judged before in this operation
    keeps its verdict (its first state decides, as item_within's)."""
    memo = _memo(ctx)
    todo: dict[str, tuple[str, str, dict[str, Any]]] = {}
    for entity_id, type_name, data in entries:
        if applies(type_name) and entity_id not in memo.verdicts and entity_id not in todo:
            todo[entity_id] = (entity_id, type_name, data)
    if todo:
        _decide(ctx, list(todo.values()))
    return {entity_id for entity_id, type_name, _ in entries if not applies(type_name) or memo.verdicts.get(entity_id)}


def within(ctx: CallContext, entity_ids: Iterable[str]) -> set[str]:
    """Those of `entity_ids` that are live entities within the key's objects (reading what it
    must in batches; ids of no known type, missing and deleted entities are not)."""
    memo = _memo(ctx)
    wanted = list(dict.fromkeys(entity_ids))
    todo = [entity_id for entity_id in wanted if entity_id not in memo.verdicts]
    entries: list[tuple[str, str, dict[str, Any]]] = []
    to_read: list[str] = []
    for entity_id in todo:
        type_name = _type_of(entity_id)
        if type_name is None:
            memo.verdicts[entity_id] = False
        elif home(type_name).kind in ("field", "parent", "objects"):
            to_read.append(entity_id)
        else:
            entries.append((entity_id, type_name, {}))
    if to_read:
        read = {item.id: item for item in _fetch(ctx, [entity_pk(ctx.tenant_id, i) for i in to_read])}
        for entity_id in to_read:
            item = read.get(entity_id)
            if item is None or item.id is None:
                memo.verdicts[entity_id] = False
            else:
                entries.append((item.id, item.type, item.data_dict()))
    _decide(ctx, entries)
    return {entity_id for entity_id in wanted if memo.verdicts.get(entity_id)}


def _decide(ctx: CallContext, entries: list[tuple[str, str, dict[str, Any]]]) -> None:
    """Judge each (id, type, fields) by its type's home and keep the verdicts in the memo."""
    objects, memo = _objects(ctx), _memo(ctx)
    children: dict[str, list[str]] = {}  # parent id -> the entities whose home it decides
    contacts: list[str] = []
    for entity_id, type_name, data in entries:
        rule = home(type_name)
        if rule.kind == "self":
            memo.verdicts[entity_id] = entity_id in objects
        elif rule.kind == "field":
            memo.verdicts[entity_id] = data.get(rule.field) in objects
        elif rule.kind == "parent" and data.get(rule.field):
            children.setdefault(str(data[rule.field]), []).append(entity_id)
        elif rule.kind == "linked":
            contacts.append(entity_id)
        elif rule.kind == "objects":
            named = data.get(rule.field) or []
            memo.verdicts[entity_id] = bool(named) and set(named) <= objects
        else:
            memo.verdicts[entity_id] = False
    if children:
        reached = within(ctx, children)
        for parent, kids in children.items():
            for kid in kids:
                memo.verdicts[kid] = parent in reached
    if contacts:
        _decide_contacts(ctx, contacts)


# --- contacts -----------------------------------------------------------------------------


def linked_set_reads(ctx: CallContext) -> int:
    """The requests reading the linked set takes at least: per link type one Query per object (or
    one of the tenant's list, for many), a BatchGetItem of the contracts, a Query of the created."""
    objects = len(_objects(ctx))
    return len(LINKS) * (objects if objects <= PER_OBJECT_QUERIES else 1) + 2


def _decide_contacts(ctx: CallContext, contact_ids: list[str]) -> None:
    memo = _memo(ctx)
    if memo.linked is None and CONTACT_READS * len(contact_ids) > linked_set_reads(ctx):
        linked_contacts(ctx)
    if memo.linked is not None:
        for contact_id in contact_ids:
            memo.verdicts[contact_id] = contact_id in memo.linked
        return
    for contact_id in contact_ids:
        memo.verdicts[contact_id] = _created_by_key(ctx, contact_id) or _linked(ctx, contact_id)


def _linked(ctx: CallContext, contact_id: str) -> bool:
    """Whether a live contract, responsibility or advisor of the key's objects names the contact:
    its reference edges say who names it (one Query), their objectId where (batched reads)."""
    count_reads(ctx, 1)
    linkers = [edge["id"] for edge in refs.inbound(ctx, contact_id) if edge["type"] in LINKS]
    return bool(linkers) and bool(within(ctx, linkers))


def linked_contacts(ctx: CallContext) -> tuple[frozenset[str], bool]:
    """Every contact within the key's reach (linked to its objects, or created by it), and
    whether reading them stopped at config.COUNT_LIMIT somewhere (capped)."""
    memo = _memo(ctx)
    if memo.linked is not None:
        return memo.linked, memo.linked_capped
    found: set[str] = set()
    capped = False
    for type_name, link_field in LINKS.items():
        etype = ENTITY_TYPES[type_name]
        if link_field in etype.filters:  # the contact's id is an index key: no item to read
            attribute = _slot_attribute(etype, link_field)
            hits, stopped = _hits_of_objects(ctx, etype, (attribute,))
            found.update(filter_value(getattr(hit, attribute)) for hit in hits if getattr(hit, attribute))
        else:  # a contract's parties: read the contracts within
            hits, stopped = _hits_of_objects(ctx, etype, ())
            for item in _fetch(ctx, [hit.pk for hit in hits]):
                found.update(str(party["contactId"]) for party in item.data_dict().get(link_field) or [])
        capped = capped or stopped
    created, stopped = _created(ctx)
    memo.linked, memo.linked_capped = frozenset(found | created), capped or stopped
    return memo.linked, memo.linked_capped


def _slot_attribute(etype: EntityType, field_name: str) -> str:
    """The index attribute (gsiNpk) holding a filter field's key."""
    return f"gsi{etype.filters.index(field_name) + 2}pk"


def _hits_of_objects(ctx: CallContext, etype: EntityType, also: tuple[str, ...]) -> tuple[list[Any], bool]:
    """The index hits (PK and `also`) of the entities of `etype` whose objectId is one of the
    key's objects: one Query per object, or, for many objects, the tenant's list of the type."""
    objects = sorted(_objects(ctx))
    attribute = _slot_attribute(etype, OBJECT_FIELD)
    budget = config.COUNT_LIMIT
    hits: list[Any] = []
    if len(objects) <= PER_OBJECT_QUERIES:
        index = INDEXES[etype.filters.index(OBJECT_FIELD) + 2]
        for object_id in objects:
            count_reads(ctx, 1)
            read = list(
                index.query(
                    filter_pk(ctx.tenant_id, etype, OBJECT_FIELD, object_id),
                    attributes_to_get=["PK", *also],
                    limit=budget + 1,
                )
            )
            hits.extend(read[:budget])
            budget -= len(read)
            if budget < 0:
                return hits, True
        return hits, False
    allowed = {filter_pk(ctx.tenant_id, etype, OBJECT_FIELD, object_id) for object_id in objects}
    count_reads(ctx, 1)
    read = list(
        INDEXES[1].query(
            list_pk(ctx.tenant_id, etype.name), attributes_to_get=["PK", attribute, *also], limit=budget + 1
        )
    )
    return [hit for hit in read[:budget] if getattr(hit, attribute) in allowed], len(read) > budget


def _created_pk(ctx: CallContext) -> str:
    return entity_pk(ctx.tenant_id, ctx.key_id)  # the key's own partition


def created_marker(ctx: CallContext, contact_id: str) -> Item:
    """The record that this key created the contact (written in the create's transaction), which
    keeps the contact within its reach though nothing links it to the key's objects yet."""
    return Item(
        _created_pk(ctx),
        CREATED_PREFIX + contact_id,
        type="createdByKey",
        tenantId=ctx.tenant_id,
        id=contact_id,
    )


def _created_by_key(ctx: CallContext, contact_id: str) -> bool:
    if not ctx.key_id:  # a hearer that is no key (a limited webhook's fan-out) created nothing
        return False
    count_reads(ctx, 1)
    try:
        Item.get(_created_pk(ctx), CREATED_PREFIX + contact_id, consistent_read=True)
    except Item.DoesNotExist:
        return False
    return True


def _created(ctx: CallContext) -> tuple[set[str], bool]:
    if not ctx.key_id:
        return set(), False
    count_reads(ctx, 1)
    read = list(
        Item.query(
            _created_pk(ctx),
            Item.sk.startswith(CREATED_PREFIX),
            consistent_read=True,
            attributes_to_get=["SK"],
            limit=config.COUNT_LIMIT + 1,
        )
    )
    return {hit.sk.removeprefix(CREATED_PREFIX) for hit in read[: config.COUNT_LIMIT]}, len(read) > config.COUNT_LIMIT


# --- lists ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ListReach:
    """How a list narrows its index hits to the key's reach: the index attributes to read with
    each hit, and the filter (entity_reads.HitFilter). `nothing`: no hit can be within (skip the
    Query)."""

    also: tuple[str, ...]
    keep: Any  # HitFilter
    nothing: bool = False


def list_reach(ctx: CallContext, etype: EntityType, filters: dict[str, Any]) -> ListReach | None:
    """The reach of a list of `etype` filtered by `filters` (field -> value); None: every hit."""
    if not applies(etype.name):
        return None
    objects, rule = _objects(ctx), home(etype.name)
    if rule.kind == "outside":
        return ListReach((), _none, nothing=True)
    if rule.kind == "self":
        return ListReach((), lambda hits: ([h for h in hits if entity_id_of(h.pk) in objects], False))
    if rule.kind == "field" and rule.field in filters:  # units?objectId=...: all or nothing, no read
        within_filter = filters[rule.field] in objects
        return ListReach((), lambda hits: (hits, False), nothing=not within_filter)
    if rule.kind in ("field", "parent") and rule.field in etype.filters:
        attribute = _slot_attribute(etype, rule.field)
        if rule.kind == "field":
            allowed = {filter_pk(ctx.tenant_id, etype, rule.field, object_id) for object_id in objects}
            return ListReach((attribute,), lambda hits: ([h for h in hits if getattr(h, attribute) in allowed], False))

        def keep_children(hits: list[Any]) -> tuple[list[Any], bool]:
            parents = {filter_value(getattr(h, attribute)) for h in hits if getattr(h, attribute)}
            reached = within(ctx, parents)
            return [h for h in hits if getattr(h, attribute) and filter_value(getattr(h, attribute)) in reached], False

        return ListReach((attribute,), keep_children)
    if rule.kind == "linked":

        def keep_linked(hits: list[Any]) -> tuple[list[Any], bool]:
            linked, capped = linked_contacts(ctx)
            return [h for h in hits if entity_id_of(h.pk) in linked], capped

        return ListReach((), keep_linked)

    def keep_read(hits: list[Any]) -> tuple[list[Any], bool]:  # a home field without an index: read the items
        reached = within(ctx, [entity_id_of(h.pk) for h in hits])
        return [h for h in hits if entity_id_of(h.pk) in reached], False

    return ListReach((), keep_read)


def _none(hits: list[Any]) -> tuple[list[Any], bool]:
    return [], False


# --- writes ---------------------------------------------------------------------------------


def guard_home(
    ctx: CallContext, etype: EntityType, entity_id: str | None, data: dict[str, Any], *, arg: str, partial: bool = False
) -> None:
    """Refuse (403 `outside_key_objects`) a write whose entity would lie outside the key's objects
    by its own fields: an object or a type that lies outside (on create, `entity_id` None), an
    objectId not among the key's objects. `partial`: `data` are the fields sent so far (before the
    service derives the rest): judge only those present. Homes through a parent or links are the
    references' to answer (guard_references): their 404 says no more than a missing entity's."""
    if not applies(etype.name):
        return
    rule = home(etype.name)
    if rule.kind == "self" and entity_id is not None and entity_id in _objects(ctx):
        return
    if rule.kind in ("self", "outside"):
        raise Forbidden(
            f"This key is limited to objects; {etype.a_label} lies outside them, so it cannot create one.",
            code=codes.OUTSIDE_KEY_OBJECTS,
        )
    if rule.kind == "objects":
        named = data.get(rule.field) or []
        if not named or not set(named) <= _objects(ctx):
            raise Forbidden(
                f"This key is limited to objects; {etype.a_label} not limited to them lies outside its reach.",
                code=codes.OUTSIDE_KEY_OBJECTS,
            )
        return
    if rule.kind != "field" or (partial and rule.field not in data):
        return
    object_id = data.get(rule.field)
    if object_id not in _objects(ctx):
        where = f"{arg}.{rule.field}" if arg else rule.field
        named = f"object {object_id} is" if object_id else "no object is"
        raise Forbidden(
            f"This key is limited to objects, and {named} not one of them: "
            f"{etype.a_label} there lies outside its reach.",
            code=codes.OUTSIDE_KEY_OBJECTS,
            errors=[{"path": where, "message": "outside the key's objects"}],
        )


def guard_references(ctx: CallContext, added: list[refs.Ref], *, arg: str) -> None:
    """Every entity a write newly references is within the key's reach, else 404 at the reference's
    path with the words of a missing entity (an entity out of reach does not exist for the key)."""
    if not added:
        return
    reached = within(ctx, [ref.target_id for ref in added])
    for ref in sorted(added, key=lambda r: r.path):
        if ref.target_id not in reached:
            where = f"{arg}.{ref.path}" if arg else ref.path
            raise not_found_at(where, f"No live {ref.target_type} with id {ref.target_id} in this tenant.")


def refused(what: str) -> Forbidden:
    """The refusal of something a limited key may not do at all (its effect would reach beyond)."""
    return Forbidden(f"This key is limited to objects; {what}", code=codes.OUTSIDE_KEY_OBJECTS)
