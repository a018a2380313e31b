"""Sign-up, version, info, tenant, status and the per-key OpenAPI document."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from openapi_spec_validator import validate

from tests.client import Api, Tenant


def _signup(api: Api, body: dict[str, object]) -> object:
    return api.request(
        "POST",
        "/api/platform/v1/command/signup",
        body=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )


def test_signup_gives_a_30_day_enterprise_trial_and_a_working_key(api: Api) -> None:
    tenant = api.signup(company="Hausverwaltung Sonne GmbH", agent="onboarding")
    body = tenant.signup_answer
    assert body["apiKey"]["key"].startswith("pm_test_")
    assert body["tenant"]["plan"] == "enterprise"
    created = dt.datetime.fromisoformat(body["tenant"]["createdAt"].replace("Z", "+00:00"))
    ends = dt.datetime.fromisoformat(body["tenant"]["trialEndsAt"].replace("Z", "+00:00"))
    assert ends - created == dt.timedelta(days=30)
    info = tenant.get("info")
    assert info["tenant"]["companyName"] == "Hausverwaltung Sonne GmbH"
    assert info["integration"] is None
    assert info["key"]["agentName"] == "onboarding"
    assert info["key"]["binding"] == {"type": "company"}


def test_signup_validates_its_input(api: Api) -> None:
    answer = _signup(api, {"companyName": "", "email": "not-an-email", "agentName": "a"})
    assert answer.status == 400  # type: ignore[attr-defined]
    paths = {e["path"] for e in answer.body["errors"]}  # type: ignore[attr-defined]
    assert {"companyName", "email"} <= paths


def test_tenant_query(tenant: Tenant) -> None:
    data = tenant.get("tenant")["tenant"]
    assert data["id"] == tenant.id and data["trialEndsAt"]


def test_status_reports_table_and_queue(tenant: Tenant) -> None:
    status = tenant.get("status")
    assert status["status"] == ("ok" if all(c["ok"] for c in status["checks"].values()) else "degraded")
    assert "changeStream" in status["checks"]
    assert status["checks"]["table"]["ok"] is True
    assert status["checks"]["uploadQueue"]["ok"] is True


@pytest.mark.slow
def test_openapi_spec_is_valid_and_complete_for_a_full_key(tenant: Tenant) -> None:
    from chalicelib.registry import REGISTRY

    spec = tenant.get("openapi.spec")
    validate(spec)
    operation_ids = {op["operationId"] for path in spec["paths"].values() for op in path.values()}
    assert operation_ids == {op.name for op in REGISTRY.values() if op.surface == "v2"}


def test_openapi_spec_is_valid_for_a_read_only_key(tenant: Tenant) -> None:
    spec = tenant.get("openapi.spec", key=tenant.new_key(["read"]))
    validate(spec)


def test_openapi_offers_multipart_for_the_upload_commands(tenant: Tenant) -> None:
    spec = tenant.get("openapi.spec")
    form = spec["paths"]["/propertymanagement/v2/command/documents.upload"]["post"]["requestBody"]["content"][
        "multipart/form-data"
    ]["schema"]
    resource = form["properties"]["resource"]
    assert (resource["type"], resource["format"]) == ("string", "binary") and "empty_file" in resource["description"]
    assert form["required"] == ["locationId", "resource"]
