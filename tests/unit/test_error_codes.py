"""Error codes come from one table, chalicelib/error_codes.py: every code the source raises
and every code an operation's docs name is an entry of it (with the status it is raised
with), and every entry is raised or documented somewhere.

The source is read with `ast`, not imported: a code is raised where it is passed as `code=`
(to an error class, invalid_at, ...) or as the `code` parameter of a function, held as a
`code` attribute of a class, compared with an error's `.code`, or named as `codes.NAME`.
Only table references count; a string literal in any of those places fails."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from chalicelib import docs, error_codes, errors, registry, resources
from chalicelib.error_codes import TABLE, ErrorCode

ROOT = Path(__file__).resolve().parents[2]
TABLE_FILE = ROOT / "chalicelib" / "error_codes.py"
SOURCES = sorted(
    p for p in [*(ROOT / "chalicelib").rglob("*.py"), ROOT / "app.py", ROOT / "mcp_app.py"] if p != TABLE_FILE
)
ALIASES = {"codes", "error_codes"}  # how modules name the table: `from chalicelib import error_codes as codes`
ENTRY_NAMES = {name for name, value in vars(error_codes).items() if isinstance(value, ErrorCode)}
# "409 `stale_version`" in prose or in an Errors line
DOCUMENTED = re.compile(r"\b([1-5]\d\d) `([a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+)`")


def _statuses() -> dict[str, int]:
    """The status a code passed to an error class (or invalid_at) is answered with."""
    found = {
        name: cls.status
        for name, cls in vars(errors).items()
        if isinstance(cls, type) and issubclass(cls, errors.ApiError)
    }
    found["invalid_at"] = errors.Invalid.status
    return found


@dataclass
class Scan:
    problems: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)  # codes referenced through the table


def _entry_name(node: ast.AST) -> str | None:
    """NAME of `codes.NAME` or `codes.NAME.code`, else None."""
    if isinstance(node, ast.Attribute) and node.attr == "code":
        node = node.value
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in ALIASES
        and node.attr.isupper()
    ):
        return node.attr
    return None


def _is_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def code_parameters(trees: list[ast.Module]) -> dict[str, int]:
    """Functions (not methods) with a parameter named `code`: name -> its position."""
    found: dict[str, int] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
                if "code" in names and (not names or names[0] not in ("self", "cls")):
                    found[node.name] = names.index("code")
    return found


def scan(tree: ast.Module, where: str, positions: dict[str, int], statuses: dict[str, int]) -> Scan:
    result = Scan()

    def literal(node: ast.AST, what: str) -> None:
        assert isinstance(node, ast.Constant)
        result.problems.append(
            f"{where}:{node.lineno}: {what} is the literal {node.value!r}; name an entry of chalicelib/error_codes.py"
        )

    for node in ast.walk(tree):
        name = _entry_name(node) if isinstance(node, ast.Attribute) else None
        if name is not None:
            if name in ENTRY_NAMES:
                result.used.add(getattr(error_codes, name).code)
            else:
                result.problems.append(f"{where}:{node.lineno}: codes.{name} is no entry of the table")
        if isinstance(node, ast.ImportFrom) and node.module == "chalicelib.error_codes":
            result.used.update(getattr(error_codes, a.name).code for a in node.names if a.name in ENTRY_NAMES)
        if isinstance(node, ast.Call):
            callee = _callee(node)
            for keyword in node.keywords:
                if keyword.arg != "code":
                    continue
                if _is_literal(keyword.value):
                    literal(keyword.value, f"code= of {callee}()")
                entry = _entry_name(keyword.value)
                if entry in ENTRY_NAMES and callee in statuses:
                    table = getattr(error_codes, entry)
                    if statuses[callee] not in (table.status, *table.also):
                        result.problems.append(
                            f"{where}:{node.lineno}: {callee}() answers {statuses[callee]}, "
                            f"the table gives {entry} {table.status}"
                        )
            position = positions.get(callee or "")
            if position is not None and position < len(node.args) and _is_literal(node.args[position]):
                literal(node.args[position], f"the code argument of {callee}()")
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if not isinstance(statement, ast.Assign | ast.AnnAssign):
                    continue
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                for target in targets:
                    pairs = (
                        list(zip(target.elts, statement.value.elts, strict=False))
                        if isinstance(target, ast.Tuple) and isinstance(statement.value, ast.Tuple)
                        else [(target, statement.value)]
                    )
                    for name_node, value in pairs:
                        if (
                            isinstance(name_node, ast.Name)
                            and name_node.id == "code"
                            and value is not None
                            and _is_literal(value)
                        ):
                            literal(value, f"the code attribute of class {node.name}")
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            compares_code = any(
                isinstance(s, ast.Attribute) and s.attr == "code" and _entry_name(s) is None for s in sides
            )
            if compares_code:
                for side in sides:
                    if _is_literal(side):
                        literal(side, "a comparison with .code")
    return result


def scan_sources() -> Scan:
    trees = {path: ast.parse(path.read_text(encoding="utf-8"), filename=str(path)) for path in SOURCES}
    positions, statuses = code_parameters(list(trees.values())), _statuses()
    total = Scan()
    for path, tree in trees.items():
        found = scan(tree, str(path.relative_to(ROOT)), positions, statuses)
        total.problems += found.problems
        total.used |= found.used
    return total


def documented() -> dict[str, list[tuple[str, int]]]:
    """Each code an operation's docs (or an MCP meta tool's description) name: where, with what status."""
    resources.load_all()
    texts = {op.name: docs.render(op) for op in registry.REGISTRY.values()}
    from chalicelib.mcp import meta

    texts.update({tool.name: tool.description for tool in vars(meta).values() if isinstance(tool, meta.MetaTool)})
    found: dict[str, list[tuple[str, int]]] = {}
    for name, text in texts.items():
        for status, code in DOCUMENTED.findall(text):
            found.setdefault(code, []).append((name, int(status)))
    return found


# --- (a) every code raised is an entry -----------------------------------------------------


@pytest.mark.slow
def test_every_raised_code_is_a_table_entry() -> None:
    assert scan_sources().problems == []


def test_a_literal_code_is_refused() -> None:
    source = """
