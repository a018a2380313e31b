"""Objects through HTTP."""

from __future__ import annotations

from tests.client import Tenant

WEG = {
    "name": "WEG Musterstraße 12",
    "number": "WEG-0042",
    "type": "weg",
    "address": {
        "street": "Musterstraße",
        "houseNumber": "12",
        "postalCode": "10115",
        "city": "Berlin",
        "countryCode": "DE",
    },
    "constructionYear": 1928,
    "livingArea": "1840.50",
    "landRegistry": {"court": "Amtsgericht Mitte", "district": "Mitte", "sheet": "4711"},
    "energyCertificate": {"kind": "consumption", "value": "132.4", "efficiencyClass": "E", "validUntil": "2031-05-31"},
}


def test_object_round_trip_with_alias(tenant: Tenant) -> None:
    created = tenant.ok("objects.create", {"object": WEG})["object"]
    assert created["id"].startswith("obj_")
    tenant.ok("aliases.upsert", {"entries": [{"alias": "erp-42", "id": created["id"], "type": "object"}]})
    shown = tenant.get("objects.show", {"object": "erp-42"})["object"]
    assert shown["landRegistry"]["sheet"] == "4711"
    assert shown["aliases"] == ["erp-42"]
    updated = tenant.ok("objects.update", {"object": {"id": "erp-42", "heatingType": "districtHeating"}})["object"]
    assert updated["heatingType"] == "districtHeating" and updated["version"] == 2


def test_objects_lists_without_paging_arguments(tenant: Tenant) -> None:
    ids = [
        tenant.ok("objects.create", {"object": {"name": f"Haus {i}", "type": "rental"}})["object"]["id"]
        for i in range(3)
    ]
    listed = tenant.get("objects")
    assert [o["id"] for o in listed["objects"]] == ids
    assert listed["pagination"] == {"total": 3, "limit": 1000, "offset": 0}
    assert [o["id"] for o in tenant.get("objects", {"limit": 1, "offset": 1})["objects"]] == ids[1:2]


def test_money_and_areas_are_decimal_strings_not_floats(tenant: Tenant) -> None:
    answer = tenant.command("objects.create", {"object": {"name": "X", "type": "rental", "livingArea": 12.5}})
    assert answer.status == 400
    assert (
        tenant.command("objects.create", {"object": {"name": "X", "type": "rental", "livingArea": "12.555"}}).status
        == 400
    )


def test_unknown_object_type_is_400(tenant: Tenant) -> None:
    assert tenant.command("objects.create", {"object": {"name": "X", "type": "castle"}}).status == 400


def test_management_period_must_be_ordered(tenant: Tenant) -> None:
    answer = tenant.command(
        "objects.create",
        {"object": {"name": "X", "type": "rental", "managementStart": "2025-01-01", "managementEnd": "2024-12-31"}},
    )
    assert answer.status == 400
    assert answer.body["errors"][0]["path"] == "object.managementEnd"


def test_show_of_a_contact_id_as_object_is_404(tenant: Tenant) -> None:
    c = tenant.contact()
    assert tenant.query("objects.show", {"object": c["id"]}).status == 404
