"""`make bench`: every benchmark, one after the other, each in a fresh process (moto's
in-process state would otherwise carry one benchmark's tables into the next), each
printing its table."""

from __future__ import annotations

import subprocess
import sys

BENCHMARKS = ("cold_start", "foundation", "catalogue", "webhooks", "uploads", "search")

if __name__ == "__main__":
    failed = 0
    for name in BENCHMARKS:
        failed |= subprocess.call([sys.executable, "-m", f"bench.{name}"])
        print(flush=True)
    raise SystemExit(failed)
