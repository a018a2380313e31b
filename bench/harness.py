"""Shared bench plumbing: the local stack and the app's HTTP server in this process (so
DynamoDB calls can be counted at the botocore client), timing, and a table printer."""

from __future__ import annotations

import http.client
import json
import os
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from chalicelib.local.stack import LocalStack, free_port

# `make bench-smoke` (python -m bench --smoke): every benchmark at a tiny size, only to show it
# still runs to the end with no failed item; each benchmark picks its own tiny sizes from this.
SMOKE = os.environ.get("PM_BENCH_SMOKE") == "1"

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("PM_SIGNUP_LIMIT", "100000/3600")  # benchmarks sign up many tenants from 127.0.0.1
os.environ.setdefault("PM_OUTBOX_DIR", tempfile.mkdtemp(prefix="pm-bench-outbox-"))  # the sign-ups' mail


def call(
    port: int, method: str, path: str, body: Any = None, key: str | None = None, timeout: float = 30
) -> tuple[int, Any]:
    """One request on a fresh connection, as curl makes it."""
    status, _, answer = _request(port, method, path, body, key, timeout)
    return status, answer


def call_admitted(
    port: int, method: str, path: str, body: Any = None, key: str | None = None, tries: int = 10
) -> tuple[int, Any]:
    """One request as a well-behaved client makes it: refused for the key's rate (429), it waits
    the Retry-After it was told and asks again. For a benchmark's setup calls, whose pace depends
    on the machine (a fast one sends heavy calls such as exports.create within one limit window);
    never for a timed request."""
    for _ in range(tries - 1):
        status, headers, answer = _request(port, method, path, body, key, 30)
        if status != 429:
            return status, answer
        time.sleep(float(headers.get("Retry-After", "1")))
    return call(port, method, path, body, key)


def _request(
    port: int, method: str, path: str, body: Any, key: str | None, timeout: float
) -> tuple[int, dict[str, str], Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json", "Connection": "close"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, dict(resp.getheaders()), json.loads(data) if data else None


def signup(port: int, company: str, email: str, agent: str, outbox_dir: str | None = None) -> tuple[str, str]:
    """Both steps of a sign-up (the code from the service's outbox): tenant id and first key."""
    from tests.client import mailed_code

    status, body = call(
        port, "POST", "/api/platform/v1/command/signup", {"companyName": company, "email": email, "agentName": agent}
    )
    assert status == 200, body
    code = mailed_code(email, outbox_dir)
    status, body = call(port, "POST", "/api/platform/v1/command/signup.confirm", {"email": email, "code": code})
    assert status == 200, body
    return body["tenant"]["id"], body["apiKey"]["key"]


class Service:
    def __init__(self, *, moto_process: bool = False) -> None:
        self.stack = LocalStack(own_process=moto_process).start()
        from chalicelib.local.http_server import serve_in_thread

        self.port = free_port()
        self._server = serve_in_thread(self.port)
        self.calls: Counter[str] = Counter()
        from chalicelib.store.model import Item

        Item._get_connection().connection.client.meta.events.register("before-call.dynamodb", self._count)

    def _count(self, model: Any, **_: Any) -> None:
        self.calls[model.name] += 1

    def stop(self) -> None:
        self._server.shutdown()
        self.stack.stop()

    def call(self, method: str, path: str, body: Any = None, key: str | None = None) -> tuple[int, Any]:
        return call(self.port, method, path, body, key)

    def call_admitted(self, method: str, path: str, body: Any = None, key: str | None = None) -> tuple[int, Any]:
        return call_admitted(self.port, method, path, body, key)

    def signup(self) -> tuple[str, str]:
        return signup(self.port, "Bench GmbH", f"b{time.time_ns()}@example.org", "bench")

    @contextmanager
    def counting(self) -> Iterator[Counter[str]]:
        before = Counter(self.calls)
        seen: Counter[str] = Counter()
        yield seen
        seen.update(self.calls - before)


def timed(func: Callable[[], Any], repeat: int, per_second: float | None = None) -> list[float]:
    """Milliseconds per call; with `per_second`, calls start no faster than that (a key's rate
    limit), the waits between them untimed."""
    samples = []
    began = time.perf_counter()
    for n in range(repeat):
        if per_second:
            time.sleep(max(0.0, began + n / per_second - time.perf_counter()))
        start = time.perf_counter()
        func()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def succeeding(func: Callable[[], Any]) -> Callable[[], None]:
    """A timed request that must answer 200: one refused (429) or failed (500) would be timed as
    if it had done the work, and the figure would look better for it. Ends the run instead."""

    def run() -> None:
        result = func()
        status = getattr(result, "status", None) or result[0]  # tests.client.Answer, or (status, body)
        if status != 200:
            raise SystemExit(f"a timed request answered {status}: {result}")

    return run


def p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def table(headers: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def record(operation: str, figure: str, target: str, result: str) -> None:
    """One row of `make bench`'s summary table (bench/__main__.py collects them from every
    benchmark's process through the file PM_BENCH_SUMMARY names)."""
    path = os.environ.get("PM_BENCH_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps([operation, figure, target, result], ensure_ascii=False) + "\n")
