"""The reach of an object-limited key (store/reach.py): the home of every entity type, judged on
in-process moto, and the table's own completeness."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from chalicelib import ids
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.resources import load_all
from chalicelib.store import entities, reach, refs
from chalicelib.store.model import ENTITY_SK, Item

load_all()

UNLIMITED = CallContext(tenant_id="ten_R", key_id="key_admin", agent_name="unit", scopes=frozenset())
A, B = ids.new_id("obj"), ids.new_id("obj")
LIMITED = replace(UNLIMITED, key_id="key_vendor", objects=frozenset({A}))


def _put(type_name: str, data: dict[str, Any], entity_id: str | None = None) -> str:
    """An entity item with its index keys and reference edges, as create writes them (no rules)."""
    etype = ENTITY_TYPES[type_name]
    entity_id = entity_id or ids.new_id(etype.prefix)
    Item(
        entities.entity_pk(UNLIMITED.tenant_id, entity_id),
        ENTITY_SK,
        type=type_name,
        tenantId=UNLIMITED.tenant_id,
        id=entity_id,
        data=data,
        **entities.index_keys(UNLIMITED.tenant_id, etype, entity_id, data, "2026-01-01T00:00:00.000Z"),
    ).save()
    for ref in refs.outbound(etype, data, self_id=entity_id, arg=""):
        refs.edge_item(UNLIMITED, etype, entity_id, ref).save()
    return entity_id


def _within(entity_id: str) -> bool:
    fresh = replace(LIMITED, memo={})  # a new operation: nothing learnt yet
    return bool(reach.within(fresh, [entity_id]))


def test_every_entity_type_has_a_home_decided_here() -> None:
    assert set(ENTITY_TYPES) <= set(reach.HOMES), "a new entity type: decide its home in store/reach.py HOMES"


def test_homes_lists_decide_from_index_hits_are_indexed() -> None:
    for name, home in reach.HOMES.items():
        if home.kind in ("field", "parent"):
            assert home.field in ENTITY_TYPES[name].filters, (name, home.field)
    for name, field in reach.LINKS.items():
        assert reach.HOMES[name].kind == "field", name
        assert field in ENTITY_TYPES[name].filters or field == "parties", (name, field)


FIELD_TYPES = [name for name, home in reach.HOMES.items() if home.kind == "field"]
OUTSIDE_TYPES = [name for name, home in reach.HOMES.items() if home.kind == "outside"]


def test_an_object_is_its_own_home(memory_table: None) -> None:
    _put("object", {"name": "A"}, A)
    _put("object", {"name": "B"}, B)
    assert _within(A) and not _within(B)


@pytest.mark.parametrize("type_name", FIELD_TYPES)
def test_a_type_with_an_object_field_lies_at_that_object(memory_table: None, type_name: str) -> None:
    assert _within(_put(type_name, {"objectId": A}))
    assert not _within(_put(type_name, {"objectId": B}))


def test_a_contacts_bank_account_lies_outside(memory_table: None) -> None:
    contact = _put("contact", {"personType": "natural", "lastName": "X"})
    assert not _within(_put("bankAccountInfo", {"contactId": contact, "iban": "DE89370400440532013000"}))


@pytest.mark.parametrize("type_name", OUTSIDE_TYPES)
def test_types_without_a_home_lie_outside_even_when_they_name_the_object(memory_table: None, type_name: str) -> None:
    assert not _within(_put(type_name, {"objectId": A, "objectIds": [A]}))


def test_children_lie_at_their_parents_home(memory_table: None) -> None:
    unit_a, unit_b = _put("unit", {"objectId": A}), _put("unit", {"objectId": B})
    contract_a, contract_b = _put("contract", {"objectId": A}), _put("contract", {"objectId": B})
    process_a, process_b = _put("process", {"objectId": A}), _put("process", {"objectId": B})
    update_a, update_b = (
        _put("processUpdate", {"processId": process_a}),
        _put("processUpdate", {"processId": process_b}),
    )
    assert _within(_put("bankAccountUse", {"contractId": contract_a}))
    assert not _within(_put("bankAccountUse", {"contractId": contract_b}))
    assert _within(update_a) and not _within(update_b)
    for location, expected in ((A, True), (B, False), (unit_a, True), (unit_b, False), (contract_a, True)):
        assert _within(_put("document", {"locationId": location})) is expected, location
    assert _within(_put("document", {"locationId": update_a}))  # two parents up
    assert not _within(_put("document", {"locationId": update_b}))
    group = _put("objectGroup", {"name": "Portfolio", "objectIds": [A]})
    assert not _within(_put("document", {"locationId": group}))  # object groups lie outside


@pytest.mark.parametrize("per_object", [True, False], ids=["a Query per object", "the tenant's list of the type"])
def test_a_contact_lies_within_when_linked_to_the_objects_or_created_by_the_key(
    memory_table: None, monkeypatch: pytest.MonkeyPatch, per_object: bool
) -> None:
    if not per_object:  # a key of many objects reads the linked set from the whole list of each type
        monkeypatch.setattr(reach, "PER_OBJECT_QUERIES", 0)
    unit_a = _put("unit", {"objectId": A})
    party, caretaker, adviser, of_b, stranger, created = (
        _put("contact", {"personType": "natural", "lastName": name})
        for name in ("Party", "Caretaker", "Adviser", "OfB", "Stranger", "Created")
    )
    _put("contract", {"unitId": unit_a, "objectId": A, "parties": [{"contactId": party, "role": "tenant"}]})
    _put("responsibility", {"objectId": A, "contactId": caretaker, "categoryId": "caretaker"})
    _put("advisor", {"objectId": A, "contactId": adviser})
    _put("responsibility", {"objectId": B, "contactId": of_b, "categoryId": "caretaker"})
    _put("process", {"objectId": A, "assigneeId": stranger})  # a process links no contact
    reach.created_marker(LIMITED, created).save()

    for contact, expected in (
        (party, True),
        (caretaker, True),
        (adviser, True),
        (of_b, False),
        (stranger, False),
        (created, True),
    ):
        assert _within(contact) is expected, contact
    linked, capped = reach.linked_contacts(replace(LIMITED, memo={}))
    assert linked == {party, caretaker, adviser, created} and not capped
    another_key = replace(LIMITED, key_id="key_other", memo={})
    assert not reach.within(another_key, [created])  # created by another key: not this one's


def test_unknown_ids_and_api_keys(memory_table: None) -> None:
    assert not _within("xyz_01J0000000000000000000000Z")
    assert reach.item_within(replace(LIMITED, memo={}), "apiKey", "key_x", {})  # key records: not the reach's


class _Calls:
    """DynamoDB calls by operation name, counted at the client (as bench/harness.py does)."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        Item._get_connection().connection.client.meta.events.register("before-call.dynamodb", self._count)

    def _count(self, model: Any, **_: Any) -> None:
        self.seen.append(model.name)

    def during(self, run: Any) -> list[str]:
        self.seen.clear()
        run()
        return sorted(self.seen)


