"""A webhook receiver on loopback for the tests: records every request, and can be told to
fail the first N deliveries, to answer a fixed status, to answer the first N only after a
delay, to close the connection on the first N without answering, or to send a Retry-After
header. `Tarpit` accepts connections and never answers; `closed_port` is where nothing listens."""

from __future__ import annotations

import functools
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    status: int
    at: float = field(default_factory=time.time)  # arrival (epoch seconds)

    @functools.cached_property
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
    retry_after: str | None = None  # sent with every non-2xx answer
    requests: list[Received] = field(default_factory=list)
    lock: threading.Condition = field(default_factory=threading.Condition)  # notified at every arrival

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
                    receiver.lock.notify_all()
                if drop:
                    self.close_connection = True
                    return
                if slow:
                    time.sleep(receiver.delay)  # a slow receiver is what is tested: it answers only after `delay`
                try:
                    self.send_response(status)
                    if receiver.retry_after is not None and status >= 300:
                        self.send_header("Retry-After", receiver.retry_after)
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
        with self.lock:
            if self.lock.wait_for(lambda: len([r for r in self.requests if r.status == 200]) >= count, timeout):
                return [r for r in self.requests if r.status == 200]
        raise AssertionError(
            f"receiver got {len(self.delivered())} of {count} deliveries: {[r.status for r in self.requests]}"
        )

    def first(self, match: Callable[[Received], bool], timeout: float = 30.0) -> Received | None:
        """The first delivered request that matches, waiting for it up to `timeout` seconds."""

        def found() -> Received | None:
            return next((r for r in self.requests if r.status == 200 and match(r)), None)

        with self.lock:
            self.lock.wait_for(found, timeout)
            return found()

    def stop(self) -> None:
        self.server.shutdown()


class Tarpit:
    """Accepts every connection on loopback and never answers (nor closes): a receiver that
    holds its senders for as long as they wait. Counts the connections it holds."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(512)
        self.held: list[socket.socket] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def start(self) -> Tarpit:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with self.lock:
                self.held.append(conn)

    @property
    def port(self) -> int:
        return int(self.server.getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    @property
    def connections(self) -> int:
        with self.lock:
            return len(self.held)

    def stop(self) -> None:
        self.stopping.set()
        self.server.close()
        with self.lock:
            for conn in self.held:
                conn.close()


def closed_port() -> int:
    """A loopback port where nothing listens (connections are refused at once)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Drip:
    """Accepts connections on loopback, reads the request and answers it one byte every
    `interval` seconds for `seconds` (a status line, then a body that never completes in time):
    a server that holds a reader who waits for each byte with a fresh timeout. Counts the
    connections it was sent."""

    def __init__(self, interval: float = 0.5, seconds: float = 20.0) -> None:
        self.interval, self.seconds = interval, seconds
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.connections = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def start(self) -> Drip:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n" + b" " * 4096
        try:
            conn.recv(65536)
            ends = time.monotonic() + self.seconds
            for byte in answer:
                # a byte per interval is what is tested; stopping ends it early
                if time.monotonic() > ends or self.stopping.wait(self.interval):
                    break
                conn.sendall(bytes([byte]))
        except OSError:
            pass  # the reader gave up: what a fetch with a deadline does
        finally:
            conn.close()

    @property
    def port(self) -> int:
        return int(self.server.getsockname()[1])

    def stop(self) -> None:
        self.stopping.set()
        self.server.close()
