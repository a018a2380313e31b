"""Cold start budget: `python -X importtime -c "import app"`, median of several fresh
interpreters, and the heaviest imports."""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

from bench.harness import record, table

ROOT = Path(__file__).resolve().parents[1]
BUDGET_MS = 300


def _import_times() -> tuple[float, list[tuple[float, str]]]:
    stderr = subprocess.run([sys.executable, "-X", "importtime", "-c", "import app"], cwd=ROOT, capture_output=True, text=True, check=True).stderr
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
    total = next(ms for ms, name in rows if name.strip() == "app")
    top_level = sorted(((ms, name.strip()) for ms, name in rows if name.startswith("   ") and not name.startswith("    ")), reverse=True)
    return total, top_level[:5]


def main(runs: int = 7) -> str:
    totals = []
    heaviest: list[tuple[float, str]] = []
    for _ in range(runs):
        total, heaviest = _import_times()
        totals.append(total)
    rows = [[f"import app (median of {runs})", f"{statistics.median(totals):.0f} ms", f"< {BUDGET_MS} ms"]]
    record("cold start", "import app, median", f"< {BUDGET_MS} ms", f"{statistics.median(totals):.0f} ms")
    rows += [[f"  of which {name}", f"{ms:.0f} ms", ""] for ms, name in heaviest]
    return "Cold start: import time of the Lambda entry point.\n\n" + table(["what", "measured", "budget"], rows)


if __name__ == "__main__":
    print(main())
