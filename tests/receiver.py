"""A webhook receiver on loopback for the tests: records every request, and can be told to
fail the first N deliveries, to answer a fixed status, to answer the first N only after a
delay, or to close the connection on the first N without answering."""

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
    slow_first: int = 0  # the first N requests are answered (200) only after `delay` seconds
    delay: float = 0.0
    drop_first: int = 0  # the first N requests get no answer: the connection is closed
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                headers = {k.lower(): v for k, v in self.headers.items()}
                with receiver.lock:
                    drop, slow = receiver.drop_first > 0, receiver.drop_first <= 0 and receiver.slow_first > 0
                    if drop:
                        receiver.drop_first -= 1
                        status = 0  # no status line: the sender sees the connection closed
                    elif slow:
                        receiver.slow_first -= 1
                        status = 200  # recorded on arrival, answered after the delay
                    elif receiver.always is not None:
                        status = receiver.always
                    elif receiver.fail_first > 0:
                        receiver.fail_first -= 1
                        status = receiver.fail_status
                    else:
                        status = 200
                    receiver.requests.append(Received(headers, body, status))
                if drop:
                    self.close_connection = True
                    return
                if slow:
                    time.sleep(receiver.delay)
                try:
                    self.send_response(status)
                    self.end_headers()
                except OSError:
                    pass  # the sender gave up waiting (slow answers)

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
