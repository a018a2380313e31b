"""Document metadata through HTTP (show, list, update, delete, restore) and the type catalogue.
There is no create operation yet (documents.upload comes later): documents are created
in-process, in the storage the app serves from."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.context import CallContext
from chalicelib.document_types import BY_CODE, DOCUMENT_TYPES
from chalicelib.errors import Invalid
from chalicelib.resources.documents import DOCUMENT
from chalicelib.store import entities
from tests.client import Tenant

CHECKSUM = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


def ctx_of(tenant: Tenant) -> CallContext:
    return CallContext(tenant_id=tenant.id, key_id="key_t", agent_name="t", scopes=frozenset())


def make_document(tenant: Tenant, location_id: str, **fields: Any) -> dict[str, Any]:
    data = {
        "locationId": location_id,
        "title": "Energieausweis 2024",
        "documentType": "energyCertificate",
        "category": "technical",
        "documentDate": "2024-06-30",
        "visibility": "internal",
        "fileName": "energieausweis.pdf",
        "contentType": "application/pdf",
        "size": 183245,
        "checksum": CHECKSUM,
        **fields,
    }
    ctx = ctx_of(tenant)
    return entities.to_wire(ctx, entities.create(ctx, DOCUMENT, data, path="document"))


def make_object(tenant: Tenant, name: str = "WEG Am Markt 1") -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": name, "type": "weg"}})["object"])


def test_document_lifecycle_over_http(tenant: Tenant) -> None:
    obj = make_object(tenant)
    doc = make_document(tenant, obj["id"])
    assert doc["id"].startswith("doc_")
    tenant.alias("haus", obj["id"], "object")
    tenant.alias("ea-2024", doc["id"], "document")

    shown = tenant.get("documents.show", {"document": "ea-2024"})["document"]
    assert shown["id"] == doc["id"] and shown["aliases"] == ["ea-2024"]
    assert shown["fileName"] == "energieausweis.pdf" and shown["size"] == 183245 and shown["checksum"] == CHECKSUM

    listed = tenant.get("documents.list", {"locationId": "haus", "limit": 10, "offset": 0})
    assert [d["id"] for d in listed["documents"]] == [doc["id"]] and listed["pagination"]["total"] == 1

    updated = tenant.ok(
        "documents.update", {"document": {"id": "ea-2024", "title": "Energieausweis (Bedarf)", "visibility": "portal"}}
    )["document"]
    assert updated["title"] == "Energieausweis (Bedarf)" and updated["visibility"] == "portal"
    assert updated["version"] == shown["version"] + 1 and updated["fileName"] == "energieausweis.pdf"

    deleted = tenant.ok("documents.delete", {"document": "ea-2024"})["deleted"]
    assert deleted["type"] == "document" and deleted["id"] == doc["id"]
    assert tenant.query("documents.show", {"document": "ea-2024"}).status == 404
    assert tenant.get("documents.list", {"locationId": obj["id"], "limit": 10, "offset": 0})["pagination"]["total"] == 0

    restored = tenant.ok("documents.restore", {"document": "ea-2024"})["document"]
    assert restored["id"] == doc["id"] and restored["aliases"] == ["ea-2024"]
    assert tenant.get("documents.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 1


def test_list_filters_by_location_of_every_kind(tenant: Tenant) -> None:
    obj = make_object(tenant)
    process = tenant.ok("processes.create", {"process": {"title": "Rohrbruch"}, "object": obj["id"]})["process"]
    entry = tenant.ok(
        "processes.updates.create", {"update": {"text": "Rechnung eingegangen"}, "process": process["id"]}
    )["update"]
    at_object = make_document(tenant, obj["id"])
    at_process = make_document(
        tenant, process["id"], documentType="damageReport", category="insurance", title="Schadensmeldung"
    )
    at_entry = make_document(tenant, entry["id"], documentType="invoice", category="finance", title="Rechnung Klempner")
    tenant.alias("rohrbruch", process["id"], "process")

    def ids(location: str) -> list[str]:
        return [
            d["id"]
            for d in tenant.get("documents.list", {"locationId": location, "limit": 10, "offset": 0})["documents"]
        ]

    assert ids(obj["id"]) == [at_object["id"]]
    assert ids("rohrbruch") == [at_process["id"]]
    assert ids(entry["id"]) == [at_entry["id"]]
    assert tenant.query("documents.list", {"locationId": "unbekannt", "limit": 10, "offset": 0}).status == 404
    refused = tenant.command("processes.delete", {"process": process["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"


def test_documents_at_units_and_contracts(tenant: Tenant) -> None:
    obj = make_object(tenant)
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "1.01", "type": "apartment"}})["unit"]
    renter = tenant.contact(lastName="Mieterin")
    contract_body = {
        "unitId": unit["id"],
        "type": "lease",
        "startDate": "2024-01-01",
        "parties": [{"contactId": renter["id"], "role": "tenant"}],
    }
    contract = tenant.ok("contracts.create", {"contract": contract_body})["contract"]
    lease = make_document(
        tenant, contract["id"], documentType="leaseContract", category="contracts", title="Mietvertrag"
    )
    handover = make_document(
        tenant, unit["id"], documentType="handoverProtocol", category="handover", title="Übergabeprotokoll"
    )
    tenant.alias("mv-1", contract["id"], "contract")
    assert [
        d["id"] for d in tenant.get("documents.list", {"locationId": "mv-1", "limit": 10, "offset": 0})["documents"]
    ] == [lease["id"]]
    moved = tenant.ok("documents.update", {"document": {"id": handover["id"], "locationId": "mv-1"}})["document"]
    assert moved["locationId"] == contract["id"]
    refused = tenant.command("contracts.delete", {"contract": contract["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"


def test_typemappings_lists_current_types_only(tenant: Tenant) -> None:
    mappings = tenant.get("documents.typemappings")["typeMappings"]
    codes = [m["code"] for m in mappings]
    deprecated = [t.code for t in DOCUMENT_TYPES if t.deprecated]
    assert len(deprecated) >= 2 and not set(deprecated) & set(codes)
    assert len(codes) == len(set(codes)) == len(DOCUMENT_TYPES) - len(deprecated) >= 18
    lease = next(m for m in mappings if m["code"] == "leaseContract")
    assert lease["nameDe"] == "Mietvertrag" and lease["nameEn"] == "Lease agreement"
    assert lease["nodeTypes"] == ["contract", "unit"]
    assert lease["categories"] == [{"code": "contracts", "nameDe": "Verträge", "nameEn": "Contracts"}]
    names = {m["nameDe"] for m in mappings}
    for expected in (
        "Nebenkostenabrechnung",
        "Wirtschaftsplan",
        "Jahresabrechnung",
        "Protokoll der Eigentümerversammlung",
        "Teilungserklärung",
    ):
        assert expected in names
    valid_nodes = {"object", "contract", "unit", "objectGroup", "process", "processUpdate"}
    assert all(m["nodeTypes"] and set(m["nodeTypes"]) <= valid_nodes and m["categories"] for m in mappings)
    assert tenant.query("documents.typemappings", {"limit": 10}).status == 400


def test_update_refuses_unknown_or_deprecated_types_and_foreign_categories(tenant: Tenant) -> None:
    obj = make_object(tenant)
    doc = make_document(tenant, obj["id"])

    def update(**changes: Any) -> Any:
        return tenant.command("documents.update", {"document": {"id": doc["id"], **changes}})

    unknown = update(documentType="mietvertrag")
    assert unknown.status == 400 and unknown.body["errors"][0]["path"] == "document.documentType"
    deprecated = update(documentType="operatingCostStatement", category="billing")
    assert deprecated.status == 400 and deprecated.body["errors"][0]["path"] == "document.documentType"
    assert "utilityStatement" in deprecated.body["detail"]
    assert update(documentType="fax", category="correspondence").status == 400
    foreign = update(category="finance")  # not a category of energyCertificate
    assert foreign.status == 400 and foreign.body["errors"][0]["path"] == "document.category"
    stale_category = update(documentType="invoice")  # category technical does not fit an invoice
    assert stale_category.status == 400 and stale_category.body["errors"][0]["path"] == "document.category"
    wrong_node = update(documentType="leaseContract", category="contracts")  # a lease is not filed at an object
    assert wrong_node.status == 400 and wrong_node.body["errors"][0]["path"] == "document.locationId"
    reclassified = update(documentType="invoice", category="finance")
    assert reclassified.status == 200 and reclassified.body["document"]["documentType"] == "invoice"
    no_type = update(documentType=None)
    assert no_type.status == 400 and no_type.body["errors"][0]["path"] == "document.category"
    assert update(documentType=None, category=None).status == 200
    assert tenant.get("documents.show", {"document": doc["id"]})["document"]["version"] == doc["version"] + 2


def test_a_document_with_a_since_deprecated_type_keeps_it_until_reclassified(tenant: Tenant) -> None:
    obj = make_object(tenant)
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "2.01", "type": "apartment"}})["unit"]
    doc = make_document(tenant, unit["id"], documentType="utilityStatement", category="billing")
    # As if stored before the type was deprecated (the store's own path, not the API's):
    entities.update(
        ctx_of(tenant),
        DOCUMENT,
        doc["id"],
        {"documentType": "operatingCostStatement"},
        expected_version=None,
        path="document",
    )
    assert BY_CODE["operatingCostStatement"].deprecated
    renamed = tenant.ok("documents.update", {"document": {"id": doc["id"], "title": "BK-Abrechnung 2019"}})["document"]
    assert renamed["documentType"] == "operatingCostStatement"
    again = tenant.command(
        "documents.update", {"document": {"id": doc["id"], "documentType": "operatingCostStatement"}}
    )
    assert again.status == 400
    assert (
        tenant.ok("documents.update", {"document": {"id": doc["id"], "documentType": "utilityStatement"}})["document"][
            "documentType"
        ]
        == "utilityStatement"
    )


def test_documents_are_never_created_with_a_deprecated_or_unknown_type(tenant: Tenant) -> None:
    obj = make_object(tenant)
    with pytest.raises(Invalid):
        make_document(tenant, obj["id"], documentType="fax", category="correspondence")
    with pytest.raises(Invalid):
        make_document(tenant, obj["id"], documentType="nope", category="technical")
    assert tenant.get("documents.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 0


def test_location_may_change_only_to_an_existing_location(tenant: Tenant, other_tenant: Tenant) -> None:
    a, b = make_object(tenant, "A"), make_object(tenant, "B")
    foreign = make_object(other_tenant, "Fremd")
    doc = make_document(tenant, a["id"], documentType="letter", category="correspondence", title="Schreiben")
    tenant.alias("obj-b", b["id"], "object")
    moved = tenant.ok("documents.update", {"document": {"id": doc["id"], "locationId": "obj-b"}})["document"]
    assert moved["locationId"] == b["id"]
    assert tenant.get("documents.list", {"locationId": a["id"], "limit": 10, "offset": 0})["pagination"]["total"] == 0
    tenant.ok("objects.delete", {"object": a["id"]})  # no longer referenced
    for target in (a["id"], foreign["id"], "obj_01K00000000000000000000000", "nirgendwo"):
        answer = tenant.command("documents.update", {"document": {"id": doc["id"], "locationId": target}})
        assert answer.status == 404 and answer.body["errors"][0]["path"] == "document.locationId", target
    contact = tenant.contact()
    not_a_location = tenant.command("documents.update", {"document": {"id": doc["id"], "locationId": contact["id"]}})
    assert not_a_location.status == 404
    cleared = tenant.command("documents.update", {"document": {"id": doc["id"], "locationId": None}})
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "document.locationId"


def test_file_fields_are_read_only_and_there_is_no_create_yet(tenant: Tenant) -> None:
    obj = make_object(tenant)
    doc = make_document(tenant, obj["id"])
    for field, value in (("fileName", "x.pdf"), ("size", 1), ("checksum", CHECKSUM), ("contentType", "text/plain")):
        answer = tenant.command("documents.update", {"document": {"id": doc["id"], field: value}})
        assert answer.status == 400, field
    assert tenant.command("documents.create", {"document": {"title": "x"}}).status == 404
    assert tenant.get("documents.show", {"document": doc["id"]})["document"] == doc


def test_documents_are_isolated_per_tenant(tenant: Tenant, other_tenant: Tenant) -> None:
    doc = make_document(tenant, make_object(tenant)["id"])
    assert other_tenant.query("documents.show", {"document": doc["id"]}).status == 404
    assert other_tenant.get("documents.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 0
    assert other_tenant.command("documents.update", {"document": {"id": doc["id"], "title": "x"}}).status == 404
