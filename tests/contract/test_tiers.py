"""The fast tier stays honest (issue 50): `make test` leaves out the long tests (tests/tiers.py),
but never a guard, and never the last test that reaches an operation.

The tree is collected once in a process of its own (`--collect-only`, which runs no test), whose
collection writes every test's marks (tests/conftest.py, PM_TIERS_DUMP): one test, so that xdist's
workers do not collect it twice. The browser and e2e folders are left out: all of their tests are
in the long tier by folder, and none is a guard."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from chalicelib.registry import REGISTRY
from chalicelib.resources import load_all
from tests import tiers

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = "tests/functional/test_catalogue.py"
LIFECYCLES = "tests/functional/test_lifecycles.py"  # every type's lifecycle, its operations found in the registry
FOLDERS = (*tiers.DEFAULT_FOLDERS, "tests/unit")


def test_the_default_run_keeps_every_guard_and_reaches_every_operation(tmp_path: Path) -> None:
    out = tmp_path / "marks.json"
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", *FOLDERS]
    env = {**os.environ, tiers.DUMP: str(out)}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    collected = {nodeid: set(marks) for nodeid, marks in json.loads(out.read_text(encoding="utf-8")).items()}
    every_test_that_mutation_testing_names_exists(collected)
    guards_run_in_the_default_run_but_for_the_short_list(collected)
    every_operation_is_reached_by_a_default_run_test(collected)


def every_test_that_mutation_testing_names_exists(collected: dict[str, set[str]]) -> None:
    missing = [e for e in tiers.guard_entries() if not any(tiers.is_guard(nodeid, [e]) for nodeid in collected)]
    assert missing == [], "tests/mutation.py names tests that are not collected (renamed or gone?)"


def guards_run_in_the_default_run_but_for_the_short_list(collected: dict[str, set[str]]) -> None:
    long_guards = {n for n, marks in collected.items() if "guard" in marks and not tiers.in_default_run(marks)}
    assert long_guards - tiers.SLOW_GUARDS == set(), "guard tests outside `make test` (tests/tiers.py SLOW_GUARDS)"
    assert tiers.SLOW_GUARDS - long_guards == set(), "SLOW_GUARDS names tests that are not guards in the long tier"


def every_operation_is_reached_by_a_default_run_test(collected: dict[str, set[str]]) -> None:
    """Reached: the catalogue test runs its example (its parameter, or as a create of the world it
    builds), the lifecycle sweep runs it for a type, or its name is written, quoted, in a test file
    that has a default-run test."""
    load_all()
    default = [nodeid for nodeid, marks in collected.items() if tiers.in_default_run(marks)]
    by_catalogue = {n.split("[", 1)[1][:-1] for n in default if n.startswith(CATALOGUE + "::") and "[" in n}
    if any(nodeid.startswith(CATALOGUE + "::test_example_answers_200") for nodeid in default):
        from tests.world import OWN_TESTS, is_create

        by_catalogue |= {name for name, op in REGISTRY.items() if is_create(op) and name not in OWN_TESTS}
    sweep = [n.split("[", 1)[1][:-1] for n in default if n.startswith(LIFECYCLES + "::") and "[" in n]
    if sweep:
        from tests.functional.test_lifecycles import lifecycle_of

        by_catalogue |= {op.name for name in sweep for op in lifecycle_of(name).values() if op is not None}
    files = {nodeid.split("::", 1)[0] for nodeid in default}
    text = "\n".join((ROOT / name).read_text(encoding="utf-8") for name in sorted(files))
    unreached = [
        name
        for name in sorted(REGISTRY)
        if name not in by_catalogue and f'"{name}"' not in text and f"'{name}'" not in text
    ]
    assert unreached == [], "operations no test of `make test` reaches"


def test_the_long_marks_are_the_makefiles() -> None:
    """The Makefile asks tests/tiers.py for its marker expressions instead of writing them again."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "-m tests.tiers default" in makefile and "-m tests.tiers long" in makefile
    assert tiers.DEFAULT_RUN == "not (" + " or ".join(tiers.LONG) + ")"
    assert "-m tests.tiers folders" in makefile
    # a new folder of tests is in make test's folders or long by folder, never in neither
    folders = {f"tests/{p.name}" for p in (ROOT / "tests").iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    placed = {*tiers.DEFAULT_FOLDERS, *(f.rstrip("/") for f in tiers.BY_FOLDER.values()), "tests/unit"}
    assert folders - {"tests/lambda_check"} == placed
