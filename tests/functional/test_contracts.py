"""Contracts through HTTP (their lifecycle: test_lifecycles.py): objectId derived from the unit,
filters, business rules."""

from __future__ import annotations

from typing import Any

from tests.client import Tenant


def _alias(tenant: Tenant, alias: str, entity: dict[str, Any], etype: str) -> None:
    tenant.ok("aliases.upsert", {"entries": [{"alias": alias, "id": entity["id"], "type": etype}]})


def _object(tenant: Tenant, name: str = "Mietshaus Lindenallee 3") -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": name, "type": "rental"}})["object"])


def _unit(tenant: Tenant, object_id: str, number: str = "1.01") -> dict[str, Any]:
    return dict(
        tenant.ok("units.create", {"unit": {"objectId": object_id, "number": number, "type": "apartment"}})["unit"]
    )


def _lease(unit_id: str, contact_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "contract": {
            "unitId": unit_id,
            "type": "lease",
            "startDate": "2024-01-01",
            "parties": [{"contactId": contact_id, "role": "tenant"}],
            **fields,
        }
    }


def test_minimal_lease_with_aliases_as_other_tests_create_it(tenant: Tenant) -> None:
    obj = _object(tenant)
    unit = _unit(tenant, obj["id"])
    contact = tenant.contact()
    _alias(tenant, "u", unit, "unit")
    _alias(tenant, "c", contact, "contact")
    contract = tenant.ok(
        "contracts.create",
        {
            "contract": {
                "unitId": "u",
                "type": "lease",
                "startDate": "2024-01-01",
                "parties": [{"contactId": "c", "role": "tenant"}],
            }
        },
    )["contract"]
    assert contract["id"].startswith("ctr_")
    assert contract["unitId"] == unit["id"] and contract["objectId"] == obj["id"]
    assert contract["parties"] == [{"contactId": contact["id"], "role": "tenant"}]


def test_ownership_contract(tenant: Tenant) -> None:
    obj = _object(tenant, "WEG Am Park")
    unit = _unit(tenant, obj["id"])
    a, b = tenant.contact(lastName="Eigentümer"), tenant.contact(lastName="Miteigentümerin")
    _alias(tenant, "owner-b", b, "contact")
    parties = [
        {"contactId": a["id"], "role": "owner", "share": "0.5"},
        {"contactId": "owner-b", "role": "coOwner", "share": "0.5"},
    ]
    body = {"contract": {"unitId": unit["id"], "type": "ownership", "startDate": "2019-07-01", "parties": parties}}
    contract = tenant.ok("contracts.create", body)["contract"]
    assert contract["parties"][1]["contactId"] == b["id"]
    refused = tenant.command("contacts.delete", {"contact": b["id"]})
    assert refused.status == 409
    assert refused.body["referencedBy"] == [{"type": "contract", "id": contract["id"], "path": "parties[1].contactId"}]


def test_object_id_is_derived_and_follows_a_unit_change(tenant: Tenant) -> None:
    a, b = _object(tenant, "A"), _object(tenant, "B")
    unit_a, unit_b = _unit(tenant, a["id"]), _unit(tenant, b["id"])
    contact = tenant.contact()
    contract = tenant.ok("contracts.create", _lease(unit_a["id"], contact["id"]))["contract"]
    assert contract["objectId"] == a["id"]
    _alias(tenant, "unit-b", unit_b, "unit")
    moved = tenant.ok("contracts.update", {"contract": {"id": contract["id"], "unitId": "unit-b"}})["contract"]
    assert moved["unitId"] == unit_b["id"] and moved["objectId"] == b["id"]
    successor = tenant.contact(lastName="Nachmieter")
    _alias(tenant, "nachmieter", successor, "contact")
    parties = tenant.ok(
        "contracts.update",
        {"contract": {"id": contract["id"], "parties": [{"contactId": "nachmieter", "role": "tenant"}]}},
    )["contract"]["parties"]
    assert parties == [{"contactId": successor["id"], "role": "tenant"}]
    tenant.ok("contacts.delete", {"contact": contact["id"]})  # no longer a party
    assert tenant.get("contracts", {"objectId": a["id"], "limit": 10, "offset": 0})["pagination"]["total"] == 0
    assert [c["id"] for c in tenant.get("contracts", {"objectId": b["id"], "limit": 10, "offset": 0})["contracts"]] == [
        contract["id"]
    ]
    # the edges moved as well: the old unit and object are free, the new ones are held
    tenant.ok("units.delete", {"unit": unit_a["id"]})
    tenant.ok("objects.delete", {"object": a["id"]})
    held = tenant.command("objects.delete", {"object": b["id"]})
    assert held.status == 409
    assert {"type": "contract", "id": contract["id"], "path": "objectId"} in held.body["referencedBy"]


