"""The entity store on in-process moto: versions, soft delete, restore, lists, references."""

from __future__ import annotations

import pytest

from chalicelib.context import CallContext
from chalicelib.errors import Conflict, NotFound
from chalicelib.resources import load_all
from chalicelib.store import aliases, entities
from chalicelib.store.model import ENTITY_SK, Item, Transaction, TransactionCancelled

load_all()
from chalicelib.resources.contacts import CONTACT  # noqa: E402

CTX = CallContext(
    tenant_id="ten_A", key_id="key_1", agent_name="unit", scopes=frozenset(), request_id="r1", operation="test"
)
OTHER = CallContext(tenant_id="ten_B", key_id="key_2", agent_name="unit", scopes=frozenset())


def _person(ctx: CallContext = CTX, **fields: object) -> Item:
    return entities.create(ctx, CONTACT, {"personType": "natural", "lastName": "X", **fields}, path="contact")


def test_writes_stamp_who_changed_them(memory_table: None) -> None:
    item = _person()
    stored = Item.get(item.pk, ENTITY_SK)
    assert stored.changedBy.as_dict() == {
        "keyId": "key_1",
        "agentName": "unit",
        "integrationId": None,
        "personId": None,
        "requestId": "r1",
        "operation": "test",
        "channel": "rest",
    }
    assert stored.pk.startswith("ten_A#")


def test_update_checks_the_version(memory_table: None) -> None:
    item = _person()
    entities.update(CTX, CONTACT, item.id or "", {"notes": "a"}, expected_version=1, path="contact")
    with pytest.raises(Conflict) as caught:
        entities.update(CTX, CONTACT, item.id or "", {"notes": "b"}, expected_version=1, path="contact")
    assert caught.value.code == "stale_version"


def test_soft_delete_hides_from_reads_lists_and_totals_and_restore_brings_back(memory_table: None) -> None:
    keep, gone = _person(), _person()
    entities.soft_delete(CTX, CONTACT, gone.id or "", path="contact")
    with pytest.raises(NotFound):
        entities.get_item(CTX, CONTACT, gone.id or "")
    page, total, _ = entities.list_page(CTX, CONTACT, {}, 10, 0)
    assert [i.id for i in page] == [keep.id] and total == 1
    assert Item.get(gone.pk, ENTITY_SK).deletedAt  # still there, recoverable
    entities.restore(CTX, CONTACT, gone.id or "", path="contact")
    assert entities.list_page(CTX, CONTACT, {}, 10, 0)[1] == 2
    with pytest.raises(Conflict):
        entities.restore(CTX, CONTACT, gone.id or "", path="contact")


def test_reads_never_cross_tenants(memory_table: None) -> None:
    theirs = _person(OTHER)
    with pytest.raises(NotFound):
        entities.get_item(CTX, CONTACT, theirs.id or "")
    assert entities.list_page(CTX, CONTACT, {}, 10, 0) == ([], 0, False)


def test_reference_to_a_missing_entity_names_its_path(memory_table: None) -> None:
    with pytest.raises(NotFound) as caught:
        _person(companyId="con_01K00000000000000000000000")
    assert caught.value.errors == [{"path": "contact.companyId", "message": caught.value.errors[0]["message"]}]


def test_reference_to_another_tenants_entity_fails(memory_table: None) -> None:
    theirs = _person(OTHER, personType="legal", companyName="B")
    with pytest.raises(NotFound):
        _person(companyId=theirs.id)


def test_filters_combine(memory_table: None) -> None:
    company = entities.create(CTX, CONTACT, {"personType": "legal", "companyName": "C"}, path="contact")
    member = _person(companyId=company.id)
    _person()
    assert [i.id for i in entities.list_page(CTX, CONTACT, {"companyId": company.id}, 10, 0)[0]] == [member.id]
    assert entities.list_page(CTX, CONTACT, {"companyId": company.id, "personType": "legal"}, 10, 0)[1] == 0
    assert entities.list_page(CTX, CONTACT, {"personType": "natural"}, 10, 0)[1] == 2


def test_transaction_labels_follow_dynamodb_order(memory_table: None) -> None:
    existing = _person()
    with pytest.raises(TransactionCancelled) as caught, Transaction() as tx:
        tx.save(Item("x#1", ENTITY_SK, type="t"), condition=Item.pk.does_not_exist(), label="fresh")
        tx.save(Item(existing.pk, ENTITY_SK, type="t"), condition=Item.pk.does_not_exist(), label="taken")
        tx.condition_check("nothing#here", ENTITY_SK, condition=Item.pk.exists(), label="missing")
    assert sorted(caught.value.failed) == ["missing", "taken"]


def test_alias_upsert_is_all_or_nothing(memory_table: None) -> None:
    a, b = _person(), _person()
    aliases.upsert(CTX, [{"alias": "one", "id": a.id or "", "type": "contact"}])
    with pytest.raises(Conflict):
        aliases.upsert(
            CTX,
            [
                {"alias": "two", "id": b.id or "", "type": "contact"},
                {"alias": "one", "id": b.id or "", "type": "contact"},
            ],
        )
    assert aliases.resolve(CTX, "two") is None
    assert aliases.resolve(CTX, "one") == (a.id, "contact")
    assert aliases.resolve(OTHER, "one") is None
