"""Uploading documents through HTTP: direct (JSON with base64, multipart/form-data) and the
bulk path (presigned S3 POSTs on moto's server, registered by the upload queue's handler)."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
import time
import urllib.request
from typing import Any

import pytest

from tests.client import Tenant
from tests.eventually import eventually
from tests.uploads import (
    HTML,
    PNG,
    ZIP_CLAIMING_MILLIONS,
    batch_progress,
    multipart,
    object_exists,
    pdf,
    post_file,
    wait_settled,
)


def building(tenant: Tenant, alias: str = "haus") -> dict[str, Any]:
    obj = tenant.ok("objects.create", {"object": {"name": "Lindenstraße 12", "type": "weg"}})["object"]
    tenant.alias(alias, obj["id"], "object")
    return dict(obj)


def upload_json(tenant: Tenant, content: bytes, *, file_name: str = "Energieausweis.pdf", **extra: Any) -> Any:
    body = {
        "locationId": "haus",
        "resource": {"fileName": file_name, "content": base64.b64encode(content).decode()},
        **extra,
    }
    return tenant.command("documents.upload", body)


def download(url: str) -> tuple[bytes, dict[str, str]]:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.read(), {k.lower(): v for k, v in resp.headers.items()}


def test_a_json_upload_registers_the_document_with_computed_file_fields(tenant: Tenant) -> None:
    obj = building(tenant)
    content = pdf("json")
    answer = upload_json(
        tenant,
        content,
        document={"title": "Energieausweis", "documentType": "energyCertificate", "category": "technical"},
    )
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
    body, content_type = multipart(
        [("locationId", "haus"), ("document", metadata)], "resource", "grundriss.png", PNG, "image/png"
    )
    answer = tenant.command("documents.upload", raw=body, headers={"Content-Type": content_type})
    assert answer.status == 200, answer.body
    doc = answer.body["document"]
    assert (doc["title"], doc["contentType"], doc["fileName"], doc["size"]) == (
        "Grundriss EG",
        "image/png",
        "grundriss.png",
        len(PNG),
    )


def test_an_empty_file_part_is_refused_as_empty_file_naming_the_part(tenant: Tenant) -> None:
    """The document states a form's file only as binary (no length in OpenAPI 3.0's terms), so an
    empty part is refused by that rule's own code, as an empty base64 file of a JSON body is, not as
    a schema check the document does not state (schemathesis found the 400 validation_failed)."""
    building(tenant)
    body, content_type = multipart([("locationId", "haus")], "resource", "leer.pdf", b"", "application/pdf")
    answer = tenant.command("documents.upload", raw=body, headers={"Content-Type": content_type})
    assert answer.status == 400 and answer.body["code"] == "empty_file", answer.body
    assert answer.body["errors"][0]["path"] == "resource.content"
    assert tenant.get("documents.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 0


def test_html_and_contradicting_types_are_refused_and_nothing_is_stored(tenant: Tenant) -> None:
    building(tenant)
    html = upload_json(tenant, HTML, file_name="rechnung.pdf")
    assert html.status == 400 and html.body["code"] == "file_type_not_allowed"
    body = {
        "locationId": "haus",
        "resource": {"fileName": "a.pdf", "contentType": "application/pdf", "content": base64.b64encode(PNG).decode()},
    }
    mismatch = tenant.command("documents.upload", body)
    assert mismatch.status == 400 and mismatch.body["code"] == "file_type_mismatch"
    assert tenant.get("documents.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 0


def test_a_zip_whose_directory_is_past_the_cap_is_refused_with_its_own_code(tenant: Tenant) -> None:
    """Issue 16, finding 2: the direct path refuses it as the worker does, before it is opened."""
    building(tenant)
    answer = upload_json(tenant, ZIP_CLAIMING_MILLIONS, file_name="archiv.zip")
    assert answer.status == 400 and answer.body["code"] == "archive_too_large", answer.body
    assert (
        "3,000,000 entries" in answer.body["errors"][0]["message"]
        and answer.body["errors"][0]["path"] == "resource.content"
    )
    assert tenant.get("documents.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 0


def test_an_oversized_direct_upload_answers_413_naming_the_bulk_path(tenant: Tenant) -> None:
    building(tenant)
    big = upload_json(tenant, pdf() + b"0" * (4 * 1024 * 1024))
    assert big.status == 413 and "documents.uploads.create" in big.body["detail"]


def test_bad_metadata_or_a_missing_location_writes_nothing(tenant: Tenant) -> None:
    building(tenant)
    wrong_type = upload_json(tenant, pdf(), document={"documentType": "leaseContract"})
    assert wrong_type.status == 400 and wrong_type.body["errors"][0]["path"] == "document.locationId"
    missing = tenant.command(
        "documents.upload",
        {"locationId": "nirgends", "resource": {"fileName": "a.pdf", "content": base64.b64encode(pdf()).decode()}},
    )
    assert missing.status == 404 and missing.body["errors"][0]["path"] == "locationId"


# --- bulk ------------------------------------------------------------------------------


@pytest.mark.slow
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
    assert progress["batch"]["counts"] == {
        "requested": 200,
        "uploaded": 200,
        "registered": 200,
        "failed": 0,
        "pending": 0,
        "expired": 0,
    }
    at_object = tenant.get("documents.list", {"locationId": "haus", "limit": 1000, "offset": 0})
    at_unit = tenant.get("documents.list", {"locationId": unit["id"], "limit": 1000, "offset": 0})
    assert at_object["pagination"]["total"] == 100 and at_unit["pagination"]["total"] == 100
    first = tenant.get("documents.show", {"document": created["uploads"][0]["documentId"]})["document"]
    assert first["checksum"] == hashlib.sha256(files[0]).hexdigest() and first["title"] == "Beleg 0"
    assert download(first["downloadUrl"])[0] == files[0]


def one_upload(tenant: Tenant, content: bytes, **overrides: Any) -> tuple[str, dict[str, Any]]:
    request = {
        "locationId": "haus",
        "fileName": "scan.pdf",
        "contentType": "application/pdf",
        "size": len(content),
        **overrides,
    }
    created = tenant.ok("documents.uploads.create", {"uploads": [request]})
    return created["batch"]["id"], created["uploads"][0]


def failure_of(tenant: Tenant, batch_id: str) -> dict[str, Any]:
    (upload,) = wait_settled(tenant, batch_id)["uploads"]
    assert upload["status"] == "failed", upload
    return dict(upload["failure"])


def test_a_file_larger_than_declared_is_refused_and_removed(tenant: Tenant) -> None:
    building(tenant)
    content = pdf()
    batch_id, upload = one_upload(tenant, content)
    post_file(upload, content + b"extra bytes S3 itself would refuse")  # moto does not enforce the policy
    assert failure_of(tenant, batch_id)["code"] == "size_mismatch"
    assert not object_exists(upload["fields"]["key"])
    assert tenant.query("documents.show", {"document": upload["documentId"]}).status == 404


def test_a_file_whose_bytes_are_not_the_declared_type_is_refused(tenant: Tenant) -> None:
    building(tenant)
    batch_id, upload = one_upload(tenant, HTML)
    post_file(upload, HTML)
    assert failure_of(tenant, batch_id)["code"] == "file_type_not_allowed"
    png_batch, png_upload = one_upload(tenant, PNG)
    post_file(png_upload, PNG)
    assert failure_of(tenant, png_batch)["code"] == "file_type_mismatch"
    assert not object_exists(png_upload["fields"]["key"])


def test_a_file_arriving_after_the_url_expired_is_refused_and_unused_uploads_show_expired(tenant: Tenant) -> None:
    from chalicelib import clock

    building(tenant)
    content = pdf()
    real = clock.now()
    clock.set_clock(lambda: real - dt.timedelta(hours=2))  # the batch was made two hours ago, its URLs lived one
    try:
        created = tenant.ok(
            "documents.uploads.create",
            {
                "uploads": [
                    {
                        "locationId": "haus",
                        "fileName": f"{n}.pdf",
                        "contentType": "application/pdf",
                        "size": len(content),
                    }
                    for n in range(2)
                ]
            },
        )
    finally:
        clock.set_clock(None)
    post_file(created["uploads"][0], content)
    progress = wait_settled(tenant, created["batch"]["id"], uploaded=1)
    assert progress["batch"]["counts"]["failed"] == 1 and progress["batch"]["counts"]["expired"] == 1
    assert progress["uploads"][0]["failure"]["code"] == "upload_expired"
    assert [u["status"] for u in progress["uploads"]] == ["failed", "expired"]


def test_an_upload_forged_into_another_tenants_prefix_is_removed_and_registers_nowhere(
    tenant: Tenant, other_tenant: Tenant
) -> None:
    building(tenant)
    building(other_tenant)
    content = pdf()
    batch_id, upload = one_upload(other_tenant, content)
    forged_key = upload["fields"]["key"].replace(other_tenant.id, tenant.id)
    post_file(upload, content, fields={**upload["fields"], "key": forged_key})  # S3 refuses: the policy binds the key
    eventually(lambda: not object_exists(forged_key), message="the forged upload to be removed")
    assert tenant.get("documents.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 0
    assert other_tenant.get("documents.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 0
    assert batch_progress(other_tenant, batch_id)["uploads"][0]["status"] == "pending"
    assert tenant.query("documents.uploads.progress", {"batch": batch_id, "limit": 10, "offset": 0}).status == 404


def test_a_duplicate_queue_delivery_registers_the_document_once(tenant: Tenant) -> None:
    import boto3

    building(tenant)
    content = pdf()
    batch_id, upload = one_upload(tenant, content)
    post_file(upload, content)
    assert wait_settled(tenant, batch_id)["batch"]["counts"]["registered"] == 1
    notice = {
        "Records": [
            {
                "eventName": "ObjectCreated:Post",
                "eventTime": "2000-01-01T00:00:00.000Z",
                "s3": {"object": {"key": upload["fields"]["key"], "size": len(content)}},
            }
        ]
    }
    sqs = boto3.client("sqs")
    for _ in range(2):
        sqs.send_message(QueueUrl=os.environ["PM_UPLOAD_QUEUE_URL"], MessageBody=json.dumps(notice))
    eventually(lambda: queued(sqs) == 0, timeout=30, message="both notices handled (taken off the upload queue)")
    assert tenant.get("documents.list", {"locationId": "haus", "limit": 10, "offset": 0})["pagination"]["total"] == 1
    assert object_exists(upload["fields"]["key"])
    records = audit_of(tenant, upload["documentId"])
    assert [record["action"] for record in records] == ["created"]
    assert records[0]["operation"] == "documents.uploads.create" and records[0]["actor"]["agentName"] == "setup"


def queued(sqs: Any) -> int:
    attributes = sqs.get_queue_attributes(QueueUrl=os.environ["PM_UPLOAD_QUEUE_URL"], AttributeNames=["All"])[
        "Attributes"
    ]
    return int(attributes["ApproximateNumberOfMessages"]) + int(attributes["ApproximateNumberOfMessagesNotVisible"])


def audit_of(tenant: Tenant, entity_id: str) -> list[dict[str, Any]]:
    """The entity's audit records, once the stream has delivered them."""
    eventually(
        lambda: tenant.get("audit.list", {"entityId": entity_id, "limit": 10, "offset": 0})["auditRecords"],
        message=f"an audit record of {entity_id}",
    )
    time.sleep(0.3)  # that no duplicate follows is tested: one would arrive in the same batch or just after
    return list(tenant.get("audit.list", {"entityId": entity_id, "limit": 10, "offset": 0})["auditRecords"])


