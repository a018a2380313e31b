"""The wire rules of CONTRACT.md: decoding, validation errors, methods, sizes, ids."""

from __future__ import annotations

import pytest

from chalicelib import config
from tests.client import Api, Tenant


@pytest.mark.parametrize(
    ("params", "path"),
    [
        ({"limit": 0, "offset": 0}, "limit"),
        ({"limit": 1001, "offset": 0}, "limit"),
        ({"limit": 10}, "offset"),
        ({"offset": 0}, "limit"),
        ({"limit": 10, "offset": -1}, "offset"),
        ({"limit": "ten", "offset": 0}, "limit"),
        ({"limit": 10, "offset": 0, "colour": "red"}, "colour"),
        ({"limit": 10, "offset": 0, "personType": "alien"}, "personType"),
    ],
)
def test_bad_list_arguments_are_400_with_path(tenant: Tenant, params: dict[str, object], path: str) -> None:
    answer = tenant.query("contacts", params)
    assert answer.status == 400, answer.body
    assert answer.content_type.startswith("application/problem+json")
    assert answer.body["code"] == "validation_failed"
    assert path in [e["path"] for e in answer.body["errors"]]


def test_repeated_single_argument_is_400(tenant: Tenant) -> None:
    answer = tenant.query("contacts", [("limit", 1), ("limit", 2), ("offset", 0)])
    assert answer.status == 400


def test_boolean_and_array_decoding(tenant: Tenant) -> None:
    a = tenant.contact()
    tenant.ok("aliases.upsert", {"entries": [{"alias": "one", "id": a["id"], "type": "contact"}]})
    answer = tenant.query("aliases.resolve", [("aliases", "one"), ("aliases", "missing"), ("ids", a["id"])])
    assert answer.status == 200
    assert answer.body["aliases"] == [{"alias": "one", "id": a["id"], "type": "contact"}]


def test_malformed_json_is_400(tenant: Tenant) -> None:
    answer = tenant.command("contacts.create", raw=b'{"contact": {')
    assert answer.status == 400
    assert answer.body["code"] == "malformed_json"


def test_non_object_json_is_400(tenant: Tenant) -> None:
    assert tenant.command("contacts.create", raw=b"[1, 2]").status == 400


def test_invalid_utf8_is_400(tenant: Tenant) -> None:
    assert tenant.command("contacts.create", raw=b'{"contact": "\xff\xfe"}').status == 400


def test_update_without_fields_is_400(tenant: Tenant) -> None:
    c = tenant.contact()
    answer = tenant.command("contacts.update", {"contact": {"id": c["id"]}})
    assert answer.status == 400
    assert "at least one field" in answer.body["detail"]


def test_create_with_an_id_is_400(tenant: Tenant) -> None:
    answer = tenant.command(
        "contacts.create",
        {"contact": {"id": "con_01J0000000000000000000000", "personType": "natural", "lastName": "X"}},
    )
    assert answer.status == 400


def test_every_violation_is_listed(tenant: Tenant) -> None:
    answer = tenant.command(
        "contacts.create",
        {"contact": {"personType": "natural", "lastName": 5, "emails": [{"address": "nope"}], "extra": 1}},
    )
    assert answer.status == 400
    paths = {e["path"] for e in answer.body["errors"]}
    assert {"contact.lastName", "contact.emails[0].address", "contact"} <= paths


def test_missing_required_argument_is_400(tenant: Tenant) -> None:
    assert tenant.command("contacts.create", {}).status == 400


def test_unknown_operation_is_404(tenant: Tenant) -> None:
    for answer in (tenant.query("contacts.explode"), tenant.command("contacts.explode", {})):
        assert answer.status == 404
        assert answer.body["code"] == "unknown_operation"


def test_query_under_command_path_is_404_with_hint(tenant: Tenant) -> None:
    answer = tenant.command("contacts.show", {"contact": "x"})
    assert answer.status == 404
    assert "/query/contacts.show" in answer.body["detail"]


def test_wrong_method_is_405(tenant: Tenant) -> None:
    answer = tenant.query("contacts", {"limit": 1, "offset": 0}, method="POST")
    assert answer.status == 405
    assert answer.headers["allow"] == "GET"
    get_command = tenant.api.request(
        "GET", "/propertymanagement/v2/command/contacts.create", headers={"Authorization": f"Bearer {tenant.key}"}
    )
    assert get_command.status == 405
    assert get_command.headers["allow"] == "POST"
    assert get_command.body["code"] == "method_not_allowed"


def test_body_over_the_limit_is_413(tenant: Tenant) -> None:
    big = b'{"contact": {"notes": "' + b"x" * (config.MAX_BODY_BYTES + 10) + b'"}}'
    answer = tenant.command("contacts.create", raw=big)
    assert answer.status == 413
    assert answer.body["code"] == "payload_too_large"


def test_every_answer_carries_a_request_id(api: Api, tenant: Tenant) -> None:
    ok = tenant.query("info")
    failed = api.query("info")
    assert ok.headers["x-request-id"]
    assert failed.body["requestId"] == failed.headers["x-request-id"]


def test_problems_never_leak_stack_traces(tenant: Tenant) -> None:
    answer = tenant.command("contacts.create", raw=b"{")
    assert "Traceback" not in answer.raw.decode()
    assert set(answer.body) >= {"type", "title", "status", "detail", "code"}


def test_idempotency_key_replays_the_first_answer(tenant: Tenant) -> None:
    body = {"contact": {"personType": "legal", "companyName": "Once GmbH"}}
    first = tenant.command("contacts.create", body, headers={"Idempotency-Key": "abc-1"})
    second = tenant.command("contacts.create", body, headers={"Idempotency-Key": "abc-1"})
    assert first.status == second.status == 200
    assert first.body == second.body
    assert second.headers.get("idempotent-replayed") == "true"
    listed = tenant.get("contacts", {"limit": 100, "offset": 0, "personType": "legal"})
    assert [c["companyName"] for c in listed["contacts"]].count("Once GmbH") == 1


def test_idempotency_key_with_another_body_is_409(tenant: Tenant) -> None:
    tenant.ok(
        "contacts.create",
        {"contact": {"personType": "legal", "companyName": "A GmbH"}},
        headers={"Idempotency-Key": "k2"},
    )
    answer = tenant.command(
        "contacts.create",
        {"contact": {"personType": "legal", "companyName": "B GmbH"}},
        headers={"Idempotency-Key": "k2"},
    )
    assert answer.status == 409
    assert answer.body["code"] == "idempotency_key_reused"


def test_idempotency_replays_validation_errors_too(tenant: Tenant) -> None:
    body = {"contact": {"personType": "natural"}}
    first = tenant.command("contacts.create", body, headers={"Idempotency-Key": "k3"})
    second = tenant.command("contacts.create", body, headers={"Idempotency-Key": "k3"})
    assert first.status == second.status == 400