def test_lists_of_a_limited_key_cost_what_an_unlimited_ones_do_plus_bounded_reads(memory_table: None) -> None:
    from chalicelib.resources.contacts import CONTACT
    from chalicelib.resources.documents import DOCUMENT
    from chalicelib.resources.units import UNIT

    units = [_put("unit", {"objectId": object_id}) for object_id in (A, B) for _ in range(30)]
    for unit in units:
        _put("document", {"locationId": unit})
    party = _put("contact", {"personType": "natural", "lastName": "P"})
    _put("contract", {"unitId": units[0], "objectId": A, "parties": [{"contactId": party, "role": "tenant"}]})
    for n in range(30):
        _put("contact", {"personType": "natural", "lastName": f"Other {n}"})
    calls = _Calls()

    def page(ctx: CallContext, etype: Any) -> Any:
        return lambda: entities.list_page(replace(ctx, memo={}), etype, {}, 10, 0)

    unlimited_units = calls.during(page(UNLIMITED, UNIT))
    assert unlimited_units == ["BatchGetItem", "Query"]
    assert calls.during(page(LIMITED, UNIT)) == unlimited_units  # decided from the index keys alone
    assert entities.list_page(replace(LIMITED, memo={}), UNIT, {}, 100, 0)[1] == 30
    # documents: their 60 locations read once, in one batch
    assert calls.during(page(LIMITED, DOCUMENT)) == ["BatchGetItem", "BatchGetItem", "Query"]
    # contacts: the linked set (a Query per link type and object, the contracts within, the created ones)
    contact_calls = calls.during(page(LIMITED, CONTACT))
    assert contact_calls.count("Query") == 1 + len(reach.LINKS) + 1 and contact_calls.count("BatchGetItem") == 2
    listed, total, capped = entities.list_page(replace(LIMITED, memo={}), CONTACT, {}, 100, 0)
    assert [item.id for item in listed] == [party] and total == 1 and not capped


