"""`make bench`: every benchmark, one after the other, each in a fresh process (moto's
in-process state would otherwise carry one benchmark's tables into the next), each printing
its table; then one summary table (operation, figure, target, result) of them all.

`python -m bench --smoke [names]` (`make bench-smoke`): the same at a tiny size (PM_BENCH_SMOKE=1;
each benchmark picks its own sizes), asserting only that each exits 0 (a benchmark exits
non-zero on a failed item: an upload not registered, a webhook event not delivered, a load
error) and prints a table; ends with a table of each benchmark's outcome and seconds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from bench.harness import table

BENCHMARKS = (
    "bundles",
    "cold_start",
    "foundation",
    "catalogue",
    "sync",
    "bulk",
    "export",
    "sandbox",
    "webhooks",
    "uploads",
    "search",
    "entity_search",
    "load",
)


def smoke(chosen: list[str] | tuple[str, ...]) -> int:
    """Each benchmark at its tiny size; 1 when any exits non-zero or prints no table."""
    env = {**os.environ, "PM_BENCH_SMOKE": "1"}
    outcomes, failed = [], 0
    for name in chosen:
        started = time.monotonic()
        run = subprocess.run([sys.executable, "-m", f"bench.{name}"], env=env, stdout=subprocess.PIPE, text=True)
        seconds = time.monotonic() - started
        print(run.stdout, flush=True)
        problem = f"exit {run.returncode}" if run.returncode else "" if "|---|" in run.stdout else "no table"
        failed |= bool(problem)
        outcomes.append([name, problem or "ok", f"{seconds:.1f}"])
    print("Smoke run (make bench-smoke):\n")
    print(table(["benchmark", "outcome", "seconds"], outcomes))
    return failed


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--smoke"]:
        raise SystemExit(smoke(args[1:] or BENCHMARKS))
    failed = 0
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", encoding="utf-8") as summary:
        env = {**os.environ, "PM_BENCH_SUMMARY": summary.name}
        chosen = args or BENCHMARKS
        for name in chosen:
            failed |= subprocess.call([sys.executable, "-m", f"bench.{name}"], env=env)
            print(flush=True)
        rows = [json.loads(line) for line in summary.read().splitlines()]
    print("Summary (make bench):\n")
    print(table(["operation", "figure", "target", "result"], rows))
    raise SystemExit(failed)
