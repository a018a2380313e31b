"""A webhook receiver on loopback for the tests: records every request, and can be told to
fail the first N deliveries or to answer a fixed status."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    status: int
    at: float = field(default_factory=time.time)  # arrival (epoch seconds)

    @property
    def event(self) -> dict[str, Any]:
        return dict(json.loads(self.body))


@dataclass
class Receiver:
    fail_first: int = 0
    fail_status: int = 503
    always: int | None = None
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    if receiver.always is not None:
                        status = receiver.always
                    elif receiver.fail_first > 0:
                        receiver.fail_first -= 1
                        status = receiver.fail_status
                    else:
                        status = 200
                    receiver.requests.append(Received({k.lower(): v for k, v in self.headers.items()}, body, status))
                self.send_response(status)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def delivered(self) -> list[Received]:
        with self.lock:
            return [r for r in self.requests if r.status == 200]

    def wait_for(self, count: int, timeout: float = 20.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.delivered()
            if len(got) >= count:
                return got
            time.sleep(0.02)
        raise AssertionError(f"receiver got {len(self.delivered())} of {count} deliveries: {[r.status for r in self.requests]}")

    def stop(self) -> None:
        self.server.shutdown()
