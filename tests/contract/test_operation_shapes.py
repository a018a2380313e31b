"""One shape for every show and every list (issue 52, 3), over the whole registry: a show takes the
name of what it shows as its argument and answers it under that name (`contacts.show?contact=` answers
`{"contact": {...}}`); a list answers `pagination` and its items under their plural; a feed (paged by
cursor) answers its items and `next`. An argument or field kept for a release under an older shape is
marked deprecated in the schema (and so in the OpenAPI document and the reference)."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib import openapi, resources, schemas
from chalicelib.registry import Operation
from chalicelib.scopes import KEY_SCOPES

REGISTRY = resources.load_all()
QUERIES = sorted((op for op in REGISTRY.values() if op.kind == "query"), key=lambda o: o.name)


def _current(schema: dict[str, Any]) -> dict[str, Any]:
    """The properties of a schema that are not deprecated."""
    return {name: sub for name, sub in schema.get("properties", {}).items() if not sub.get("deprecated")}


def _required(schema: dict[str, Any]) -> list[str]:
    current = _current(schema)
    return [name for name in schema.get("required", []) if name in current]


def _show_like(op: Operation) -> bool:
    """A query of one thing: named `.show` or `.detail`, or taking exactly one required argument
    and no paging."""
    props = op.args.get("properties", {})
    unpaged = "limit" not in props and "after" not in props
    return op.name.endswith((".show", ".detail")) or (unpaged and len(_required(op.args)) == 1)


SHOWS = [op for op in QUERIES if _show_like(op)]
LISTS = [op for op in QUERIES if op.paged]
FEEDS = [op for op in QUERIES if not op.paged and "after" in op.args.get("properties", {})]


def test_the_shapes_cover_the_registry() -> None:
    names = {op.name for op in SHOWS}
    assert {"contacts.show", "exports.show", "accounting.bankaccountinfos.detail"} <= names, names
    assert len(LISTS) >= 20 and [op.name for op in FEEDS] == ["changes.list"]


@pytest.mark.parametrize("op", SHOWS, ids=lambda o: o.name)
def test_a_show_takes_the_name_of_what_it_shows_and_answers_it_under_that_name(op: Operation) -> None:
    required = _required(op.args)
    assert len(required) == 1, f"{op.name} takes one required argument, not {required}"
    (name,) = required
    assert name != "id", f"{op.name}: the argument is named for what it shows, not `id`"
    answered = _current(op.result)
    assert list(answered) == [name], f"{op.name} answers {sorted(answered)}, not {{{name!r}: ...}}"
    assert name in op.result.get("required", []) and answered[name].get("type") == "object"


@pytest.mark.parametrize("op", LISTS, ids=lambda o: o.name)
def test_a_list_answers_pagination_and_its_items_under_their_plural(op: Operation) -> None:
    answered = _current(op.result)
    assert answered.get("pagination") == schemas.PAGINATION, f"{op.name} answers no `pagination`"
    arrays = [name for name, sub in answered.items() if sub.get("type") == "array"]
    assert len(arrays) == 1, f"{op.name} answers one array of its items, not {arrays}"
    (plural,) = arrays
    assert plural.endswith("s"), f"{op.name}: `{plural}` is no plural"
    assert {"pagination", plural} <= set(op.result.get("required", []))


@pytest.mark.parametrize("op", FEEDS, ids=lambda o: o.name)
def test_a_feed_answers_its_items_under_their_plural_and_next(op: Operation) -> None:
    """A feed pages by cursor (`after`, then each answer's `next`): it has no offset and no total,
    so no `pagination` (docs/concepts/paging.md)."""
    answered = _current(op.result)
    arrays = [name for name, sub in answered.items() if sub.get("type") == "array"]
    assert len(arrays) == 1 and arrays[0].endswith("s"), arrays
    assert "next" in answered and {"next", arrays[0]} <= set(op.result.get("required", []))


DEPRECATED = [
    (op, where, name, sub)
    for op in REGISTRY.values()
    for where, schema in (("argument", op.args), ("field", op.result))
    for name, sub in schema.get("properties", {}).items()
    if sub.get("deprecated")
]


def test_something_is_deprecated() -> None:
    assert {(op.name, where, name) for op, where, name, _ in DEPRECATED} >= {("exports.show", "argument", "id")}


@pytest.mark.parametrize("entry", DEPRECATED, ids=lambda e: f"{e[0].name}-{e[1]}-{e[2]}")
def test_what_is_deprecated_says_so_and_what_replaces_it(entry: tuple[Operation, str, str, dict[str, Any]]) -> None:
    op, where, name, sub = entry
    assert sub["deprecated"] is True
    assert sub.get("description", "").startswith("Deprecated"), f"{op.name} {where} {name}: its description says so"
    assert "deprecated" in op.docs.lower(), f"{op.name}: its docs say what is deprecated and what replaces it"
    if where == "argument":
        renamed = dict(op.renamed_args)
        assert name in renamed, f"{op.name}: the deprecated argument {name} is no renamed_args entry"
        assert renamed[name] in _current(op.args), f"{op.name}: {name} is the old name of a current argument"
        if op.kind == "query":  # the OpenAPI document marks the query parameter's schema deprecated
            spec = openapi.build(frozenset(KEY_SCOPES))
            parameters = {p["name"]: p for p in spec["paths"][op.path]["get"]["parameters"]}
            assert parameters[name]["schema"].get("deprecated") is True, parameters[name]
