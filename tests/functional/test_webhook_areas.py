"""A webhook hears only what the key that created it may read (issue 51, 1): its read areas, as
its objects already were; the account's own records (`webhook.*`) only for an admin key. Refused
at create and update (403 missing_scope naming the types), applied to live deliveries, to
`skipOwnChanges` webhooks and to recoveries; `*` is every type the key may read."""

from __future__ import annotations

import datetime as dt
from typing import Any

from tests.client import Tenant
from tests.eventually import eventually
from tests.receiver import Receiver

IBAN = "DE89370400440532013000"


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _a_bit_of_everything(tenant: Tenant) -> dict[str, str]:
    """One change of each area that matters here, made with the tenant's owner key, a unit last."""
    obj = tenant.ok("objects.create", {"object": {"name": "WEG Lindenstraße 12", "type": "weg"}})["object"]
    person = tenant.contact(lastName="Schäfer")
    tenant.ok(
        "accounting.bankaccountinfos.create.contact",
        {"contact": person["id"], "bankAccountInfo": {"iban": IBAN, "accountHolder": "Schäfer"}},
    )
    tenant.ok("webhooks.create", {"name": "Another", "url": "https://crm.example.org/h?token=s3cret", "events": ["*"]})
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "1", "type": "apartment"}})["unit"]
    return {"object": obj["id"], "contact": person["id"], "unit": unit["id"]}


def _types(received: list[Any]) -> set[str]:
    return {r.event["type"] for r in received}


def test_a_units_reader_may_not_subscribe_to_contacts_and_star_hears_only_units(
    tenant: Tenant, receiver: Receiver
) -> None:
    key = tenant.new_key(["read:units", "write:webhooks"])
    refused = tenant.command(
        "webhooks.create",
        {"name": "x", "url": receiver.url, "events": ["unit.created", "contact.created", "bankAccountInfo.updated"]},
        key=key,
    )
    assert (refused.status, refused.body["code"]) == (403, "missing_scope"), refused.body
    assert "contact.created" in refused.body["detail"] and "bankAccountInfo.updated" in refused.body["detail"]
    assert "unit.created" not in refused.body["detail"]
    assert set(refused.body["requiredScopes"]) == {"read:contacts", "read:accounting"}

    hook = tenant.ok("webhooks.create", {"name": "Units", "url": receiver.url, "events": ["*"]}, key=key)["webhook"]
    assert hook["areas"] == ["units"]
    made = _a_bit_of_everything(tenant)
    got = receiver.wait_for(1)
    assert [r.event["data"]["id"] for r in got] == [made["unit"]]  # the unit came after every other change
    assert _types(receiver.requests) == {"unit.created"}
    assert "s3cret" not in str([r.body for r in receiver.requests]) and IBAN not in str(
        [r.body for r in receiver.requests]
    )

    # the recovery replays what the webhook hears, nothing of the other areas
    since = _now()  # after the unit's creation was delivered, so after it was committed to the feed
    tenant.ok("units.update", {"unit": {"id": made["unit"], "number": "1a"}})
    tenant.ok("contacts.update", {"contact": {"id": made["contact"], "firstName": "Anna"}})
    receiver.wait_for(2)
    recovered = tenant.ok("webhooks.deliveries.recover", {"webhook": hook["id"], "since": since}, key=key)
    assert recovered["recovered"] == 1, recovered
    again = eventually(lambda: [r for r in receiver.delivered() if r.event.get("redelivery")] or None)
    assert _types(again) == {"unit.updated"}


def test_an_update_may_not_widen_a_webhook_past_its_keys_areas(tenant: Tenant, receiver: Receiver) -> None:
    key = tenant.new_key(["read:units", "write:webhooks"])
    hook = tenant.ok("webhooks.create", {"name": "U", "url": receiver.url, "events": ["unit.created"]}, key=key)
    refused = tenant.command(
        "webhooks.update", {"webhook": {"id": hook["webhook"]["id"], "events": ["contact.updated"]}}, key=key
    )
    assert (refused.status, refused.body["code"]) == (403, "missing_scope"), refused.body
    assert "contact.updated" in refused.body["detail"]
    # nor by an owner's key: what the webhook hears stays within the areas of the key that made it
    widened = tenant.command(
        "webhooks.update", {"webhook": {"id": hook["webhook"]["id"], "events": ["contact.updated"]}}
    )
    assert (widened.status, widened.body["code"]) == (403, "missing_scope"), widened.body
    narrowed = tenant.ok("webhooks.update", {"webhook": {"id": hook["webhook"]["id"], "events": ["unit.updated"]}})
    assert narrowed["webhook"]["events"] == ["unit.updated"] and narrowed["webhook"]["areas"] == ["units"]


def test_webhook_events_are_for_admin_keys_only(tenant: Tenant, receiver: Receiver) -> None:
    reader = tenant.new_key(["read", "write"])
    refused = tenant.command(
        "webhooks.create", {"name": "w", "url": receiver.url, "events": ["webhook.created"]}, key=reader
    )
    assert (refused.status, refused.body["code"]) == (403, "missing_scope"), refused.body
    assert refused.body["requiredScopes"] == ["admin"]
    everything = tenant.ok("webhooks.create", {"name": "all", "url": receiver.url, "events": ["*"]}, key=reader)
    assert "webhooks" not in everything["webhook"]["areas"]
    admin = Receiver().start()
    try:
        tenant.ok("webhooks.create", {"name": "admin", "url": admin.url, "events": ["*"]})
        person = tenant.contact(lastName="Last")
        assert person["id"] in {r.event["data"]["id"] for r in receiver.wait_for(1)}
        assert "webhook.created" in _types(admin.wait_for(2))  # the owner's key hears its account's records
        assert _types(receiver.requests) == {"contact.created"}  # the other webhook's creation was not heard
    finally:
        admin.stop()


def test_a_webhook_that_skips_its_own_changes_still_hears_only_its_areas(tenant: Tenant, receiver: Receiver) -> None:
    key = tenant.new_key(["read:units", "write:webhooks", "write:units"])
    tenant.ok("webhooks.create", {"name": "S", "url": receiver.url, "events": ["*"], "skipOwnChanges": True}, key=key)
    made = _a_bit_of_everything(tenant)
    assert [r.event["data"]["id"] for r in receiver.wait_for(1)] == [made["unit"]]
    assert _types(receiver.requests) == {"unit.created"}


def test_a_webhook_stored_before_areas_hears_every_area_but_the_accounts(tenant: Tenant, receiver: Receiver) -> None:
    from chalicelib.events import subscriptions
    from chalicelib.store.entities import entity_pk
    from chalicelib.store.model import ENTITY_SK, Item

    hook = tenant.ok("webhooks.create", {"name": "Alt", "url": receiver.url, "events": ["*"]})["webhook"]
    stored = Item.get(entity_pk(tenant.id, hook["id"]), ENTITY_SK)
    stored.update(actions=[Item.data["areas"].remove()])  # type: ignore[index]  # as a webhook of before areas
    subscriptions.forget(tenant.id)
    tenant.ok("webhooks.create", {"name": "Neu", "url": "https://crm.example.org/h", "events": ["*"]})
    person = tenant.contact(lastName="Alt")
    assert person["id"] in {r.event["data"]["id"] for r in receiver.wait_for(1)}
    assert _types(receiver.requests) == {"contact.created"}, "not the other webhook's creation"
