"""Unit groups, object groups and object addresses through HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.resources.objectgroups import MAX_OBJECTS
from tests.client import Tenant


def _object(tenant: Tenant, name: str = "WEG Musterstraße 12", alias: str | None = None) -> dict[str, Any]:
    obj = dict(tenant.ok("objects.create", {"object": {"name": name, "type": "weg"}})["object"])
    if alias:
        tenant.ok("aliases.upsert", {"entries": [{"alias": alias, "id": obj["id"], "type": "object"}]})
    return obj


# --- unit groups ---------------------------------------------------------------------------


def test_unit_group_create_by_object_alias(tenant: Tenant) -> None:
    obj = _object(tenant, alias="o")
    group = tenant.ok("unitgroups.create", {"unitGroup": {"objectId": "o", "name": "Tiefgarage", "type": "garage"}})[
        "unitGroup"
    ]
    assert group["id"].startswith("ugr_") and group["objectId"] == obj["id"]


def test_listforobject_lists_only_that_objects_groups(tenant: Tenant) -> None:
    a, b = _object(tenant, "A", alias="a"), _object(tenant, "B")
    in_a = [
        tenant.ok("unitgroups.create", {"unitGroup": {"objectId": a["id"], "name": f"Haus {n}", "type": "building"}})[
            "unitGroup"
        ]
        for n in "ABC"
    ]
    tenant.ok("unitgroups.create", {"unitGroup": {"objectId": b["id"], "name": "Haus X"}})
    listed = tenant.get("unitgroups.listforobject", {"object": "a"})
    assert [g["id"] for g in listed["unitGroups"]] == [g["id"] for g in in_a]
    assert listed["pagination"] == {"total": 3, "limit": 1000, "offset": 0}
    assert (
        tenant.get("unitgroups.listforobject", {"object": a["id"], "limit": 1, "offset": 2})["unitGroups"][0]["id"]
        == in_a[2]["id"]
    )
    missing = tenant.query("unitgroups.listforobject")
    assert missing.status == 400
    unknown = tenant.query("unitgroups.listforobject", {"object": "nowhere"})
    assert unknown.status == 404 and unknown.body["errors"][0]["path"] == "object"


def test_unit_group_with_units_cannot_be_deleted_and_object_id_is_fixed(tenant: Tenant) -> None:
    obj, other = _object(tenant), _object(tenant, "Other")
    group = tenant.ok("unitgroups.create", {"unitGroup": {"objectId": obj["id"], "name": "Haus A"}})["unitGroup"]
    unit = tenant.ok(
        "units.create",
        {"unit": {"objectId": obj["id"], "unitGroupId": group["id"], "number": "1", "type": "apartment"}},
    )["unit"]
    refused = tenant.command("unitgroups.delete", {"unitGroup": group["id"]})
    assert refused.status == 409 and refused.body["referencedBy"] == [
        {"type": "unit", "id": unit["id"], "path": "unitGroupId"}
    ]
    assert (
        tenant.command("unitgroups.update", {"unitGroup": {"id": group["id"], "objectId": other["id"]}}).status == 400
    )
    cleared = tenant.command("unitgroups.update", {"unitGroup": {"id": group["id"], "name": None}})
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "unitGroup.name"
    tenant.ok("units.update", {"unit": {"id": unit["id"], "unitGroupId": None}})
    tenant.ok("unitgroups.delete", {"unitGroup": group["id"]})


def test_unit_group_scope_is_objects(tenant: Tenant) -> None:
    obj = _object(tenant)
    units_writer = tenant.new_key(["read", "write:units"], agent="u")
    assert (
        tenant.command(
            "unitgroups.create", {"unitGroup": {"objectId": obj["id"], "name": "Haus"}}, key=units_writer
        ).status
        == 403
    )
    objects_writer = tenant.new_key(["read", "write:objects"], agent="o")
    assert (
        tenant.command(
            "unitgroups.create", {"unitGroup": {"objectId": obj["id"], "name": "Haus"}}, key=objects_writer
        ).status
        == 200
    )


# --- object groups -------------------------------------------------------------------------


def test_object_group_members_by_alias(tenant: Tenant) -> None:
    a, b = _object(tenant, "A", alias="oa"), _object(tenant, "B", alias="ob")
    group = tenant.ok(
        "objectgroups.create",
        {"objectGroup": {"name": "Eigentümer Schmidt", "type": "owner", "objectIds": ["oa", "ob"]}},
    )["objectGroup"]
    assert group["id"].startswith("ogr_") and group["objectIds"] == [a["id"], b["id"]]
    tenant.ok("aliases.upsert", {"entries": [{"alias": "schmidt", "id": group["id"], "type": "objectGroup"}]})
    updated = tenant.ok("objectgroups.update", {"objectGroup": {"id": "schmidt", "objectIds": ["ob"]}})["objectGroup"]
    assert updated["objectIds"] == [b["id"]]
    tenant.ok("objectgroups.delete", {"objectGroup": "schmidt"})
    assert tenant.ok("objectgroups.restore", {"objectGroup": "schmidt"})["objectGroup"]["objectIds"] == [b["id"]]
    tenant.ok("objects.delete", {"object": a["id"]})  # no longer a member


def test_object_group_with_a_foreign_tenants_object_is_404(tenant: Tenant, other_tenant: Tenant) -> None:
    own, foreign = _object(tenant), _object(other_tenant)
    answer = tenant.command(
        "objectgroups.create", {"objectGroup": {"name": "Mix", "objectIds": [own["id"], foreign["id"]]}}
    )
    assert answer.status == 404 and answer.body["errors"][0]["path"] == "objectGroup.objectIds[1]"
    group = tenant.ok("objectgroups.create", {"objectGroup": {"name": "Own", "objectIds": [own["id"]]}})["objectGroup"]
    changed = tenant.command(
        "objectgroups.update", {"objectGroup": {"id": group["id"], "objectIds": [own["id"], foreign["id"]]}}
    )
    assert changed.status == 404 and changed.body["errors"][0]["path"] == "objectGroup.objectIds[1]"
    assert other_tenant.query("objectgroups.show", {"objectGroup": group["id"]}).status == 404
    assert tenant.get("objectgroups.show", {"objectGroup": group["id"]})["objectGroup"]["objectIds"] == [own["id"]]


def test_object_in_a_group_cannot_be_deleted(tenant: Tenant) -> None:
    obj = _object(tenant)
    group = tenant.ok("objectgroups.create", {"objectGroup": {"name": "P", "objectIds": [obj["id"]]}})["objectGroup"]
    refused = tenant.command("objects.delete", {"object": obj["id"]})
    assert refused.status == 409 and refused.body["referencedBy"] == [
        {"type": "objectGroup", "id": group["id"], "path": "objectIds[0]"}
    ]
    tenant.ok("objectgroups.delete", {"objectGroup": group["id"]})
    tenant.ok("objects.delete", {"object": obj["id"]})


def test_object_group_rules(tenant: Tenant) -> None:
    obj = _object(tenant)
    assert tenant.command("objectgroups.create", {"objectGroup": {"description": "ohne Namen"}}).status == 400
    duplicate = tenant.command(
        "objectgroups.create", {"objectGroup": {"name": "Dup", "objectIds": [obj["id"], obj["id"]]}}
    )
    assert (
        duplicate.status == 400 and duplicate.body["errors"][0]["path"] == "objectGroup.objectIds[1]"
    )  # the repeated item
    assert tenant.command("objectgroups.create", {"objectGroup": {"name": "X", "type": "family"}}).status == 400
    group = tenant.ok("objectgroups.create", {"objectGroup": {"name": "Leer"}})["objectGroup"]
    cleared = tenant.command("objectgroups.update", {"objectGroup": {"id": group["id"], "name": None}})
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "objectGroup.name"


@pytest.mark.slow
def test_largest_object_group_can_be_created_replaced_deleted_and_restored(tenant: Tenant) -> None:
    first = [_object(tenant, f"A{i}")["id"] for i in range(MAX_OBJECTS)]
    second = [_object(tenant, f"B{i}")["id"] for i in range(MAX_OBJECTS)]
    too_many = tenant.command(
        "objectgroups.create", {"objectGroup": {"name": "Zu groß", "objectIds": [*first, second[0]]}}
    )
    assert too_many.status == 400
    group = tenant.ok("objectgroups.create", {"objectGroup": {"name": "Groß", "objectIds": first}})["objectGroup"]
    replaced = tenant.ok("objectgroups.update", {"objectGroup": {"id": group["id"], "objectIds": second}})[
        "objectGroup"
    ]
    assert replaced["objectIds"] == second
    tenant.ok("objects.delete", {"object": first[0]})
    tenant.ok("objectgroups.delete", {"objectGroup": group["id"]})
    assert tenant.ok("objectgroups.restore", {"objectGroup": group["id"]})["objectGroup"]["objectIds"] == second


# --- object addresses ----------------------------------------------------------------------

ADDRESS = {"street": "Lindenallee", "houseNumber": "3a", "postalCode": "50968", "city": "Köln", "countryCode": "DE"}


def test_object_addresses_filter_by_object(tenant: Tenant) -> None:
    a, b = _object(tenant, "A", alias="a"), _object(tenant, "B")
    main = tenant.ok(
        "objectaddresses.create", {"objectAddress": {"objectId": "a", **ADDRESS, "type": "main", "isPrimary": True}}
    )["objectAddress"]
    side = tenant.ok(
        "objectaddresses.create",
        {"objectAddress": {"objectId": a["id"], **ADDRESS, "houseNumber": "5", "type": "additional"}},
    )["objectAddress"]
    tenant.ok("objectaddresses.create", {"objectAddress": {"objectId": b["id"], **ADDRESS, "type": "postal"}})
    listed = tenant.get("objectaddresses.list", {"objectId": "a", "limit": 10, "offset": 0})
    assert [x["id"] for x in listed["objectAddresses"]] == [main["id"], side["id"]]
    assert listed["pagination"]["total"] == 2
    assert tenant.get("objectaddresses.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 3
    assert main["id"].startswith("oad_") and main["objectId"] == a["id"]


def test_object_address_rules(tenant: Tenant) -> None:
    obj = _object(tenant)
    base = {"objectId": obj["id"], **ADDRESS}
    missing = tenant.command("objectaddresses.create", {"objectAddress": {"objectId": obj["id"], "street": "Weg"}})
    assert missing.status == 400
    assert tenant.command("objectaddresses.create", {"objectAddress": {**base, "countryCode": "de"}}).status == 400
    assert tenant.command("objectaddresses.create", {"objectAddress": {**base, "type": "home"}}).status == 400
    address = tenant.ok("objectaddresses.create", {"objectAddress": base})["objectAddress"]
    cleared = tenant.command("objectaddresses.update", {"objectAddress": {"id": address["id"], "city": None}})
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "objectAddress.city"
    other = _object(tenant, "Other")
    assert (
        tenant.command(
            "objectaddresses.update", {"objectAddress": {"id": address["id"], "objectId": other["id"]}}
        ).status
        == 400
    )
    refused = tenant.command("objects.delete", {"object": obj["id"]})
    assert refused.status == 409 and refused.body["referencedBy"] == [
        {"type": "objectAddress", "id": address["id"], "path": "objectId"}
    ]


def test_object_address_of_a_foreign_object_is_404(tenant: Tenant, other_tenant: Tenant) -> None:
    foreign = _object(other_tenant)
    answer = tenant.command("objectaddresses.create", {"objectAddress": {"objectId": foreign["id"], **ADDRESS}})
    assert answer.status == 404 and answer.body["errors"][0]["path"] == "objectAddress.objectId"
