"""Uploading documents through HTTP: direct (JSON with base64, multipart/form-data) and the
bulk path (presigned S3 POSTs on moto's server, registered by the upload queue's handler)."""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.request
from typing import Any

from tests.client import Tenant
from tests.uploads import HTML, PNG, multipart, pdf, post_file, wait_settled


def building(tenant: Tenant, alias: str = "haus") -> dict[str, Any]:
    obj = tenant.ok("objects.create", {"object": {"name": "Lindenstraße 12", "type": "weg"}})["object"]
    tenant.ok("aliases.upsert", {"entries": [{"alias": alias, "id": obj["id"], "type": "object"}]})
    return dict(obj)


def upload_json(tenant: Tenant, content: bytes, *, file_name: str = "Energieausweis.pdf", **extra: Any) -> Any:
    body = {"locationId": "haus", "resource": {"fileName": file_name, "content": base64.b64encode(content).decode()}, **extra}
    return tenant.command("documents.upload", body)


def download(url: str) -> tuple[bytes, dict[str, str]]:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.read(), {k.lower(): v for k, v in resp.headers.items()}


def test_a_json_upload_registers_the_document_with_computed_file_fields(tenant: Tenant) -> None:
    obj = building(tenant)
    content = pdf("json")
    answer = upload_json(tenant, content, document={"title": "Energieausweis", "documentType": "energyCertificate", "category": "technical"})
    assert answer.status == 200, answer.body
    doc = answer.body["document"]
    assert doc["locationId"] == obj["id"] and doc["title"] == "Energieausweis"
    assert doc["contentType"] == "application/pdf" and doc["size"] == len(content)
    assert doc["checksum"] == hashlib.sha256(content).hexdigest()
    listed = tenant.get("documents.list", {"locationId": "haus", "limit": 10, "offset": 0})["documents"]
    assert [d["id"] for d in listed] == [doc["id"]]


def test_show_carries_a_download_link_that_serves_the_file_under_its_name(tenant: Tenant) -> None:
    building(tenant)
    content = pdf("download")
    doc = upload_json(tenant, content, file_name="../../etc/Nebenkosten 2024 ä.pdf").body["document"]
    assert doc["fileName"] == "Nebenkosten 2024 ä.pdf"
    shown = tenant.get("documents.show", {"document": doc["id"]})["document"]
    body, headers = download(shown["downloadUrl"])
    assert body == content
    assert "Nebenkosten%202024%20%C3%A4.pdf" in headers.get("content-disposition", "")
    assert shown["downloadUrlExpiresAt"] > shown["createdAt"]


def test_a_multipart_upload_takes_the_file_and_json_metadata_parts(tenant: Tenant) -> None:
    building(tenant)
    metadata = json.dumps({"title": "Grundriss EG", "documentType": "floorPlan", "category": "plans"})
    body, content_type = multipart([("locationId", "haus"), ("document", metadata)], "resource", "grundriss.png", PNG, "image/png")
    answer = tenant.command("documents.upload", raw=body, headers={"Content-Type": content_type})
    assert answer.status == 200, answer.body
    doc = answer.body["document"]
    assert (doc["title"], doc["contentType"], doc["fileName"], doc["size"]) == ("Grundriss EG", "image/png", "grundriss.png", len(PNG))


def test_html_and_contradicting_types_are_refused_and_nothing_is_stored(tenant: Tenant) -> None:
    building(tenant)
    html = upload_json(tenant, HTML, file_name="rechnung.pdf")
    assert html.status == 400 and html.body["code"] == "file_type_not_allowed"
    body = {"locationId": "haus", "resource": {"fileName": "a.pdf", "contentType": "application/pdf", "content": base64.b64encode(PNG).decode()}}
    mismatch = tenant.command("documents.upload", body)
    assert mismatch.status == 400 and mismatch.body["code"] == "file_type_mismatch"
    assert tenant.get("documents.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 0


def test_an_oversized_direct_upload_answers_413_naming_the_bulk_path(tenant: Tenant) -> None:
    building(tenant)
    big = upload_json(tenant, pdf() + b"0" * (4 * 1024 * 1024))
    assert big.status == 413 and "documents.uploads.create" in big.body["detail"]


def test_bad_metadata_or_a_missing_location_writes_nothing(tenant: Tenant) -> None:
    building(tenant)
    wrong_type = upload_json(tenant, pdf(), document={"documentType": "leaseContract"})
    assert wrong_type.status == 400 and wrong_type.body["errors"][0]["path"] == "document.locationId"
    missing = tenant.command("documents.upload", {"locationId": "nirgends", "resource": {"fileName": "a.pdf", "content": base64.b64encode(pdf()).decode()}})
    assert missing.status == 404 and missing.body["errors"][0]["path"] == "locationId"


# --- bulk ------------------------------------------------------------------------------


def test_a_batch_of_200_presigned_uploads_is_registered_and_listed_by_location(tenant: Tenant) -> None:
    building(tenant)
    unit = tenant.ok("units.create", {"unit": {"objectId": "haus", "number": "1.02", "type": "apartment"}})["unit"]
    files = [pdf(f"bulk-{n}") for n in range(200)]
    requests = [
        {
            "locationId": "haus" if n % 2 else unit["id"],
            "fileName": f"Beleg {n}.pdf",
            "contentType": "application/pdf",
            "size": len(content),
            "document": {"title": f"Beleg {n}", "documentType": "invoice", "category": "finance"},
        }
        for n, content in enumerate(files)
    ]
    created = tenant.ok("documents.uploads.create", {"uploads": requests})
    assert created["batch"]["count"] == 200 and len(created["uploads"]) == 200
    for upload, content in zip(created["uploads"], files, strict=True):
        assert post_file(upload, content) in (200, 204)
    progress = wait_settled(tenant, created["batch"]["id"])
    assert progress["batch"]["counts"] == {"requested": 200, "uploaded": 200, "registered": 200, "failed": 0, "pending": 0, "expired": 0}
    at_object = tenant.get("documents.list", {"locationId": "haus", "limit": 1000, "offset": 0})
    at_unit = tenant.get("documents.list", {"locationId": unit["id"], "limit": 1000, "offset": 0})
    assert at_object["pagination"]["total"] == 100 and at_unit["pagination"]["total"] == 100
    first = tenant.get("documents.show", {"document": created["uploads"][0]["documentId"]})["document"]
    assert first["checksum"] == hashlib.sha256(files[0]).hexdigest() and first["title"] == "Beleg 0"
    assert download(first["downloadUrl"])[0] == files[0]
