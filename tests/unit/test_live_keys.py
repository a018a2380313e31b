"""The register of live keys where two requests make it at once: for a tenant whose keys predate
it, each request counts the key records and makes the register; the one that comes second must
count the register the first made, not overwrite it with its own (older) count."""

from __future__ import annotations

from chalicelib.store import live_keys
from chalicelib.store.model import Item, Transaction


def test_a_register_made_meanwhile_by_another_request_is_the_one_counted(memory_table: None) -> None:
    def count_records() -> dict[str, str]:
        # while this request reads the key records, another makes the register with its own count
        with Transaction() as tx:
            live_keys.first(tx, "ten_A", "key_other", "")
        return {"key_1": "", "key_2": ""}

    assert live_keys.held("ten_A", count_records) == 1
    stored = Item.get(live_keys.register_pk("ten_A"), live_keys.REGISTER_SK).data_dict()
    assert stored["keys"] == {"key_other": ""}


def test_a_tenant_without_live_keys_gets_an_empty_register_once(memory_table: None) -> None:
    calls = []

    def count_records() -> dict[str, str]:
        calls.append(1)
        return {}

    assert live_keys.held("ten_A", count_records) == 0
    assert live_keys.held("ten_A", count_records) == 0
    assert len(calls) == 1  # the second request reads the (empty) register, not the records