def test_a_batch_is_judged_together_and_its_reads_are_counted_as_made(memory_table: None) -> None:
    """A page's batch (reach.judge): the parents of its children in one BatchGetItem, its contacts
    by the linked set once their own reads would cost more, and reads() says what was made."""
    processes = {object_id: _put("process", {"objectId": object_id, "title": "P"}) for object_id in (A, B)}
    updates = [(_put("processUpdate", {"processId": processes[o]}), o) for o in (A, B) for _ in range(30)]
    unit = _put("unit", {"objectId": A})
    party = _put("contact", {"personType": "natural", "lastName": "P"})
    _put("contract", {"unitId": unit, "objectId": A, "parties": [{"contactId": party, "role": "tenant"}]})
    others = [_put("contact", {"personType": "natural", "lastName": f"O {n}"}) for n in range(5)]
    entries = [(u, "processUpdate", {"processId": processes[o]}) for u, o in updates]
    entries += [(c, "contact", {}) for c in [party, *others]]
    entries.append(("key_x", "apiKey", {}))  # no entity of the catalogue: not the reach's to judge
    calls, ctx = _Calls(), replace(LIMITED, memo={})
    judged: set[str] = set()
    made = calls.during(lambda: judged.update(reach.judge(ctx, entries)))
    assert judged == {u for u, o in updates if o == A} | {party, "key_x"}
    # the 2 processes in one batch; 6 contacts cost more alone (3 each) than the linked set of 1 object (5)
    assert made.count("BatchGetItem") == 2 and made.count("Query") == len(reach.LINKS) + 1 and len(made) == 6
    assert reach.reads(ctx) == len(made) == reach.linked_set_reads(ctx) + 1
    assert reach.weight(ctx) == len(made) // reach.PAGE_READS
    assert calls.during(lambda: reach.judge(ctx, entries)) == [] and reach.reads(ctx) == len(made)  # kept
    assert reach.weight(UNLIMITED) == 0


def test_a_few_contacts_are_judged_each_on_its_own(memory_table: None) -> None:
    unit = _put("unit", {"objectId": A})
    party = _put("contact", {"personType": "natural", "lastName": "P"})
    _put("contract", {"unitId": unit, "objectId": A, "parties": [{"contactId": party, "role": "tenant"}]})
    stranger = _put("contact", {"personType": "natural", "lastName": "S"})
    calls, ctx = _Calls(), replace(LIMITED, memo={})
    made = calls.during(lambda: reach.judge(ctx, [(party, "contact", {})]))
    assert made == ["BatchGetItem", "GetItem", "Query"] and reach.reads(ctx) == reach.CONTACT_READS
    assert calls.during(lambda: reach.judge(ctx, [(stranger, "contact", {})])) == ["GetItem", "Query"]
    assert reach.judge(replace(LIMITED, memo={}), [(party, "contact", {}), (stranger, "contact", {})]) == {party}