def test_a_batch_is_checked_whole_before_any_url_is_handed_out(tenant: Tenant) -> None:
    building(tenant)
    ok = {"locationId": "haus", "fileName": "a.pdf", "contentType": "application/pdf", "size": 10}
    missing = tenant.command("documents.uploads.create", {"uploads": [ok, {**ok, "locationId": "nirgends"}]})
    assert missing.status == 404 and missing.body["errors"][0]["path"] == "uploads[1].locationId"
    bad_type = tenant.command(
        "documents.uploads.create", {"uploads": [ok, {**ok, "document": {"documentType": "leaseContract"}}]}
    )
    assert bad_type.status == 400 and bad_type.body["errors"][0]["path"] == "uploads[1].locationId"
    too_big = tenant.command("documents.uploads.create", {"uploads": [{**ok, "size": 200 * 1024 * 1024}]})
    assert too_big.status == 400 and too_big.body["errors"][0]["path"] == "uploads[0].size"
    exe = tenant.command("documents.uploads.create", {"uploads": [{**ok, "contentType": "application/x-msdownload"}]})
    assert exe.status == 400
    assert tenant.command("documents.uploads.create", {"uploads": [ok] * 1001}).status == 400


def test_a_multipart_upload_retried_with_its_idempotency_key_stores_one_document(tenant: Tenant) -> None:
    building(tenant)
    content = pdf("einmal")
    answers = []
    for _ in range(2):  # each attempt has its own boundary, as a retrying client's would
        body, content_type = multipart([("locationId", "haus")], "resource", "einmal.pdf", content, "application/pdf")
        answers.append(
            tenant.command(
                "documents.upload", raw=body, headers={"Content-Type": content_type, "Idempotency-Key": "upload-einmal"}
            )
        )
    assert [a.status for a in answers] == [200, 200] and answers[1].headers.get("idempotent-replayed") == "true"
    assert answers[0].body["document"]["id"] == answers[1].body["document"]["id"]
    assert tenant.get("documents.list", {"locationId": "haus", "limit": 10, "offset": 0})["pagination"]["total"] == 1


def test_a_second_upload_to_a_registered_key_never_replaces_the_registered_file(tenant: Tenant) -> None:
    from chalicelib.uploads import files

    building(tenant)
    first, second = pdf("erste"), pdf("zweit")  # same size, other bytes
    batch_id, upload = one_upload(tenant, first)
    post_file(upload, first)
    assert wait_settled(tenant, batch_id)["batch"]["counts"]["registered"] == 1
    post_file(upload, second)  # the presigned POST is still valid
    key = upload["fields"]["key"]
    eventually(lambda: len(files.versions(key)) == 1, message=f"one version of {key}")
    shown = tenant.get("documents.show", {"document": upload["documentId"]})["document"]
    assert download(shown["downloadUrl"])[0] == first and shown["checksum"] == hashlib.sha256(first).hexdigest()


def test_an_upload_retried_after_a_refusal_leaves_no_file(tenant: Tenant) -> None:
    building(tenant)
    batch_id, upload = one_upload(tenant, HTML)
    post_file(upload, HTML)
    assert failure_of(tenant, batch_id)["code"] == "file_type_not_allowed"
    post_file(upload, HTML)
    eventually(lambda: not object_exists(upload["fields"]["key"]), message="the refused file to be removed")
