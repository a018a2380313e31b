"""Every face runs an operation one way (ARCHITECTURE.md, "The one way through"): through
dispatch.serve, which admits the call before its arguments are read. A face that admitted by hand
(account.admit, throttle.take) or ran an operation past admission (dispatch.run) would fork that
way again; this holds the faces to it by reading their code."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted([*(ROOT / "chalicelib" / "mcp").rglob("*.py"), *(ROOT / "chalicelib" / "console").rglob("*.py")])
FACES = [ROOT / "chalicelib" / "http.py", ROOT / "chalicelib" / "v1.py", *PACKAGES]
BY_HAND = {("account", "admit"), ("account", "admit_anonymous"), ("throttle", "take"), ("throttle", "take_anonymous")}
# REST's `execute` wrappers, which dispatch.serve calls once it has admitted the call.
RUN_PAST_ADMISSION_ALLOWED = {("chalicelib/http.py", "as_json"), ("chalicelib/http.py", "_idempotent")}


def _calls(path: Path) -> list[tuple[str, str, str, int]]:
    """(receiver, attribute, enclosing function, line) of every `name.attr(...)` call in the file."""
    found: list[tuple[str, str, str, int]] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else function
            if (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and isinstance(child.func.value, ast.Name)
            ):
                found.append((child.func.value.id, child.func.attr, function, child.lineno))
            visit(child, inner)

    visit(ast.parse(path.read_text()), "")
    return found


def test_the_faces_admit_no_call_by_hand() -> None:
    by_hand = [
        f"{path.relative_to(ROOT)}:{line}: {receiver}.{attr}()"
        for path in FACES
        for receiver, attr, _, line in _calls(path)
        if (receiver, attr) in BY_HAND
    ]
    assert by_hand == [], "admit through dispatch.serve (or dispatch.admit for what is no operation)"


def test_the_faces_run_operations_only_through_serve() -> None:
    past_admission = [
        f"{path.relative_to(ROOT)}:{line} in {function}: dispatch.run()"
        for path in FACES
        for receiver, attr, function, line in _calls(path)
        if (receiver, attr) == ("dispatch", "run")
        and (str(path.relative_to(ROOT)), function) not in RUN_PAST_ADMISSION_ALLOWED
    ]
    assert past_admission == [], "run operations through dispatch.serve, which admits them first"


def test_the_check_sees_a_face_that_admits_by_hand(tmp_path: Path) -> None:
    """The scan can fail: the console's way before this issue is caught."""
    before = tmp_path / "operations.py"
    before.write_text(
        "def run(request, name, args):\n"
        "    account.admit(request.ctx, name)\n"
        "    return dispatch.run(registry.REGISTRY[name], request.ctx, args)\n"
    )
    calls = {(receiver, attr) for receiver, attr, _, _ in _calls(before)}
    assert ("account", "admit") in calls and ("dispatch", "run") in calls
