"""The export benchmark's worker process (bench/export.py): the export worker on one export, as
RunExports runs it, importing what the REST bundle's function imports (app.py: the registry and its
resources) and nothing of the bench or the local stack, so its peak memory is the worker's own.
Prints its figures as one JSON line.

    python -m bench.export_worker TENANT EXPORT   (the stack's environment: AWS_ENDPOINT_URL, ...)
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time


def main(tenant_id: str, export_id: str) -> None:
    from chalicelib import resources
    from chalicelib.exports import worker
    from chalicelib.store import exports

    resources.load_all()
    export = exports.get(tenant_id, export_id)
    assert export is not None, export_id
    began = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        worker.run(export)
    seconds = time.perf_counter() - began
    done = exports.get(tenant_id, export_id)
    assert done is not None and done.data["status"] == "done", done
    peak_mb = _peak_kib() / 1024
    print(json.dumps({"seconds": seconds, "peakMb": peak_mb, "lines": int(done.data["lines"])}))


def _peak_kib() -> int:
    """This process's peak resident memory (VmHWM): ru_maxrss would carry over the parent's peak
    from before the exec on Linux (the bench process holds the seeded items then)."""
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
