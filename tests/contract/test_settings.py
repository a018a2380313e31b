"""config.py is the only reader of the environment (issue 18): a setting has one name, one
default and one place to look it up. The local stack and the operator CLI may still set up
their process's environment (they are entry points: the values they write are read back
through config.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "app.py", ROOT / "mcp_app.py", *sorted((ROOT / "chalicelib").rglob("*.py"))]
READER = ROOT / "chalicelib" / "config.py"
ENTRY_POINTS = (ROOT / "chalicelib" / "local", ROOT / "chalicelib" / "ops")
WRITES = {"setdefault", "update", "pop"}


def _is_environ(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def reads_of_the_environment(path: Path) -> list[str]:
    """`os.getenv(...)`, `os.environ.get(...)`, `os.environ[...]` read; in an entry point its
    writes (assignment, del, setdefault, update, pop) are allowed."""
    entry_point = path.is_relative_to(ENTRY_POINTS[0]) or path.is_relative_to(ENTRY_POINTS[1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target, method = node.func.value, node.func.attr
            if method == "getenv" and isinstance(target, ast.Name) and target.id == "os":
                found.append(f"{path.name}:{node.lineno} os.getenv")
            elif _is_environ(target) and not (entry_point and method in WRITES):
                found.append(f"{path.name}:{node.lineno} os.environ.{method}")
        elif isinstance(node, ast.Subscript) and _is_environ(node.value) and isinstance(node.ctx, ast.Load):
            found.append(f"{path.name}:{node.lineno} os.environ[...]")
        elif isinstance(node, (ast.For, ast.comprehension)) and _is_environ(node.iter) and not entry_point:
            found.append(f"{path.name}:{getattr(node, 'lineno', 0)} iterates os.environ")
    return found


@pytest.mark.slow
def test_only_config_reads_the_environment() -> None:
    found = [read for path in SOURCES if path != READER for read in reads_of_the_environment(path)]
    assert found == [], "read settings through chalicelib/config.py"


def test_the_check_sees_a_read(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        'import os\nA = os.environ.get("X")\nB = os.getenv("Y")\nC = os.environ["Z"]\nos.environ["W"] = "1"\n'
    )
    assert [read.split(" ", 1)[1] for read in reads_of_the_environment(sample)] == [
        "os.environ.get",
        "os.getenv",
        "os.environ[...]",
    ]
