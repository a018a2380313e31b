"""The MCP server through the SDK's own client over HTTP, against the running app: both
protocol versions, the eight meta-tools, keys and scopes, errors for agents, the audit trail."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from tests.client import Api, Tenant
from tests.mcp_client import MCP_PATH, MODES, McpSession, error_text

META_TOOLS = {
    "meta.tools.search",
    "meta.tool.describe",
    "meta.tool.execute",
    "meta.docs.search",
    "meta.pipeline.execute",
    "meta.thesaurus.search",
    "meta.thesaurus.glossary",
    "meta.thesaurus.domains",
}
OBJECT = {"object": {"name": "WEG Lindenweg 3", "type": "weg"}}


def _jsonrpc(api: Api, body: Any, key: str | None = None, method: str = "POST", **headers: str) -> Any:
    hdrs = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers}
    if key:
        hdrs["Authorization"] = f"Bearer {key}"
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return api.request(method, MCP_PATH, body=raw if method == "POST" else None, headers=hdrs)


@pytest.mark.parametrize("mode", MODES)
def test_initialize_list_and_call_in_both_protocol_versions(api: Api, tenant: Tenant, mode: str) -> None:
    with McpSession(api.base, tenant.key, mode) as mcp:
        assert mcp.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        tools = mcp.list_tools()
        assert {t.name for t in tools} == META_TOOLS and len(tools) == 8
        created = mcp.ok("meta.tool.execute", {"name": "objects.create", "arguments": OBJECT})
        assert created["object"]["name"] == "WEG Lindenweg 3"
    assert tenant.get("objects.show", {"object": created["object"]["id"]})["object"]["type"] == "weg"


def test_meta_tools_carry_schemas_descriptions_and_annotations(api: Api, tenant: Tenant) -> None:
    with McpSession(api.base, tenant.key) as mcp:
        tools = {t.name: t for t in mcp.list_tools()}
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and len(tool.description or "") > 80
        assert tool.annotations is not None and tool.annotations.destructive_hint is False
    assert tools["meta.tool.execute"].annotations.read_only_hint is False  # type: ignore[union-attr]
    assert tools["meta.pipeline.execute"].annotations.read_only_hint is False  # type: ignore[union-attr]
    for name in META_TOOLS - {"meta.tool.execute", "meta.pipeline.execute"}:
        assert tools[name].annotations.read_only_hint is True, name  # type: ignore[union-attr]
    assert tools["meta.tool.describe"].input_schema["required"] == ["toolNames"]
    assert set(tools["meta.tools.search"].input_schema["properties"]) == {
        "query",
        "language",
        "limit",
        "kind",
        "offset",
    }
    listed = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools.values()]
    assert len(json.dumps(listed, separators=(",", ":")).encode()) < 8 * 1024, "tools/list stays under 8 KB"


def test_no_key_is_401_and_get_is_405(api: Api, tenant: Tenant) -> None:
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    missing = _jsonrpc(api, initialize)
    assert missing.status == 401 and missing.body["code"] == "missing_key"
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert _jsonrpc(api, initialize, key="pm_test_notarealkey").status == 401
    assert _jsonrpc(api, None, key=tenant.key, method="GET").status == 405


def test_the_sdk_client_is_refused_without_a_valid_key(api: Api) -> None:
    session = McpSession(api.base, "pm_test_" + "x" * 40)
    with pytest.raises(ExceptionGroup), session:  # the SDK's task group reports the refused handshake
        pass
    assert session.statuses == [401]


def test_protocol_misuse_is_a_jsonrpc_error(api: Api, tenant: Tenant) -> None:
    broken = _jsonrpc(api, b"{not json", key=tenant.key)
    assert broken.status == 400 and broken.body["error"]["code"] == -32700
    with McpSession(api.base, tenant.key) as mcp, pytest.raises(MCPError) as unknown:
        mcp.call("contacts.create", {})
    assert "Unknown tool 'contacts.create'" in str(unknown.value) and "meta.tool.execute" in str(unknown.value)


def test_search_finds_domain_tools_in_english_and_german_and_never_meta_tools(api: Api, tenant: Tenant) -> None:
    with McpSession(api.base, tenant.key) as mcp:
        english = mcp.ok("meta.tools.search", {"query": "generate a SEPA mandate reference", "limit": 5})
        german = mcp.ok("meta.tools.search", {"query": "Telefonnotiz erfassen", "limit": 5})
        browse = mcp.ok("meta.tools.search", {"limit": 50})
        commands = mcp.ok("meta.tools.search", {"query": "contact", "kind": "commands", "limit": 50})
    assert (
        english["mode"] == "hybrid" and english["tools"][0]["name"] == "accounting.directdebitmandate.generatereference"
    )
    assert german["language"] == "de" and german["mode"] == "embedding"
    assert "callrecords.create" in [t["name"] for t in german["tools"][:3]]
    first = english["tools"][0]
    assert first["inputSchema"]["required"] == ["directDebitMandate"] and first["annotations"]["readOnlyHint"] is False
    assert browse["mode"] == "browse" and browse["total"] > 140
    assert [t["name"] for t in browse["tools"]] == sorted(t["name"] for t in browse["tools"])
    assert all(not t["name"].startswith("meta.") for t in browse["tools"] + english["tools"] + german["tools"])
    assert {t["kind"] for t in commands["tools"]} == {"command"}


def test_search_says_when_no_tool_fits_the_request(api: Api, tenant: Tenant) -> None:
    """Issue 53: "play some music" has no tool; the answer says so (with the best fit) rather than
    ranking unrelated tools as if they fitted. A request a tool serves is not flagged; browsing has no fit."""
    with McpSession(api.base, tenant.key) as mcp:
        music = mcp.ok("meta.tools.search", {"query": "play some music", "limit": 3})
        musik = mcp.ok("meta.tools.search", {"query": "Musik abspielen", "limit": 3})
        served = mcp.ok("meta.tools.search", {"query": "Mieter anlegen", "limit": 3})
        browse = mcp.ok("meta.tools.search", {"limit": 3})
    assert music["nothingFits"] is True and musik["nothingFits"] is True, (music["bestFit"], musik["bestFit"])
    assert served["nothingFits"] is False and served["bestFit"] > musik["bestFit"]
    assert len(music["tools"]) == 3  # still ranked: the agent may look, told that none fits
    assert "nothingFits" not in browse and "bestFit" not in browse


@pytest.mark.slow
def test_search_pages_through_the_catalogue(api: Api, tenant: Tenant) -> None:
    with McpSession(api.base, tenant.key) as mcp:
        pages = [mcp.ok("meta.tools.search", {"limit": 40, "offset": offset}) for offset in (0, 40, 80, 120, 160)]
    names = [t["name"] for page in pages for t in page["tools"]]
    assert len(names) == len(set(names)) == pages[0]["total"]


def test_describe_gives_full_definitions(api: Api, tenant: Tenant) -> None:
    with McpSession(api.base, tenant.key) as mcp:
        described = mcp.ok("meta.tool.describe", {"toolNames": ["contacts.merge", "objects", "no.such.tool"]})
        nothing = mcp.call("meta.tool.describe", {"toolNames": ["no.such.tool"]})
    merge, objects = described["tools"]
    assert merge["annotations"]["destructiveHint"] is True and merge["requiredScopes"] == [
        "write:contacts",
        "destructive",
    ]
    assert objects["annotations"]["readOnlyHint"] is True and "objects" in objects["outputSchema"]["properties"]
    assert described["unavailable"][0]["name"] == "no.such.tool"
    assert "no such tool" in error_text(nothing)


def test_execute_with_a_transform_and_bad_expressions(api: Api, tenant: Tenant) -> None:
    tenant.contact(lastName="Alpha")
    tenant.contact(lastName="Beta")
    with McpSession(api.base, tenant.key) as mcp:
        names = mcp.ok(
            "meta.tool.execute",
            {"name": "contacts", "arguments": {"limit": 10, "offset": 0}, "_transform": "contacts[].lastName"},
        )
        total = mcp.ok(
            "meta.tool.execute",
            {"name": "contacts", "arguments": {"limit": 1, "offset": 0}, "_transform": "pagination"},
        )
        broken = mcp.execute("contacts", {"limit": 1, "offset": 0}, _transform="contacts[?lastName ==")
        wrong_type = mcp.execute("contacts", {"limit": 1, "offset": 0}, _transform="sum(contacts)")
    assert names == {"result": ["Alpha", "Beta"]}
    assert total == {"total": 2, "limit": 1, "offset": 0, "nextOffset": 1}
    assert "not a valid JMESPath expression" in error_text(broken)
    assert "failed on this result" in error_text(wrong_type)


def test_validation_and_business_errors_tell_the_model_what_to_change(api: Api, tenant: Tenant) -> None:
    with McpSession(api.base, tenant.key) as mcp:
        missing = mcp.execute("units.create", {"unit": {"number": "1.01"}})
        unknown_ref = mcp.execute("contacts.show", {"contact": "nobody-by-this-alias"})
        bad_meta = mcp.call("meta.tools.search", {"limit": 500})
        no_tool = mcp.execute("contacts.frobnicate")
    text = error_text(missing)
    assert "400 validation_failed" in text and "unit.objectId" in text and "unit.type" in text
    assert missing.structured_content["error"]["errors"]  # type: ignore[index]
    assert "404" in error_text(unknown_ref) and "contact" in error_text(unknown_ref)
    assert "limit" in error_text(bad_meta) and "500" in error_text(bad_meta)
    assert "meta.tools.search" in error_text(no_tool)


def test_a_read_only_key_sees_and_runs_only_queries(api: Api, tenant: Tenant) -> None:
    reader = tenant.new_key(["read"], agent="reporting-bot")
    with McpSession(api.base, reader) as mcp:
        found = mcp.ok("meta.tools.search", {"query": "create a contact", "limit": 50})
        refused = mcp.execute("objects.create", OBJECT)
        piped = mcp.call(
            "meta.pipeline.execute",
            {
                "steps": [
                    {"tool": "objects", "arguments": {}, "as": "all"},
                    {"tool": "objects.create", "arguments": OBJECT},
                ]
            },
        )
        described = mcp.ok("meta.tool.describe", {"toolNames": ["objects", "objects.create"]})
    assert {t["kind"] for t in found["tools"]} == {"query"}
    assert "403 missing_scope" in error_text(refused)
    assert "Step 2 of the pipeline (objects.create) failed" in error_text(piped)
    assert piped.structured_content["error"]["failedStep"] == {"index": 1, "tool": "objects.create", "status": 403}  # type: ignore[index]
    assert [t["name"] for t in described["tools"]] == ["objects"] and "scopes" in described["unavailable"][0]["reason"]
    assert tenant.get("objects")["pagination"]["total"] == 0


def test_pipeline_feeds_results_forward(api: Api, tenant: Tenant) -> None:
    with McpSession(api.base, tenant.key) as mcp:
        result = mcp.ok(
            "meta.pipeline.execute",
            {
                "steps": [
                    {"tool": "objects.create", "arguments": OBJECT, "as": "house", "transform": "object"},
                    {
                        "tool": "units.create",
                        "arguments": {
                            "unit": {"objectId": {"$expr": "house.id"}, "number": "1.01", "type": "apartment"}
                        },
                        "as": "unit",
                    },
                    {
                        "tool": "units",
                        "arguments": {"objectId": {"$expr": "house.id"}, "limit": 10, "offset": 0},
                        "transform": "units[].number",
                    },
                ]
            },
        )
    assert result["last"] == ["1.01"]
    assert result["results"]["unit"]["unit"]["objectId"] == result["results"]["house"]["id"]
    assert [s["tool"] for s in result["steps"]] == ["objects.create", "units.create", "units"]


def test_a_failing_step_stops_the_pipeline_and_says_which(api: Api, tenant: Tenant) -> None:
    with McpSession(api.base, tenant.key) as mcp:
        failed = mcp.call(
            "meta.pipeline.execute",
            {
                "steps": [
                    {"tool": "objects.create", "arguments": OBJECT, "as": "house"},
                    {
                        "tool": "units.create",
                        "arguments": {"unit": {"objectId": {"$expr": "house.object.id"}, "number": "1"}},
                    },
                    {"tool": "objects.create", "arguments": {"object": {"name": "never", "type": "weg"}}},
                ]
            },
        )
        bad_reference = mcp.call(
            "meta.pipeline.execute", {"steps": [{"tool": "objects", "arguments": {"limit": {"$expr": "nothing[?"}}}]}
        )
        too_many = mcp.call("meta.pipeline.execute", {"steps": [{"tool": "objects"}] * 26})
    text = error_text(failed)
    assert "Step 2 of the pipeline (units.create) failed" in text and "steps[1].arguments.unit.type" in text
    assert failed.structured_content["error"]["completedSteps"] == [  # type: ignore[index]
        {"index": 0, "tool": "objects.create", "as": "house"}
    ]
    assert [o["name"] for o in tenant.get("objects")["objects"]] == ["WEG Lindenweg 3"]
    assert "400 invalid_transform" in error_text(bad_reference) and "steps[0].arguments.limit" in error_text(
        bad_reference
    )
    assert "steps" in error_text(too_many) and "25" in error_text(too_many)


def test_changes_through_mcp_are_audited_under_the_key(api: Api, tenant: Tenant, stack: Any) -> None:
    agent_key = tenant.new_key(["read", "write:objects"], agent="mcp-assistant")
    with McpSession(api.base, agent_key, "2026-07-28") as mcp:
        created = mcp.ok("meta.tool.execute", {"name": "objects.create", "arguments": OBJECT})
    assert stack.poller.wait_idle(15)
    records = tenant.get("audit.list", {"entityId": created["object"]["id"], "limit": 10, "offset": 0})["auditRecords"]
    assert len(records) == 1
    record = records[0]
    assert record["operation"] == "objects.create" and record["channel"] == "mcp"
    assert record["actor"]["agentName"] == "mcp-assistant"
    assert (
        tenant.get("audit.list", {"agentName": "mcp-assistant", "limit": 10, "offset": 0})["pagination"]["total"] == 1
    )


def test_docs_search_and_the_thesaurus(api: Api, tenant: Tenant) -> None:
    with McpSession(api.base, tenant.key) as mcp:
        docs = mcp.ok("meta.docs.search", {"query": "SEPA mandate reference", "limit": 3})
        nothing = mcp.ok("meta.docs.search", {"query": "zzzqqq"})
        concepts = mcp.ok("meta.thesaurus.search", {"query": "Nebenkosten", "projection": "en", "limit": 3})
        domains = mcp.ok("meta.thesaurus.domains")
        glossary = mcp.ok("meta.thesaurus.glossary", {"domains": ["banking"], "projection": "en"})
        unknown = mcp.call("meta.thesaurus.glossary", {"domains": ["astrology"]})
    assert docs["docs"][0]["name"].startswith("accounting.directdebitmandate") and docs["docs"][0][
        "markdown"
    ].startswith("# ")
    assert nothing == {"docs": [], "total": 0, "limit": 5, "offset": 0}
    assert concepts["concepts"][0]["en"]["preferred"] and "de" not in concepts["concepts"][0]
    assert len(domains["domains"]) >= 8 and all(d["descriptionEn"] and d["concepts"] > 0 for d in domains["domains"])
    assert glossary["domains"][0]["domain"] == "banking" and len(glossary["domains"][0]["entries"]) > 10
    assert "astrology" in error_text(unknown)


def test_tenants_do_not_see_each_other_through_mcp(api: Api, tenant: Tenant, other_tenant: Tenant) -> None:
    theirs = other_tenant.ok("objects.create", OBJECT)["object"]
    with McpSession(api.base, tenant.key) as mcp:
        missing = mcp.execute("objects.show", {"object": theirs["id"]})
        mine = mcp.ok("meta.tool.execute", {"name": "objects", "arguments": {}, "_transform": "pagination.total"})
    assert "404" in error_text(missing)
    assert mine == {"result": 0}