from chalicelib import error_codes as codes
class Late(Exception):
    code = "late_code"
def refuse(reservation, code, reason): ...
def f(err):
    refuse(None, "positional_code", "why")
    if err.code == "compared_code":
        raise Conflict("x", code="bogus_code")
    raise Conflict("x", code=codes.NO_SUCH_ENTRY)
raise NotFound("x", code=codes.STALE_VERSION)
"""
    tree = ast.parse(source)
    problems = scan(tree, "example.py", code_parameters([tree]), _statuses()).problems
    assert len(problems) == 6, problems
    for needle in (
        "'late_code'",
        "'positional_code'",
        "'compared_code'",
        "'bogus_code'",
        "codes.NO_SUCH_ENTRY",
        "NotFound() answers 404",
    ):
        assert any(needle in p for p in problems), (needle, problems)


# --- (b) every code documented is an entry -------------------------------------------------


def test_every_documented_code_is_a_table_entry() -> None:
    found = documented()
    unknown = {code: where for code, where in found.items() if code not in TABLE}
    assert unknown == {}
    wrong = {
        code: [(name, status) for name, status in where if status not in (TABLE[code].status, *TABLE[code].also)]
        for code, where in found.items()
    }
    assert {code: where for code, where in wrong.items() if where} == {}


def test_operations_document_table_entries() -> None:
    resources.load_all()
    for op in registry.REGISTRY.values():
        for documented_error in op.errors:
            entry = documented_error[0] if isinstance(documented_error, tuple) else documented_error
            assert TABLE.get(entry.code) is entry, (op.name, entry)
            assert entry.status is not None, (op.name, entry.code, "only reported, no HTTP answer")
        section = docs.render(op).split("\n## Errors\n\n", 1)[1]
        for line in section.strip().splitlines():
            assert re.fullmatch(r"- [1-5]\d\d(?: `[a-z_]+`)?: \S.*[.)]", line), (op.name, line)


# --- (c) every entry is used ---------------------------------------------------------------


@pytest.mark.slow
def test_every_entry_is_raised_or_documented() -> None:
    used = scan_sources().used | set(documented())
    assert sorted(set(TABLE) - used) == []


# --- the table itself ---------------------------------------------------------------------


def test_table_entries_are_well_formed() -> None:
    for code, entry in TABLE.items():
        assert re.fullmatch(r"[a-z]+(?:_[a-z]+)*", code), code
        assert entry.status is None or 400 <= entry.status <= 599, code
        assert all(400 <= status <= 599 and status != entry.status for status in entry.also), code
        assert entry.meaning[:1].islower() and entry.meaning.endswith(".") and "\n" not in entry.meaning, code


def test_error_classes_default_to_entries_of_their_status() -> None:
    for cls in [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, errors.ApiError)]:
        assert TABLE[cls.code].status == cls.status, cls.__name__
