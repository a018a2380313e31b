"""The registry is complete: every operation has schema, docs and scope, and every face
(routes, OpenAPI, docs) derives from it."""

from __future__ import annotations

import pytest
from jsonschema import Draft7Validator

import app as app_module
from chalicelib import docs
from chalicelib.registry import REGISTRY, Operation
from chalicelib.scopes import AREAS
from chalicelib.validation import as_json_schema
from tests.interface import interface_operations

OPERATIONS = sorted(REGISTRY.values(), key=lambda o: o.name)


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda o: o.name)
def test_operation_is_fully_declared(op: Operation) -> None:
    assert op.summary.strip() and op.docs.strip(), "summary and docs"
    assert op.args.get("type") == "object" and "properties" in op.args, "argument schema"
    assert op.result.get("type") == "object", "result schema"
    Draft7Validator.check_schema(as_json_schema(op.args))
    Draft7Validator.check_schema(as_json_schema(op.result))
    wide, _, area = op.scope.partition(":")
    assert op.scope in ("read", "admin", "write") or (wide in ("read", "write") and area in AREAS)
    if op.kind == "query":
        assert wide in ("read", "admin") and not op.destructive, "queries need a read scope (or admin)"
    else:
        assert wide != "read", "commands need a write or admin scope"
    assert callable(op.handler)


@pytest.mark.parametrize("op", OPERATIONS, ids=lambda o: o.name)
def test_docs_carry_arguments_scope_and_errors(op: Operation) -> None:
    text = docs.render(op)
    assert text.startswith(f"# {op.name}")
    for name in op.args.get("properties", {}):
        assert f"`{name}`" in text
    assert "## Errors" in text and "## Access" in text
    if op.authenticated:
        for scope in op.required_scopes:
            assert f"`{scope}`" in text


def test_every_operation_has_its_own_route() -> None:
    routes = app_module.app.routes
    for op in OPERATIONS:
        assert op.path in routes, op.name
        assert set(routes[op.path]) == {"GET", "POST"}  # the wrong one answers 405 problem+json


# Lists the interface shows without paging arguments: paging is optional there (default 1000).
UNPAGED_IN_INTERFACE = {
    "objects",
    "unitgroups.listforobject",
    "accounting.inboundinvoices.list",
    "accounting.object.bankaccountinfos",
}

# Pages of at most this many: `search` ranks its matches and reads each result's item (issue 53).
SMALLER_PAGES = {"search": 100}


def test_list_queries_take_required_limit_and_offset() -> None:
    """A list that also pages by cursor (`after`, audit.list) needs no offset: a follower passes
    the cursor alone."""
    for op in OPERATIONS:
        if op.paged:
            required = {"limit", "offset"} & set(op.args.get("required", []))
            cursor = "after" in op.args["properties"]
            wanted = set() if op.name in UNPAGED_IN_INTERFACE else {"limit"} if cursor else {"limit", "offset"}
            assert required == wanted, op.name
            assert op.args["properties"]["limit"]["maximum"] == SMALLER_PAGES.get(op.name, 1000), op.name


def test_registered_interface_names_have_the_interface_kind() -> None:
    interface = interface_operations()
    for op in OPERATIONS:
        if op.name in interface:
            assert interface[op.name] == op.kind, op.name


def test_foundation_operations_are_registered() -> None:
    foundation = ["contacts", "contacts.show", "contacts.create", "contacts.update", "contacts.merge",
                  "objects", "objects.show", "objects.create", "objects.update",
                  "aliases.upsert", "aliases.list", "aliases.resolve",
                  "info", "tenant", "status", "openapi.spec"]  # fmt: skip
    interface = interface_operations()
    for name in foundation:
        assert name in interface and name in REGISTRY, name


def test_infra_template_matches_the_table_model() -> None:
    from generate import template as render

    assert render.TARGET.read_text() == render.render(), "run: make generate"


def test_the_resource_modules_are_listed() -> None:
    """chalicelib/resources/__init__.py lists its modules (as the console lists its pages): a file
    left out of the list would declare nothing."""
    import pkgutil

    from chalicelib import resources

    files = {module.name for module in pkgutil.iter_modules(resources.__path__)}
    assert files == {*resources.MODULES, *resources.LATE}
