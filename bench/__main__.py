"""`make bench`: every benchmark, one after the other, each in a fresh process (moto's
in-process state would otherwise carry one benchmark's tables into the next), each printing
its table; then one summary table (operation, figure, target, result) of them all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from bench.harness import table

BENCHMARKS = ("bundles", "cold_start", "foundation", "catalogue", "webhooks", "uploads", "search", "load")

if __name__ == "__main__":
    failed = 0
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", encoding="utf-8") as summary:
        env = {**os.environ, "PM_BENCH_SUMMARY": summary.name}
        chosen = sys.argv[1:] or BENCHMARKS
        for name in chosen:
            failed |= subprocess.call([sys.executable, "-m", f"bench.{name}"], env=env)
            print(flush=True)
        rows = [json.loads(line) for line in summary.read().splitlines()]
    print("Summary (make bench):\n")
    print(table(["operation", "figure", "target", "result"], rows))
    raise SystemExit(failed)
