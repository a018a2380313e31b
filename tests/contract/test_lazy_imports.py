"""A function-level (lazy) import says why it is one (ARCHITECTURE.md): `# cold start: ...` when it
keeps a heavy or rarely needed module out of importing app.py or mcp_app.py (the MCP SDK, the
search models, schwifty, jsonschema, boto3, ...), `# cycle: ...` when importing at the top would
close an import cycle (the known ones are the ignore_imports of pyproject.toml). Every other import
belongs at the top of its module. Imports under `if TYPE_CHECKING:` are not lazy and need no mark."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [*sorted(ROOT.glob("chalicelib/**/*.py")), ROOT / "app.py", ROOT / "mcp_app.py"]
MARK = re.compile(r"#\s*(cold start\b|cycle:)")


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def lazy_imports(source: str) -> list[ast.Import | ast.ImportFrom]:
    """The imports inside a function or method (at any depth), leaving out `if TYPE_CHECKING:` blocks."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:  # the `else:` of a TYPE_CHECKING block runs
                    visit_one(other, in_function)
                continue
            visit_one(child, in_function)

    def visit_one(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom) and in_function:
            found.append(node)
        visit(node, in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))

    visit(ast.parse(source), False)
    return found


def unmarked(source: str) -> list[tuple[int, str]]:
    """(line, text) of each lazy import whose line (the first, for one spanning lines) has no mark."""
    lines = source.splitlines()
    return [
        (node.lineno, lines[node.lineno - 1].strip())
        for node in lazy_imports(source)
        if not MARK.search(lines[node.lineno - 1])
    ]


@pytest.mark.slow
def test_every_lazy_import_says_why() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}" for path in SOURCES for line, text in unmarked(path.read_text())
    ]
    where = "\n".join(found)
    assert not found, (
        f"import these at the top of the module, or mark why not (`# cold start: ...` or `# cycle: ...`):\n{where}"
    )


def test_the_scan_finds_what_it_should() -> None:
    source = """
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from decimal import Decimal


def plain():
    import os
    if True:
        from collections import (  # cold start: marked on the first line
            OrderedDict,
        )
    from chalicelib import registry  # cycle: an example


class Thing:
    async def method(self):
        def inner():
            import re
        if TYPE_CHECKING:
            import sys
"""
    assert unmarked(source) == [(10, "import os"), (21, "import re")]
    assert len(lazy_imports(source)) == 4
    assert any(path.name == "route.py" and lazy_imports(path.read_text()) for path in SOURCES), (
        "the scan no longer sees the MCP route's import"
    )
