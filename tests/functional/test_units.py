"""Units through HTTP (their lifecycle: test_lifecycles.py): leaving a group, MEA rule, unit groups of
the same object, delete guards."""

from __future__ import annotations

from typing import Any

from tests.client import Tenant


def _object(tenant: Tenant, alias: str | None = None, name: str = "WEG Musterstraße 12") -> dict[str, Any]:
    obj = dict(tenant.ok("objects.create", {"object": {"name": name, "type": "weg"}})["object"])
    if alias:
        tenant.ok("aliases.upsert", {"entries": [{"alias": alias, "id": obj["id"], "type": "object"}]})
    return obj


def _unit(tenant: Tenant, object_id: str, number: str = "1.01", **fields: Any) -> dict[str, Any]:
    return dict(
        tenant.ok("units.create", {"unit": {"objectId": object_id, "number": number, "type": "apartment", **fields}})[
            "unit"
        ]
    )


def test_an_update_of_null_takes_a_unit_out_of_its_group(tenant: Tenant) -> None:
    """Beyond the lifecycle sweep (test_lifecycles.py): the unit group is optional, and null clears it."""
    obj = _object(tenant, alias="weg-12")
    group = tenant.ok("unitgroups.create", {"unitGroup": {"objectId": "weg-12", "name": "Haus A", "type": "building"}})[
        "unitGroup"
    ]
    unit = tenant.ok(
        "units.create",
        {"unit": {"objectId": obj["id"], "unitGroupId": group["id"], "number": "WE 12", "type": "apartment"}},
    )["unit"]
    assert unit["unitGroupId"] == group["id"]
    ungrouped = tenant.ok("units.update", {"unit": {"id": unit["id"], "unitGroupId": None}})["unit"]
    assert "unitGroupId" not in ungrouped and ungrouped["objectId"] == obj["id"]
    assert "unitGroupId" not in tenant.get("units.show", {"unit": unit["id"]})["unit"]


def test_minimal_unit_as_other_tests_create_it(tenant: Tenant) -> None:
    _object(tenant, alias="haus")
    unit = tenant.ok("units.create", {"unit": {"objectId": "haus", "number": "1.01", "type": "apartment"}})["unit"]
    assert unit["id"].startswith("uni_") and unit["version"] == 1


def test_create_with_aliases_for_object_and_unit_group(tenant: Tenant) -> None:
    obj = _object(tenant, alias="o-1")
    group = tenant.ok(
        "unitgroups.create", {"unitGroup": {"objectId": "o-1", "name": "Aufgang 12b", "type": "staircase"}}
    )["unitGroup"]
    tenant.ok("aliases.upsert", {"entries": [{"alias": "g-1", "id": group["id"], "type": "unitGroup"}]})
    unit = tenant.ok(
        "units.create", {"unit": {"objectId": "o-1", "unitGroupId": "g-1", "number": "1", "type": "parking"}}
    )["unit"]
    assert unit["objectId"] == obj["id"] and unit["unitGroupId"] == group["id"]
    tenant.ok("aliases.upsert", {"entries": [{"alias": "u-1", "id": unit["id"], "type": "unit"}]})
    assert tenant.get("units.show", {"unit": "u-1"})["unit"]["id"] == unit["id"]
    moved = tenant.ok("units.update", {"unit": {"id": "u-1", "unitGroupId": "g-1", "floor": 0}})["unit"]
    assert moved["floor"] == 0


def test_mea_above_its_base_is_400(tenant: Tenant) -> None:
    obj = _object(tenant)
    answer = tenant.command(
        "units.create",
        {
            "unit": {
                "objectId": obj["id"],
                "number": "1",
                "type": "apartment",
                "coOwnershipShare": "1000.5",
                "coOwnershipBase": 1000,
            }
        },
    )
    assert answer.status == 400
    assert answer.body["errors"][0]["path"] == "unit.coOwnershipShare"
    unit = _unit(tenant, obj["id"], coOwnershipShare="1000", coOwnershipBase=1000)
    lowered = tenant.command("units.update", {"unit": {"id": unit["id"], "coOwnershipBase": 100}})
    assert lowered.status == 400 and lowered.body["errors"][0]["path"] == "unit.coOwnershipShare"
    assert tenant.get("units.show", {"unit": unit["id"]})["unit"]["coOwnershipBase"] == 1000


def test_mea_has_at_most_four_places_and_is_a_string(tenant: Tenant) -> None:
    obj = _object(tenant)
    base = {"objectId": obj["id"], "number": "1", "type": "apartment"}
    assert tenant.command("units.create", {"unit": {**base, "coOwnershipShare": "12.12345"}}).status == 400
    assert tenant.command("units.create", {"unit": {**base, "coOwnershipShare": 12.5}}).status == 400
    assert tenant.command("units.create", {"unit": {**base, "coOwnershipShare": "12.1234"}}).status == 200


