"""UVI documents (unterjährige Verbrauchsinformation) through HTTP: uploaded for an object
with categories and a period, listed per object, shown with a download link."""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.request
from typing import Any

from tests.client import Tenant
from tests.uploads import HTML, multipart, pdf


def setup(tenant: Tenant) -> dict[str, Any]:
    obj = tenant.ok("objects.create", {"object": {"name": "Am Markt 3", "type": "weg"}})["object"]
    tenant.alias("markt", obj["id"], "object")
    return dict(obj)


def uvi(tenant: Tenant, month: int, content: bytes | None = None, **data: Any) -> Any:
    payload = {
        "objectId": "markt",
        "categories": ["heating", "hotWater"],
        "periodStart": f"2026-{month:02d}-01",
        "periodEnd": f"2026-{month:02d}-28",
        **data,
    }
    resource = {
        "fileName": f"UVI_2026-{month:02d}.pdf",
        "content": base64.b64encode(content or pdf(str(month))).decode(),
    }
    return tenant.command("uvi.upload", {"data": payload, "resource": resource})


def test_uvis_are_listed_per_object_with_the_period_they_cover(tenant: Tenant) -> None:
    obj = setup(tenant)
    other = tenant.ok("objects.create", {"object": {"name": "Gartenweg 1", "type": "weg"}})["object"]
    content = pdf("oktober")
    first = uvi(tenant, 10, content)
    assert first.status == 200, first.body
    stored = first.body["uviDocument"]
    assert (
        stored["objectId"] == obj["id"]
        and stored["visibility"] == "portal"
        and stored["categories"] == ["heating", "hotWater"]
    )
    assert stored["checksum"] == hashlib.sha256(content).hexdigest() and stored["contentType"] == "application/pdf"
    assert uvi(tenant, 11).status == 200
    assert (
        tenant.command(
            "uvi.upload",
            {
                "data": {
                    "objectId": other["id"],
                    "categories": ["coldWater"],
                    "periodStart": "2026-10-01",
                    "periodEnd": "2026-10-31",
                },
                "resource": {"fileName": "x.pdf", "content": base64.b64encode(pdf()).decode()},
            },
        ).status
        == 200
    )
    listed = tenant.get("uvi.list", {"object": "markt", "limit": 10, "offset": 0})
    assert [(u["periodStart"], u["periodEnd"]) for u in listed["uviDocuments"]] == [
        ("2026-10-01", "2026-10-28"),
        ("2026-11-01", "2026-11-28"),
    ]
    shown = tenant.get("uvi.show", {"uviDocument": stored["id"]})["uviDocument"]
    with urllib.request.urlopen(shown["downloadUrl"], timeout=10) as resp:
        assert resp.read() == content
    assert tenant.get("documents.list", {"locationId": "markt", "limit": 10, "offset": 0})["pagination"]["total"] == 0


def test_a_uvi_is_uploaded_as_multipart_too(tenant: Tenant) -> None:
    setup(tenant)
    data = json.dumps(
        {"objectId": "markt", "categories": ["heating"], "periodStart": "2026-09-01", "periodEnd": "2026-09-30"}
    )
    body, content_type = multipart([("data", data)], "resource", "UVI_2026-09.pdf", pdf(), "application/pdf")
    answer = tenant.command("uvi.upload", raw=body, headers={"Content-Type": content_type})
    assert answer.status == 200, answer.body
    assert answer.body["uviDocument"]["fileName"] == "UVI_2026-09.pdf"


def test_uvi_rules(tenant: Tenant) -> None:
    setup(tenant)
    backwards = uvi(tenant, 10, periodEnd="2026-09-30")
    assert backwards.status == 400 and backwards.body["errors"][0]["path"] == "data.periodEnd"
    too_long = uvi(tenant, 1, periodEnd="2027-06-30")
    assert too_long.status == 400
    unknown = uvi(tenant, 10, categories=["electricity"])
    assert unknown.status == 400 and unknown.body["errors"][0]["path"].startswith("data.categories")
    assert uvi(tenant, 10, categories=[]).status == 400
    assert uvi(tenant, 10, HTML).body["code"] == "file_type_not_allowed"
    assert uvi(tenant, 10, objectId="nirgends").status == 404
    assert tenant.get("uvi.list", {"object": "markt", "limit": 10, "offset": 0})["pagination"]["total"] == 0


def test_uvi_upload_needs_the_uvi_write_scope(tenant: Tenant) -> None:
    setup(tenant)
    documents_only = tenant.new_key(["read", "write:documents"], agent="docs")
    body = {
        "data": {
            "objectId": "markt",
            "categories": ["heating"],
            "periodStart": "2026-10-01",
            "periodEnd": "2026-10-31",
        },
        "resource": {"fileName": "u.pdf", "content": base64.b64encode(pdf()).decode()},
    }
    assert tenant.command("uvi.upload", body, key=documents_only).status == 403
    uvi_key = tenant.new_key(["read", "write:uvi"], agent="uvi-bot")
    assert tenant.command("uvi.upload", body, key=uvi_key).status == 200


def test_a_uvi_is_updated_deleted_and_restored_by_alias(tenant: Tenant) -> None:
    setup(tenant)
    created = uvi(tenant, 10).body["uviDocument"]
    tenant.alias("uvi-okt", created["id"], "uviDocument")
    updated = tenant.ok(
        "uvi.update",
        {"uviDocument": {"id": "uvi-okt", "title": "Verbrauchsinformation Oktober", "visibility": "internal"}},
    )["uviDocument"]
    assert (updated["title"], updated["visibility"], updated["version"]) == (
        "Verbrauchsinformation Oktober",
        "internal",
        2,
    )
    assert tenant.command("uvi.update", {"uviDocument": {"id": "uvi-okt", "checksum": "0" * 64}}).status == 400
    assert tenant.command("uvi.update", {"uviDocument": {"id": "uvi-okt", "periodEnd": "2026-09-01"}}).status == 400
    assert tenant.ok("uvi.delete", {"uviDocument": "uvi-okt"})["deleted"]["id"] == created["id"]
    assert tenant.query("uvi.show", {"uviDocument": "uvi-okt"}).status == 404
    assert tenant.get("uvi.list", {"object": "markt", "limit": 10, "offset": 0})["pagination"]["total"] == 0
    assert tenant.ok("uvi.restore", {"uviDocument": "uvi-okt"})["uviDocument"]["id"] == created["id"]
    assert tenant.get("uvi.list", {"object": "markt", "limit": 10, "offset": 0})["pagination"]["total"] == 1
