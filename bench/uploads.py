"""Bulk upload benchmark on the local stack: 10,000 small documents through the bulk path
(documents.uploads.create in batches of 1,000, browser-style POSTs to moto's S3, S3 -> SQS,
registration by the upload worker), reporting documents per hour end to end, the worker's
peak memory and where its time goes.

The worker runs in a process of its own, as a Lambda would; moto's server, the API and the
change stream (audit records for every document.created) share the benchmark's process, and
the uploading clients run there too: everything competes for this machine's cores.

    .venv/bin/python -m bench.uploads [documents]

The number of documents: the argument, else PM_BENCH_DOCUMENTS (so `python -m bench uploads`
and `make bench-smoke` can set it), else 10,000.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.harness import SMOKE, Service, record, table
from bench.upload_worker import BATCH_STAGE
from tests.client import Api, Tenant
from tests.uploads import multipart, pdf

DOCUMENTS = 10_000
BATCH = 1000
UPLOADERS = 8
TARGET_PER_HOUR = 100_000


def main(documents: int = DOCUMENTS) -> str:
    own_cpu = _cpu_seconds()
    service = Service(moto_process=True)
    service.stack.start_stream(uploads=False)
    worker = subprocess.Popen(
        [sys.executable, "-m", "bench.upload_worker"], env=dict(os.environ), stdout=subprocess.PIPE, text=True
    )
    assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
    try:
        # A batch of 1,000 reservations is 1,000 writes to moto: on a slow machine over 30 s.
        tenant = Api(f"http://127.0.0.1:{service.port}", timeout=300).signup(company="Massenupload GmbH")
        locations = _locations(tenant)
        result = _run(tenant, locations, documents)
        result["cpu"] = {"moto": _cpu_seconds(service.stack._process.pid), "service": _cpu_seconds() - own_cpu}
    finally:
        worker.terminate()
        out, _ = worker.communicate(timeout=60)
        service.stop()
    # its last line of stats (the worker's logger writes to stdout too: a failed registration's lines)
    stats = next(json.loads(line) for line in reversed(out.splitlines()) if line.startswith('{"handled"'))
    report = _report(result, stats, documents)
    counts = result["counts"]
    if counts.get("failed") or counts.get("registered") != documents:
        raise SystemExit(
            f"{report}\n\nincomplete: {counts['registered']} of {documents} registered, {counts['failed']} failed"
        )
    return report


def _cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU seconds of a process (this one by default), from /proc."""
    fields = Path(f"/proc/{pid or 'self'}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _locations(tenant: Tenant) -> list[str]:
    obj = tenant.ok("objects.create", {"object": {"name": "Großsiedlung Nord", "type": "rental"}})["object"]
    units = [
        tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": f"{n:03d}", "type": "apartment"}})["unit"][
            "id"
        ]
        for n in range(9)
    ]
    return [obj["id"], *units]


