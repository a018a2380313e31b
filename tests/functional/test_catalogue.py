"""The whole catalogue over HTTP: every operation of the interface's tables is registered,
documented, and its documented example (with the placeholders filled in from a world of one
entity of each type) answers 200; so does every other registered operation's example."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib import docs
from chalicelib.entities import ref_types
from chalicelib.registry import REGISTRY
from chalicelib.resources import load_all
from tests.interface import interface_operations
from tests.world import OWN_TESTS, World, is_create, is_destructive

load_all()

# Interface operations that arrive with a later issue.
LATER: set[str] = set()


def test_every_interface_operation_is_registered_with_docs() -> None:
    for name, kind in interface_operations().items():
        if name in LATER:
            continue
        op = REGISTRY.get(name)
        assert op is not None, f"{name} is not registered"
        assert op.kind == kind, name
        assert op.example is not None or not op.args.get("properties"), f"{name} has no example"
        assert len(docs.render(op)) > 400, name


@pytest.fixture(scope="module")
def world(api: Any) -> World:
    built = World(api.signup(company="Weltbau GmbH"))
    built.build()
    return built


@pytest.mark.parametrize(
    "name",
    sorted(
        n
        for n, op in REGISTRY.items()
        if op.surface == "v2" and n not in OWN_TESTS and not is_create(op) and not is_destructive(op)
    ),
)
def test_example_answers_200(world: World, name: str) -> None:
    op = REGISTRY[name]
    args = world.fill(op)
    answer = world.tenant.query(name, args) if op.kind == "query" else world.tenant.command(name, args)
    assert answer.status == 200, (name, args, answer.body)


@pytest.mark.parametrize(
    "name",
    sorted(
        n
        for n, op in REGISTRY.items()
        if op.surface == "v2" and is_destructive(op) and n not in OWN_TESTS and not n.endswith(".restore")
    ),
)
def test_destructive_example_answers_200_then_restores(world: World, name: str) -> None:
    """On a fresh entity of the type, so nothing else in the world depends on it."""
    op = REGISTRY[name]
    (arg,) = op.args["required"]
    type_name = ref_types(op.args["properties"][arg]["x-ref"])[0]
    fresh = world.fresh(type_name)
    answer = world.tenant.command(name, {arg: fresh})
    assert answer.status == 200, (name, answer.body)
    restore = next(
        (
            o
            for o in REGISTRY.values()
            if o.name.endswith(".restore")
            and arg in o.args["properties"]
            and o.args["properties"][arg].get("x-ref") == type_name
        ),
        None,
    )
    if restore is not None:
        answer = world.tenant.command(restore.name, {arg: fresh})
        assert answer.status == 200, (restore.name, answer.body)
