"""Cold start budget of each function's entry point (`app` for the REST function and the
workers, `mcp_app` for the MCP function): `python -X importtime -c "import <entry>"`, median
of several fresh interpreters, and the heaviest imports; with bytecode ready (as `make package` ships it)
and without (every module compiled at import, as a bundle without bytecode runs on Lambda's
read-only /var/task). PYTHONPYCACHEPREFIX points each at a bytecode cache of its own: the
working tree's state does not matter."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.harness import SMOKE, record, table

ROOT = Path(__file__).resolve().parents[1]
BUDGET_MS = 300


ENTRIES = {"app": "REST function", "mcp_app": "MCP function"}


def _import_times(env: dict[str, str], entry: str) -> tuple[float, list[tuple[float, str]]]:
    stderr = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {entry}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    rows = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = line.split("|")
        try:
            cumulative = int(parts[1].strip()) / 1000
        except ValueError:
            continue
        rows.append((cumulative, parts[2].rstrip()))
    total = next(ms for ms, name in rows if name.strip() == entry)
    top_level = sorted(
        ((ms, name.strip()) for ms, name in rows if name.startswith("   ") and not name.startswith("    ")),
        reverse=True,
    )
    return total, top_level[:5]


def _median(env: dict[str, str], entry: str, runs: int) -> tuple[float, list[tuple[float, str]]]:
    totals: list[float] = []
    heaviest: list[tuple[float, str]] = []
    for _ in range(runs):
        total, heaviest = _import_times(env, entry)
        totals.append(total)
    return statistics.median(totals), heaviest


def main(runs: int = 7) -> str:
    rows: list[list[str]] = []
    for entry, function in ENTRIES.items():
        with tempfile.TemporaryDirectory() as compiled, tempfile.TemporaryDirectory() as empty:
            shipped = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"} | {
                "PYTHONPYCACHEPREFIX": compiled
            }
            subprocess.run(
                [sys.executable, "-c", f"import {entry}"], cwd=ROOT, env=shipped, check=True
            )  # compiles once, as make package does
            with_bytecode, heaviest = _median(shipped, entry, runs)
            without, _ = _median(
                {**os.environ, "PYTHONPYCACHEPREFIX": empty, "PYTHONDONTWRITEBYTECODE": "1"}, entry, runs
            )
        slower = f"{without / with_bytecode:.1f}×"
        measured = f"{with_bytecode:.0f} ms ({slower} without bytecode)"
        record(f"cold start, {function}", f"import {entry}, median (bytecode shipped)", f"< {BUDGET_MS} ms", measured)
        rows += [
            [
                f"{function}: import {entry}, bytecode shipped (median of {runs})",
                f"{with_bytecode:.0f} ms",
                f"< {BUDGET_MS} ms",
            ]
        ]
        rows += [[f"  of which {name}", f"{ms:.0f} ms", ""] for ms, name in heaviest]
        rows += [[f"{function}: import {entry}, no bytecode (median of {runs})", f"{without:.0f} ms", slower]]
    return "Cold start: import time of each function's entry point.\n\n" + table(["what", "measured", "budget"], rows)


if __name__ == "__main__":
    print(main(1 if SMOKE else 7))