def _post(upload: dict[str, Any], content: bytes) -> int:
    body, content_type = multipart(
        list(upload["fields"].items()), "file", upload["fileName"], content, upload["fields"]["Content-Type"]
    )
    request = urllib.request.Request(upload["url"], data=body, method="POST", headers={"Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=60) as resp:
        return int(resp.status)


def _run(tenant: Tenant, locations: list[str], documents: int) -> dict[str, Any]:
    started = time.perf_counter()
    presign_ms, batch_ids = [], []
    with ThreadPoolExecutor(UPLOADERS) as pool:
        for first in range(0, documents, BATCH):
            files = [pdf(f"beleg-{n}") for n in range(first, min(first + BATCH, documents))]
            requests = [
                {
                    "locationId": locations[n % len(locations)],
                    "fileName": f"Beleg_{first + n:05d}.pdf",
                    "contentType": "application/pdf",
                    "size": len(content),
                    "document": {"title": f"Beleg {first + n}", "documentType": "invoice", "category": "finance"},
                }
                for n, content in enumerate(files)
            ]
            t0 = time.perf_counter()
            created = tenant.ok("documents.uploads.create", {"uploads": requests})
            presign_ms.append((time.perf_counter() - t0) * 1000)
            batch_ids.append(created["batch"]["id"])
            statuses = list(pool.map(_post, created["uploads"], files))
            assert all(status in (200, 204) for status in statuses), set(statuses)
    uploaded = time.perf_counter()
    counts = _wait_registered(tenant, batch_ids, timeout=60 + documents * 0.2)
    done = time.perf_counter()
    return {"presign_ms": presign_ms, "uploaded_s": uploaded - started, "total_s": done - started, "counts": counts}


def _wait_registered(tenant: Tenant, batch_ids: list[str], timeout: float) -> dict[str, int]:
    """Totals over the batches once every file has been handled: waits on the last batch
    (the queue is worked in order, roughly), then adds up all. A progress query reads every
    reservation of its batch, so it is asked every two seconds, not more."""
    deadline = time.monotonic() + timeout
    totals: dict[str, int] = {}
    for batch_id in reversed(batch_ids):
        while True:
            counts = tenant.get("documents.uploads.progress", {"batch": batch_id, "limit": 1, "offset": 0})["batch"][
                "counts"
            ]
            if counts["uploaded"] >= counts["requested"] or time.monotonic() > deadline:
                break
            time.sleep(2.0)
        for name, value in counts.items():
            totals[name] = totals.get(name, 0) + value
    return totals


def _report(result: dict[str, Any], stats: dict[str, Any], documents: int) -> str:
    per_hour = documents / result["total_s"] * 3600
    presign = result["presign_ms"]
    record(
        "bulk upload, presigned",
        "documents registered per hour",
        f"≥ {TARGET_PER_HOUR:,}",
        f"{per_hour:,.0f} ({result['counts']['failed']} failed)",
    )
    rows = [
        [
            "documents uploaded and registered",
            f"{result['counts']['registered']:,} of {documents:,} ({result['counts']['failed']} failed)",
        ],
        ["end to end (first batch requested → last document registered)", f"{result['total_s']:.1f} s"],
        [
            "documents per hour, end to end",
            f"{per_hour:,.0f} (target ≥ {TARGET_PER_HOUR:,}; {per_hour / 10_000:.0f}× the interface's 10,000)",
        ],
        ["upload phase (presign + POST of every file, 8 clients)", f"{result['uploaded_s']:.1f} s"],
        ["documents.uploads.create, 1,000 uploads", f"median {sorted(presign)[len(presign) // 2]:.0f} ms"],
        ["worker peak RSS", f"{stats['peakRssMiB']} MiB"],
        [
            "CPU seconds: moto (S3, SQS, DynamoDB) / worker / API + stream + clients",
            f"{result['cpu']['moto']:.0f} / {stats['cpuSeconds']:.0f} / {result['cpu']['service']:.0f} "
            f"(wall {result['total_s']:.0f} s, 2 cores)",
        ],
        ["messages handled by the worker", f"{stats['handled']:,}"],
    ]
    cycle = stats["seconds"].get(BATCH_STAGE, 0.0) or 1.0
    stages = [
        [name, f"{seconds / documents * 1000:.2f} ms", f"{seconds:.1f} s"]
        for name, seconds in sorted(stats["seconds"].items(), key=lambda kv: -kv[1])
    ]
    intro = (
        f"Bulk upload benchmark: {documents:,} PDFs of ~100 bytes in batches of {BATCH:,}, "
        f"posted by {UPLOADERS} client threads; "
        "worker process: 2 pollers, each handling a batch of up to 10 messages with 10 threads. "
        "Stage times are summed over "
        f"the worker's threads (the queue batches' {cycle:.0f} s include the stages run inside them)."
    )
    return (
        intro
        + "\n\n"
        + table(["measure", "value"], rows)
        + "\n\n"
        + table(["worker stage", "per document", "total (all threads)"], stages)
    )


if __name__ == "__main__":
    print(
        main(
            int(sys.argv[1])
            if len(sys.argv) > 1
            else int(os.environ.get("PM_BENCH_DOCUMENTS", 20 if SMOKE else DOCUMENTS))
        )
    )
