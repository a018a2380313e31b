"""The orphan sweep finds files nobody points at and documents whose file is gone, and
leaves alone what is registered or still awaited."""

from __future__ import annotations

import datetime as dt
from typing import Any

import boto3
import pytest

from chalicelib.uploads import files
from chalicelib.uploads.sweep import main, sweep
from tests.client import Tenant
from tests.eventually import eventually
from tests.functional.test_document_uploads import building, one_upload, upload_json
from tests.uploads import object_exists, pdf, post_file, wait_settled

NOW = dt.timedelta(0)


@pytest.mark.slow
def test_the_sweep_reports_orphans_and_missing_files_and_leaves_the_rest(tenant: Tenant) -> None:
    building(tenant)
    kept = upload_json(tenant, pdf()).body["document"]
    lost = upload_json(tenant, pdf()).body["document"]
    s3 = boto3.client("s3")
    s3.delete_object(Bucket=files.bucket(), Key=files.direct_key(tenant.id, lost["id"]))  # what must never happen
    orphan = files.direct_key(tenant.id, "doc_01M80FKPVT22552JBZ7CGPMA99")
    s3.put_object(Bucket=files.bucket(), Key=orphan, Body=b"left behind by a crash")
    batch_id, registered = one_upload(tenant, pdf("registered"))
    post_file(registered, pdf("registered"))
    wait_settled(tenant, batch_id)
    _, awaited = one_upload(tenant, b"x" * 10)  # reserved, no file yet

    report = sweep(grace=NOW)
    assert orphan in report.orphan_files
    assert {
        "tenantId": tenant.id,
        "id": lost["id"],
        "type": "document",
        "fileKey": files.direct_key(tenant.id, lost["id"]),
    } in report.missing_files
    assert files.direct_key(tenant.id, kept["id"]) not in report.orphan_files
    assert registered["fields"]["key"] not in report.orphan_files
    assert awaited["fields"]["key"] not in report.orphan_files

    cleaned = sweep(grace=NOW, delete_orphans=True)
    assert orphan in cleaned.orphan_files and cleaned.deleted >= 1
    assert orphan not in sweep(grace=NOW).orphan_files


@pytest.mark.slow
def test_the_sweep_command_exits_nonzero_when_a_file_is_missing(tenant: Tenant, capsys: object) -> None:
    building(tenant)
    doc = upload_json(tenant, pdf()).body["document"]
    boto3.client("s3").delete_object(Bucket=files.bucket(), Key=files.direct_key(tenant.id, doc["id"]))
    assert main(["--grace-minutes", "0"]) == 1


def test_an_exports_files_are_not_orphans_of_the_sweep(tenant: Tenant) -> None:
    """An export's files belong to no entity; the bucket's lifecycle expires them, and the sweep
    (whose --delete-orphans would delete them) leaves them alone."""
    building(tenant)
    uploaded = upload_json(tenant, pdf())
    assert uploaded.status == 200, uploaded.body
    started = tenant.ok("exports.create", {})
    shown = eventually(lambda: _done(tenant, started["id"]), timeout=30, message="the export to finish")
    assert shown["counts"]["document"] == 1 and shown["filesUrl"], shown
    report = sweep(grace=NOW, delete_orphans=True)
    exported = [key for key in report.orphan_files if key.startswith(files.EXPORT_PREFIX)]
    assert exported == [] and report.deleted == len(report.orphan_files)
    assert object_exists(f"{files.EXPORT_PREFIX}{tenant.id}/{started['id']}/files.zip")


def _done(tenant: Tenant, export_id: str) -> dict[str, Any]:
    shown = tenant.get("exports.show", {"id": export_id})
    assert shown["status"] == "done", shown
    return dict(shown)
