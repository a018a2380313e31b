"""The upload worker of the upload benchmark, in a process of its own (as a Lambda is):
starts as the deployed function does, by importing app.py (the entry whose `on_upload` the
template names: it loads the resource modules and refuses to start without them, issue 31),
and hands each batch of the local stack's upload queue to `app.on_upload` through the same
QueuePoller as `make serve`, timing the stages of each registration, until it is told to stop
(SIGTERM). Prints "ready" once started, then at the end one JSON line: messages handled,
seconds per stage, peak RSS.

    AWS_ENDPOINT_URL=... PM_UPLOAD_QUEUE_URL=... python -m bench.upload_worker
"""

from __future__ import annotations

import json
import os
import resource
import signal
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

TIMES: dict[str, float] = defaultdict(float)
BATCH_STAGE = "queue batch (handle, delete)"  # the stage that holds the others (bench/uploads.py says so)
_lock = threading.Lock()


def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            with _lock:
                TIMES[name] += time.perf_counter() - start

    return wrapper


def instrument() -> None:
    """Wrap the stages of a registration (same functions, only timed)."""
    from chalicelib.local import queue_poller
    from chalicelib.uploads import direct, register

    register.upload_store.get_reservations = timed(  # type: ignore[method-assign]
        "read the batch's reservations (BatchGetItem)", register.upload_store.get_reservations
    )
    register.files.read = timed("read file from S3 + SHA-256", register.files.read)  # type: ignore[method-assign]
    direct.checked_type = timed("sniff media type", direct.checked_type)  # type: ignore[assignment]
    register.store.create = timed("write document + edge + reservation (TransactWriteItems)", register.store.create)  # type: ignore[method-assign]
    poller = queue_poller.QueuePoller
    poller._invoke = timed(BATCH_STAGE, poller._invoke)  # type: ignore[method-assign]


def peak_rss_mib() -> float:
    """This process's peak resident set (VmHWM). Not ru_maxrss: Linux carries that across exec
    from the parent, so a worker started by a big parent would report the parent's peak."""
    for line in open("/proc/self/status").read().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


class Context:
    """What Lambda passes a handler beside the event (the middleware reads it in Lambda only)."""

    function_name = "bench-on-upload"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:local:000000000000:function:bench-on-upload"
    aws_request_id = "bench"

    def get_remaining_time_in_millis(self) -> int:
        return 900_000


def main() -> None:
    import app as entry  # the deployed function's cold start: resources, then the registry check

    instrument()
    from chalicelib.local import queue_poller

    context = Context()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    worker = queue_poller.for_uploads(
        invocations=int(os.environ.get("PM_BENCH_POLLERS", "2")),
        handler=lambda event: entry.on_upload(event, context),
    )
    worker.start()
    print("ready", flush=True)
    stop.wait()
    worker.stop()
    worker.join(timeout=10)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    stats = {
        "handled": worker.handled,
        "seconds": dict(TIMES),
        "peakRssMiB": peak_rss_mib(),
        "cpuSeconds": usage.ru_utime + usage.ru_stime,
    }
    print(json.dumps(stats), flush=True)


if __name__ == "__main__":
    main()