def test_object_id_cannot_be_sent(tenant: Tenant) -> None:
    obj = _object(tenant)
    unit = _unit(tenant, obj["id"])
    contact = tenant.contact()
    created = tenant.command("contracts.create", _lease(unit["id"], contact["id"], objectId=obj["id"]))
    assert created.status == 400
    contract = tenant.ok("contracts.create", _lease(unit["id"], contact["id"]))["contract"]
    updated = tenant.command("contracts.update", {"contract": {"id": contract["id"], "objectId": obj["id"]}})
    assert updated.status == 400


def test_contracts_filter_by_object_and_by_unit(tenant: Tenant) -> None:
    a, b = _object(tenant, "A"), _object(tenant, "B")
    a1, a2, b1 = _unit(tenant, a["id"], "1"), _unit(tenant, a["id"], "2"), _unit(tenant, b["id"], "1")
    contact = tenant.contact()
    c_a1 = tenant.ok("contracts.create", _lease(a1["id"], contact["id"]))["contract"]
    c_a2 = tenant.ok("contracts.create", _lease(a2["id"], contact["id"]))["contract"]
    c_a1_old = tenant.ok(
        "contracts.create", _lease(a1["id"], contact["id"], startDate="2010-01-01", endDate="2023-12-31")
    )["contract"]
    c_b1 = tenant.ok("contracts.create", _lease(b1["id"], contact["id"]))["contract"]
    _alias(tenant, "obj-a", a, "object")
    _alias(tenant, "a1", a1, "unit")

    def ids(params: dict[str, Any]) -> list[str]:
        return [c["id"] for c in tenant.get("contracts", {**params, "limit": 100, "offset": 0})["contracts"]]

    assert ids({"objectId": "obj-a"}) == [c_a1["id"], c_a2["id"], c_a1_old["id"]]
    assert ids({"unitId": "a1"}) == [c_a1["id"], c_a1_old["id"]]
    assert ids({"objectId": a["id"], "unitId": a1["id"]}) == [c_a1["id"], c_a1_old["id"]]
    assert ids({"objectId": b["id"], "unitId": a1["id"]}) == []
    assert ids({}) == [c_a1["id"], c_a2["id"], c_a1_old["id"], c_b1["id"]]
    page = tenant.get("contracts", {"objectId": a["id"], "limit": 1, "offset": 2})
    assert page["pagination"] == {"total": 3, "limit": 1, "offset": 2} and page["contracts"][0]["id"] == c_a1_old["id"]


def test_end_date_before_start_date_is_400(tenant: Tenant) -> None:
    unit = _unit(tenant, _object(tenant)["id"])
    contact = tenant.contact()
    answer = tenant.command("contracts.create", _lease(unit["id"], contact["id"], endDate="2023-12-31"))
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "contract.endDate"
    contract = tenant.ok("contracts.create", _lease(unit["id"], contact["id"], endDate="2024-01-01"))["contract"]
    later = tenant.command("contracts.update", {"contract": {"id": contract["id"], "startDate": "2024-02-01"}})
    assert later.status == 400 and later.body["errors"][0]["path"] == "contract.endDate"


def test_party_rules(tenant: Tenant) -> None:
    unit = _unit(tenant, _object(tenant)["id"])
    a, b = tenant.contact(), tenant.contact()

    def refused(payload: dict[str, Any]) -> str:
        answer = tenant.command(
            "contracts.create", {"contract": {"unitId": unit["id"], "startDate": "2024-01-01", **payload}}
        )
        assert answer.status == 400, answer.body
        return str(answer.body["errors"][0]["path"])

    assert refused({"type": "lease", "parties": [{"contactId": a["id"], "role": "coTenant"}]}) == "contract.parties"
    assert refused({"type": "ownership", "parties": [{"contactId": a["id"], "role": "coOwner"}]}) == "contract.parties"
    assert refused({"type": "lease", "parties": []}) == "contract.parties"
    assert refused({"type": "lease"}) == "contract.parties"
    assert (
        refused(
            {
                "type": "lease",
                "parties": [{"contactId": a["id"], "role": "tenant"}, {"contactId": b["id"], "role": "owner"}],
            }
        )
        == "contract.parties[1].role"
    )
    assert (
        refused(
            {
                "type": "ownership",
                "parties": [{"contactId": a["id"], "role": "owner"}, {"contactId": b["id"], "role": "tenant"}],
            }
        )
        == "contract.parties[1].role"
    )
    assert (
        refused(
            {
                "type": "lease",
                "parties": [{"contactId": a["id"], "role": "tenant"}, {"contactId": a["id"], "role": "coTenant"}],
            }
        )
        == "contract.parties[1].contactId"
    )
    assert (
        refused({"type": "lease", "parties": [{"contactId": a["id"], "role": "tenant", "share": "1.5"}]})
        == "contract.parties[0].share"
    )
    assert (
        refused({"type": "lease", "parties": [{"contactId": a["id"], "role": "landlord"}]})
        == "contract.parties[0].role"
    )
    assert refused({"type": "lease", "parties": [{"role": "tenant"}]}) == "contract.parties[0].contactId"
    many = [{"contactId": a["id"], "role": "tenant"}] * 21
    assert refused({"type": "lease", "parties": many}) == "contract.parties"


