"""The operations' argument types (chalicelib/arg_types.py) are generated from the registry's
schemas and committed: they must match the registry, and every handler written for one
operation must read its arguments through its operation's type (so mypy checks the reads)."""

from __future__ import annotations

import inspect

import chalicelib.resources  # noqa: F401 - registers every operation
from chalicelib.registry import REGISTRY
from generate import arg_types


def test_the_committed_types_match_the_registry() -> None:
    assert arg_types.TARGET.read_text() == arg_types.render(), "run: make generate"


def test_every_operation_has_its_type() -> None:
    source = arg_types.TARGET.read_text()
    for name in REGISTRY:
        wanted = arg_types.class_name(name)
        assert f"class {wanted}(TypedDict)" in source or f"{wanted} = TypedDict(" in source, name


def test_each_handler_of_its_own_reads_its_operations_type() -> None:
    """A handler made by a declare_* helper (a closure) serves many operations and reads only the
    argument names it was given; a handler of one operation annotates its arguments' type."""
    for op in REGISTRY.values():
        if "<locals>" in op.handler.__qualname__:
            continue
        annotation = str(inspect.signature(op.handler).parameters["args"].annotation)
        assert annotation == arg_types.class_name(op.name), (op.name, annotation)