def test_required_fields_and_enum(tenant: Tenant) -> None:
    obj = _object(tenant)
    missing = tenant.command("units.create", {"unit": {"objectId": obj["id"], "type": "apartment"}})
    assert missing.status == 400 and missing.body["errors"][0] == {"path": "unit.number", "message": "required"}
    assert (
        tenant.command("units.create", {"unit": {"objectId": obj["id"], "number": "1", "type": "castle"}}).status == 400
    )
    unit = _unit(tenant, obj["id"])
    cleared = tenant.command("units.update", {"unit": {"id": unit["id"], "number": None}})
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "unit.number"


def test_object_id_is_immutable(tenant: Tenant) -> None:
    a, b = _object(tenant), _object(tenant, name="Other")
    unit = _unit(tenant, a["id"])
    answer = tenant.command("units.update", {"unit": {"id": unit["id"], "objectId": b["id"]}})
    assert answer.status == 400


def test_unknown_object_is_404_with_path(tenant: Tenant, other_tenant: Tenant) -> None:
    foreign = _object(other_tenant)
    answer = tenant.command("units.create", {"unit": {"objectId": foreign["id"], "number": "1", "type": "apartment"}})
    assert answer.status == 404 and answer.body["errors"][0]["path"] == "unit.objectId"
    by_alias = tenant.command("units.create", {"unit": {"objectId": "nowhere", "number": "1", "type": "apartment"}})
    assert by_alias.status == 404 and by_alias.body["errors"][0]["path"] == "unit.objectId"


def test_unit_group_must_belong_to_the_units_object(tenant: Tenant) -> None:
    a, b = _object(tenant), _object(tenant, name="Other")
    group_b = tenant.ok("unitgroups.create", {"unitGroup": {"objectId": b["id"], "name": "Haus B"}})["unitGroup"]
    answer = tenant.command(
        "units.create",
        {"unit": {"objectId": a["id"], "unitGroupId": group_b["id"], "number": "1", "type": "apartment"}},
    )
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "unit.unitGroupId"
    unit = _unit(tenant, a["id"])
    moved = tenant.command("units.update", {"unit": {"id": unit["id"], "unitGroupId": group_b["id"]}})
    assert moved.status == 400 and moved.body["errors"][0]["path"] == "unit.unitGroupId"


def test_units_list_filters_by_object(tenant: Tenant) -> None:
    a, b = _object(tenant, alias="a"), _object(tenant, name="B")
    in_a = [_unit(tenant, a["id"], number=f"1.0{i}") for i in range(3)]
    _unit(tenant, b["id"])
    listed = tenant.get("units", {"objectId": "a", "limit": 2, "offset": 1})
    assert [u["id"] for u in listed["units"]] == [u["id"] for u in in_a[1:]]
    assert listed["pagination"] == {"total": 3, "limit": 2, "offset": 1}
    assert tenant.get("units", {"limit": 10, "offset": 0})["pagination"]["total"] == 4
    assert tenant.query("units", {"objectId": "a"}).status == 400  # limit and offset are required


def test_object_with_units_cannot_be_deleted_until_they_are(tenant: Tenant) -> None:
    obj = _object(tenant)
    units = [_unit(tenant, obj["id"], number=str(i)) for i in range(2)]
    refused = tenant.command("objects.delete", {"object": obj["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"
    assert {r["id"] for r in refused.body["referencedBy"]} == {u["id"] for u in units}
    assert all(r == {"type": "unit", "id": r["id"], "path": "objectId"} for r in refused.body["referencedBy"])
    for unit in units:
        tenant.ok("units.delete", {"unit": unit["id"]})
    tenant.ok("objects.delete", {"object": obj["id"]})
    refused_restore = tenant.command("units.restore", {"unit": units[0]["id"]})
    assert refused_restore.status == 409 and refused_restore.body["code"] == "reference_deleted"


def test_unit_with_a_contract_cannot_be_deleted(tenant: Tenant) -> None:
    obj = _object(tenant)
    unit = _unit(tenant, obj["id"])
    contact = tenant.contact()
    contract = tenant.ok(
        "contracts.create",
        {
            "contract": {
                "unitId": unit["id"],
                "type": "lease",
                "startDate": "2024-01-01",
                "parties": [{"contactId": contact["id"], "role": "tenant"}],
            }
        },
    )["contract"]
    refused = tenant.command("units.delete", {"unit": unit["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"
    assert refused.body["referencedBy"] == [{"type": "contract", "id": contract["id"], "path": "unitId"}]
    tenant.ok("contracts.delete", {"contract": contract["id"]})
    tenant.ok("units.delete", {"unit": unit["id"]})


def test_unit_delete_needs_the_destructive_scope(tenant: Tenant) -> None:
    writer = tenant.new_key(["read", "write:units"], agent="units-writer")
    obj = _object(tenant)
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "1", "type": "storage"}}, key=writer)[
        "unit"
    ]
    assert tenant.command("units.delete", {"unit": unit["id"]}, key=writer).status == 403
    objects_only = tenant.new_key(["read", "write:objects"], agent="objects-writer")
    assert (
        tenant.command(
            "units.create", {"unit": {"objectId": obj["id"], "number": "2", "type": "storage"}}, key=objects_only
        ).status
        == 403
    )