def test_party_contact_must_exist(tenant: Tenant) -> None:
    unit = _unit(tenant, _object(tenant)["id"])
    a = tenant.contact()
    ghost = "con_01K00000000000000000000000"
    body = {"contract": {"unitId": unit["id"], "type": "lease", "startDate": "2024-01-01",
                         "parties": [{"contactId": a["id"], "role": "tenant"},
                                     {"contactId": ghost, "role": "coTenant"}]}}  # fmt: skip
    answer = tenant.command("contracts.create", body)
    assert answer.status == 404 and answer.body["errors"][0]["path"] == "contract.parties[1].contactId"
    by_alias = tenant.command("contracts.create", _lease(unit["id"], "no-such-alias"))
    assert by_alias.status == 404 and by_alias.body["errors"][0]["path"] == "contract.parties[0].contactId"


def test_unknown_or_deleted_unit_is_404(tenant: Tenant) -> None:
    unit = _unit(tenant, _object(tenant)["id"])
    contact = tenant.contact()
    tenant.ok("units.delete", {"unit": unit["id"]})
    answer = tenant.command("contracts.create", _lease(unit["id"], contact["id"]))
    assert answer.status == 404 and answer.body["errors"][0]["path"] == "contract.unitId"
    assert tenant.command("contracts.create", _lease("uni_01K00000000000000000000000", contact["id"])).status == 404


def test_rent_and_deposit_only_on_leases(tenant: Tenant) -> None:
    unit = _unit(tenant, _object(tenant)["id"])
    owner = tenant.contact()
    ownership = {
        "unitId": unit["id"],
        "type": "ownership",
        "startDate": "2020-01-01",
        "parties": [{"contactId": owner["id"], "role": "owner"}],
    }
    answer = tenant.command("contracts.create", {"contract": {**ownership, "rent": {"baseRent": "500.00"}}})
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "contract.rent"
    deposit = tenant.command(
        "contracts.create", {"contract": {**ownership, "deposit": {"amount": "100.00", "type": "cash"}}}
    )
    assert deposit.status == 400 and deposit.body["errors"][0]["path"] == "contract.deposit"
    lease = tenant.ok(
        "contracts.create", _lease(unit["id"], owner["id"], rent={"baseRent": "500.00", "currency": "EUR"})
    )["contract"]
    switched = tenant.command(
        "contracts.update",
        {
            "contract": {
                "id": lease["id"],
                "type": "ownership",
                "parties": [{"contactId": owner["id"], "role": "owner"}],
            }
        },
    )
    assert switched.status == 400 and switched.body["errors"][0]["path"] == "contract.rent"
    done = tenant.ok(
        "contracts.update",
        {
            "contract": {
                "id": lease["id"],
                "type": "ownership",
                "rent": None,
                "parties": [{"contactId": owner["id"], "role": "owner"}],
            }
        },
    )["contract"]
    assert done["type"] == "ownership" and "rent" not in done


def test_money_is_decimal_strings_and_notice_period_bounded(tenant: Tenant) -> None:
    unit = _unit(tenant, _object(tenant)["id"])
    contact = tenant.contact()
    assert tenant.command("contracts.create", _lease(unit["id"], contact["id"], rent={"baseRent": 850.0})).status == 400
    assert (
        tenant.command(
            "contracts.create", _lease(unit["id"], contact["id"], rent={"baseRent": "850.00", "currency": "USD"})
        ).status
        == 400
    )
    assert tenant.command("contracts.create", _lease(unit["id"], contact["id"], noticePeriodMonths=61)).status == 400
    assert (
        tenant.command(
            "contracts.create",
            _lease(unit["id"], contact["id"], deposit={"amount": "1.00", "type": "cash", "paidAt": "2024-02-30"}),
        ).status
        == 400
    )


def test_clearing_a_required_field_is_400(tenant: Tenant) -> None:
    unit = _unit(tenant, _object(tenant)["id"])
    contract = tenant.ok("contracts.create", _lease(unit["id"], tenant.contact()["id"]))["contract"]
    for name in ("unitId", "startDate", "parties", "type"):
        answer = tenant.command("contracts.update", {"contract": {"id": contract["id"], name: None}})
        assert answer.status == 400 and answer.body["errors"][0]["path"] == f"contract.{name}", (name, answer.body)


def test_contracts_need_the_contracts_write_scope(tenant: Tenant) -> None:
    unit = _unit(tenant, _object(tenant)["id"])
    contact = tenant.contact()
    units_writer = tenant.new_key(["read", "write:units"], agent="u")
    assert tenant.command("contracts.create", _lease(unit["id"], contact["id"]), key=units_writer).status == 403
    writer = tenant.new_key(["read", "write:contracts"], agent="c")
    contract = tenant.ok("contracts.create", _lease(unit["id"], contact["id"]), key=writer)["contract"]
    assert tenant.command("contracts.delete", {"contract": contract["id"]}, key=writer).status == 403
