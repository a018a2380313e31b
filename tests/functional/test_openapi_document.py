"""The OpenAPI document as standard tools read it (issue 52, 6): examples that are valid values,
enums where the service knows the values, non-empty required names, Idempotency-Key's characters
stated (and held to by the service), an upsert's per-item outcome stated, and links from each
create to what takes its entity. tests/e2e/test_schemathesis.py runs schemathesis over all of it."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from openapi_spec_validator import validate

from chalicelib import openapi
from tests.client import Tenant

V2 = "/propertymanagement/v2"
CONTACT = {"personType": "natural", "lastName": "Mustermann"}


def _operations(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {op["operationId"]: op for path in spec["paths"].values() for op in path.values()}


def test_every_example_is_a_valid_value(tenant: Tenant) -> None:
    spec = tenant.get("openapi.spec")
    validate(spec)
    ops = _operations(spec)
    examples = {}
    for name, op in ops.items():
        body = op.get("requestBody", {}).get("content", {}).get("application/json", {})
        if "example" in body:
            examples[name] = body["example"]
        for parameter in op.get("parameters", []):
            if "example" in parameter:
                examples.setdefault(name, {})[parameter["name"]] = parameter["example"]
    assert len(examples) > 80  # every operation whose example holds more than references
    text = json.dumps(examples)
    assert "<" not in text and "id or alias" not in text  # no placeholder: references are left out
    since = dt.datetime.fromisoformat(examples["changes.list"]["since"].replace("Z", "+00:00"))
    assert dt.timedelta(0) < dt.datetime.now(dt.UTC) - since < dt.timedelta(days=2)  # <1 day ago>, resolved
    assert "contact" not in examples["contacts.show"] if "contacts.show" in examples else True
    assert examples["contacts.update"]["contact"] == {"phones": [{"number": "+49 30 1234567", "type": "mobile"}]}
    # a query's example runs as written
    assert tenant.query("changes.list", examples["changes.list"]).status == 200


def test_values_the_service_knows_are_enums_and_required_names_are_not_empty(tenant: Tenant) -> None:
    ops = _operations(tenant.get("openapi.spec"))
    (entity_type,) = [p for p in ops["audit.list"]["parameters"] if p["name"] == "entityType"]
    assert {"contact", "unit", "apiKey", "tenant"} <= set(entity_type["schema"]["enum"])
    (entity_types,) = [p for p in ops["changes.list"]["parameters"] if p["name"] == "entityTypes"]
    assert (
        "contact" in entity_types["schema"]["items"]["enum"] and "apiKey" not in entity_types["schema"]["items"]["enum"]
    )
    body = ops["webhooks.create"]["requestBody"]["content"]["application/json"]["schema"]
    assert {"*", "contact.created"} <= set(body["properties"]["events"]["items"]["enum"])
    created = ops["objects.create"]["requestBody"]["content"]["application/json"]["schema"]["properties"]["object"]
    assert created["properties"]["name"]["minLength"] == 1
    updated = ops["units.update"]["requestBody"]["content"]["application/json"]["schema"]["properties"]["unit"]
    assert updated["properties"]["number"]["minLength"] == 1
    # and the service refuses what the document refuses, with the field's path
    answer = tenant.command("objects.create", {"object": {"name": "", "type": "weg"}})
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "object.name"


def test_an_upsert_says_its_items_are_answered_one_by_one(tenant: Tenant) -> None:
    op = _operations(tenant.get("openapi.spec"))["contacts.upsert"]
    items = op["requestBody"]["content"]["application/json"]["schema"]["properties"]["items"]["items"]
    declared, anything = items["anyOf"]
    assert "alias" in declared["required"] and anything == {"type": "object", "description": anything["description"]}
    assert (
        "failed" in op["responses"]["200"]["description"] and "counts.failed" in op["responses"]["200"]["description"]
    )
    answer = tenant.command("contacts.upsert", {"items": [{"alias": "a-1", "personType": "natural", "lastName": 7}]})
    assert answer.status == 200 and answer.body["counts"]["failed"] == 1
    assert answer.body["results"][0]["code"] == "validation_failed"


def test_links_lead_from_a_create_to_what_takes_its_entity(tenant: Tenant) -> None:
    ops = _operations(tenant.get("openapi.spec"))
    links = ops["contacts.create"]["responses"]["200"]["links"]
    assert links["contacts.show"] == {
        "operationId": "contacts.show",
        "parameters": {"contact": "$response.body#/contact/id"},
    }
    assert links["contacts.update"]["requestBody"] == {"contact": {"id": "$response.body#/contact/id"}}
    assert links["contacts.delete"]["requestBody"] == {"contact": "$response.body#/contact/id"}
    restore = ops["contacts.delete"]["responses"]["200"]["links"]["contacts.restore"]
    assert restore["requestBody"] == {"contact": "$response.body#/deleted/id"}
    # following one as a tool does: create, then show with the id the answer handed out
    made = tenant.ok("contacts.create", {"contact": CONTACT})
    assert tenant.get("contacts.show", {"contact": made["contact"]["id"]})["contact"]["lastName"] == "Mustermann"


def test_a_read_only_key_s_document_links_only_to_what_it_may_call(tenant: Tenant) -> None:
    spec = tenant.get("openapi.spec", key=tenant.new_key(["read"]))
    validate(spec)
    ops = _operations(spec)
    assert all(not name.endswith((".create", ".update", ".delete")) for name in ops)
    targets = {link["operationId"] for op in ops.values() for link in op["responses"]["200"].get("links", {}).values()}
    assert targets <= set(ops)


# --- Idempotency-Key: the characters the document states are the ones the service takes ----------


def test_idempotency_key_states_its_characters(tenant: Tenant) -> None:
    op = _operations(tenant.get("openapi.spec"))["contacts.create"]
    (header,) = [p for p in op["parameters"] if p["name"] == "Idempotency-Key"]
    assert header["schema"] == {
        "type": "string",
        "minLength": 1,
        "maxLength": 255,
        "pattern": openapi.IDEMPOTENCY_KEY_PATTERN,
    }


def test_an_idempotency_key_outside_printable_ascii_is_refused_and_nothing_is_made(tenant: Tenant) -> None:
    """Before: a key with a non-ASCII letter (or only spaces, or empty) was taken (the empty one as
    no key at all), though a proxy may hand such bytes on as anything; schemathesis found the
    document stating nothing about it."""
    for key in ("schlüssel-1", "", "   "):
        answer = tenant.command("contacts.create", {"contact": CONTACT}, headers={"Idempotency-Key": key})
        assert answer.status == 400, (key, answer.body)
        assert answer.body["code"] == "invalid_idempotency_key"
    assert tenant.get("contacts", {"limit": 10, "offset": 0})["pagination"]["total"] == 0
    ok = tenant.command("contacts.create", {"contact": CONTACT}, headers={"Idempotency-Key": "a b-1/2:3~"})
    assert ok.status == 200


def test_a_body_that_must_say_one_of_two_things_is_required(tenant: Tenant) -> None:
    """audit.revert takes exactly one of auditRecord and filter: an empty body (which the service
    reads as {}) is refused, so the document may not call the body optional (schemathesis sent none)."""
    revert = _operations(tenant.get("openapi.spec"))["audit.revert"]
    assert revert["requestBody"]["required"] is True
    assert tenant.command("audit.revert", raw=b"").status == 400
