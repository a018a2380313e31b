"""An upsert is no oracle (issue 51, 3): it compares an item with the stored entity only when the key
may read that entity (its area's read scope, its objects), so guessed values sent under the id of an
entity out of reach learn nothing: such an item fails as a missing entity does, before any field is
compared, whether the guess was right or wrong."""

from __future__ import annotations

import uuid
from typing import Any

from tests.client import Tenant


def _object(tenant: Tenant, name: str) -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": name, "type": "weg"}})["object"])


def _key(tenant: Tenant, scopes: list[str], objects: list[str] | None = None) -> str:
    spec: dict[str, Any] = {"agentName": f"vendor-{uuid.uuid4().hex[:8]}", "scopes": scopes}
    if objects is not None:
        spec["objects"] = objects
    return str(tenant.ok("apikeys.create", {"apiKey": spec})["apiKey"]["key"])


def _results(tenant: Tenant, name: str, items: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    return list(tenant.ok(name, {"items": items}, key=key)["results"])


def test_guesses_under_the_id_of_an_entity_outside_the_keys_objects_learn_nothing(tenant: Tenant) -> None:
    a, b = _object(tenant, "WEG A"), _object(tenant, "WEG B")
    stranger = tenant.contact(lastName="Geheim", personType="natural")
    unit_b = tenant.ok("units.create", {"unit": {"objectId": b["id"], "number": "B-7", "type": "apartment"}})["unit"]
    unit_a = tenant.ok("units.create", {"unit": {"objectId": a["id"], "number": "A-1", "type": "apartment"}})["unit"]
    key = _key(tenant, ["read", "write"], [a["id"]])

    right, wrong = _results(
        tenant,
        "contacts.upsert",
        [
            {"alias": stranger["id"], "lastName": "Geheim", "personType": "natural"},
            {"alias": stranger["id"], "lastName": "Falsch", "personType": "natural"},
        ],
        key,
    )
    assert right["result"] == wrong["result"] == "failed", (right, wrong)
    assert right["code"] == wrong["code"] == "not_found"
    units = _results(
        tenant,
        "units.upsert",
        [
            {"alias": unit_b["id"], "objectId": b["id"], "number": "B-7", "type": "apartment"},
            {"alias": unit_b["id"], "objectId": b["id"], "number": "B-8", "type": "apartment"},
        ],
        key,
    )
    assert [u["code"] for u in units] == ["not_found", "not_found"], units
    assert tenant.get("contacts.show", {"contact": stranger["id"]})["contact"]["lastName"] == "Geheim"
    assert tenant.get("units.show", {"unit": unit_b["id"]})["unit"]["number"] == "B-7"

    # within its objects the upsert works as before
    mine = _results(
        tenant,
        "units.upsert",
        [{"alias": unit_a["id"], "objectId": a["id"], "number": "A-1", "type": "apartment"}],
        key,
    )
    assert mine[0]["result"] == "unchanged", mine


def test_an_alias_of_an_entity_outside_the_keys_objects_fails_as_unknown(tenant: Tenant) -> None:
    a = _object(tenant, "WEG A")
    key = _key(tenant, ["read", "write"], [a["id"]])
    stranger = tenant.contact(lastName="Geheim", personType="natural")
    tenant.alias("crm-contact-7", stranger["id"], "contact")
    answers = _results(
        tenant,
        "contacts.upsert",
        [
            {"alias": "crm-contact-7", "lastName": "Geheim", "personType": "natural"},
            {"alias": "crm-contact-7", "lastName": "Falsch", "personType": "natural"},
        ],
        key,
    )
    assert [(r["result"], r["code"]) for r in answers] == [("failed", "not_found")] * 2, answers
    assert tenant.get("contacts.show", {"contact": stranger["id"]})["contact"]["lastName"] == "Geheim"


def test_a_key_that_may_not_read_the_area_cannot_compare(tenant: Tenant) -> None:
    person = tenant.contact(lastName="Geheim", personType="natural")
    writer = _key(tenant, ["write:contacts"])
    right, wrong = _results(
        tenant,
        "contacts.upsert",
        [
            {"alias": person["id"], "lastName": "Geheim", "personType": "natural"},
            {"alias": person["id"], "lastName": "Falsch", "personType": "natural"},
        ],
        writer,
    )
    assert right["code"] == wrong["code"] == "missing_scope", (right, wrong)
    assert tenant.get("contacts.show", {"contact": person["id"]})["contact"]["lastName"] == "Geheim"
    created = _results(
        tenant, "contacts.upsert", [{"alias": "crm-9", "lastName": "Neu", "personType": "natural"}], writer
    )
    assert created[0]["result"] == "created", "creating by a new alias needs no read"
