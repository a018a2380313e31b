"""The MCP catalogue derives from the registry: every domain tool has a description, valid
input and output schemas and consistent annotations; the meta-tools are eight; the search
vectors shipped with the code cover every text the index embeds."""

from __future__ import annotations

import pytest
from jsonschema import Draft7Validator

from chalicelib import registry, resources
from chalicelib.context import CallContext
from chalicelib.mcp import catalogue, meta
from chalicelib.registry import Operation
from chalicelib.scopes import SCOPE_DESTRUCTIVE
from chalicelib.search import embedding
from generate import vectors as build

resources.load_all()
TOOLS = registry.domain_operations()
DESTRUCTIVE_WORDS = ("delete", "merge", "revoke", "revert", "disable")


@pytest.mark.parametrize("op", TOOLS, ids=lambda o: o.name)
def test_every_domain_tool_is_fully_described(op: Operation) -> None:
    tool = catalogue.tool(op)
    assert tool["name"] == op.name and tool["description"].startswith(op.summary)
    Draft7Validator.check_schema(tool["inputSchema"])
    Draft7Validator.check_schema(tool["outputSchema"])
    assert "x-ref" not in str(tool["inputSchema"])
    # labels and enum values' words are for people and the docs; a model reads `description`
    assert not any(
        f"'x-{mark}" in str(tool[side]) for mark in ("label", "enum-") for side in ("inputSchema", "outputSchema")
    )
    hints = tool["annotations"]
    assert hints["readOnlyHint"] is (op.kind == "query")
    assert hints["destructiveHint"] is op.destructive
    if any(word in op.name.split(".")[-1] for word in DESTRUCTIVE_WORDS):
        assert op.destructive and SCOPE_DESTRUCTIVE in tool["requiredScopes"], (
            "deletes, merges, revokes, reverts are destructive"
        )


def test_domain_tools_are_the_v2_operations_and_meta_tools_are_eight() -> None:
    assert len(TOOLS) > 140 and all(op.surface == "v2" for op in TOOLS)
    assert len(meta.META_TOOLS) == 8
    assert not set(meta.META_TOOLS) & {op.name for op in TOOLS}
    assert meta.META_TOOLS["meta.tool.execute"].definition()["annotations"]["destructiveHint"] is False
    for tool in meta.META_TOOLS.values():
        Draft7Validator.check_schema(tool.input_schema)


def test_a_key_sees_the_tools_of_its_scopes() -> None:
    def key(*scopes: str) -> CallContext:
        return CallContext(tenant_id="t", key_id="k", agent_name="a", scopes=frozenset(scopes))

    reader = {op.name for op in catalogue.visible(key("read"))}
    writer = {op.name for op in catalogue.visible(key("read", "write:contacts"))}
    everything = {op.name for op in catalogue.visible(key("read", "write", "destructive", "admin"))}
    assert reader and all(catalogue.find(name).kind == "query" for name in reader)  # type: ignore[union-attr]
    assert "contacts.create" in writer and "contacts.merge" not in writer and "units.create" not in writer
    assert everything == {op.name for op in TOOLS}


def test_search_vectors_are_shipped() -> None:
    """Fails when a summary or gloss changed without `make generate`."""
    assert embedding.missing(build.texts_to_embed()) == []
