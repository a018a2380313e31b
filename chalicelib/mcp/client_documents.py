"""Client ID metadata documents (issue 35, work in progress; the MCP authorization spec's way for a
client to be known without registering): a client id that is an https URL names a JSON document
there, which this fetches under the webhooks' rules for where the service may connect
(events/targets.py: https, public addresses only, every resolved address checked and the connection
pinned to one of them, so a name cannot rebind to a private address between check and use), at most
MAX_BYTES, no redirects.

The fetch is anonymous work (anyone may send an authorize request naming any URL), so it is
bounded as a whole: connecting, the TLS handshake, the request and the whole answer share one
deadline of DEADLINE_SECONDS (each read waits only for what is left of it: a server dripping a byte
a second cannot hold the request past it), and the answer is read up to MAX_BYTES plus HEAD_BYTES
of status line and headers. A document is kept CACHE_SECONDS (a failure too), at most CACHE_ENTRIES;
a host whose document could not be had is not asked again for FAILURE_SECONDS, whatever the path
(a slow host cannot be asked once per path). The caches are the instance's (memory)."""

from __future__ import annotations

import http.client
import io
import json
import socket
import ssl
import threading
import time
from collections import OrderedDict
from typing import Any, cast
from urllib.parse import SplitResult, urlsplit

from chalicelib.events import targets

MAX_BYTES = 5 * 1024
HEAD_BYTES = 8 * 1024
DEADLINE_SECONDS = 3.0
CACHE_SECONDS = 300
FAILURE_SECONDS = 60
CACHE_ENTRIES = 1000

_cache: OrderedDict[str, tuple[float, dict[str, Any] | None]] = OrderedDict()
_failed_hosts: OrderedDict[str, float] = OrderedDict()  # host -> when its fetch failed (time.monotonic())
_lock = threading.Lock()


def is_document_id(client_id: str) -> bool:
    return client_id.startswith(("https://", "http://"))


def document(client_id: str) -> dict[str, Any] | None:
    """The client's metadata from its document (None: not fetchable, not allowed, or not a
    document of this client id; or its host failed within FAILURE_SECONDS)."""
    now = time.monotonic()
    host = (urlsplit(client_id).hostname or "").lower()
    with _lock:
        hit = _cache.get(client_id)
        if hit is not None and now - hit[0] < CACHE_SECONDS:
            return hit[1]
        failed = _failed_hosts.get(host)
        if failed is not None and now - failed < FAILURE_SECONDS:
            return None
    found = _fetch(client_id)
    with _lock:
        _keep(_cache, client_id, (now, found))
        if found is None:
            _keep(_failed_hosts, host, time.monotonic())
    return found


def reset() -> None:
    """Forget every document and failure this instance keeps (tests)."""
    with _lock:
        _cache.clear()
        _failed_hosts.clear()


def _keep(cache: OrderedDict[str, Any], key: str, value: Any) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHE_ENTRIES:
        cache.popitem(last=False)


def _fetch(url: str) -> dict[str, Any] | None:
    if targets.url_problem(url) is not None:
        return None
    parts = urlsplit(url)
    host, https = parts.hostname or "", parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    deadline = time.monotonic() + DEADLINE_SECONDS
    try:
        infos = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
        addresses = [str(info[4][0]) for info in infos if info[0] in (socket.AF_INET, socket.AF_INET6)]
        if not addresses or not all(targets.address_allowed(a) for a in addresses):
            return None
        # connected to the checked address: no second lookup
        sock = socket.create_connection((addresses[0], port), timeout=_left(deadline))
        try:
            if https:
                sock.settimeout(_left(deadline))  # the handshake as a whole (ssl keeps one deadline for it)
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
            sock.settimeout(_left(deadline))
            sock.sendall(_request(parts, host))
            raw = _receive(sock, deadline)
        finally:
            sock.close()
        if raw is None:
            return None
        answer = http.client.HTTPResponse(cast(socket.socket, _Received(raw)))
        answer.begin()
        body = answer.read(MAX_BYTES + 1)
    except (OSError, http.client.HTTPException):  # timeouts and TLS errors are OSErrors
        return None
    if answer.status != 200 or len(body) > MAX_BYTES:
        return None
    try:
        found = json.loads(body)
    except ValueError:
        return None
    if not isinstance(found, dict) or found.get("client_id") != url or not found.get("redirect_uris"):
        return None
    return found


def _left(deadline: float) -> float:
    """What is left of the deadline, as a socket timeout (never 0: that would not block at all)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the client document's deadline passed")
    return left


def _request(parts: SplitResult, host: str) -> bytes:
    named = f"[{host}]" if ":" in host else host
    authority = f"{named}:{parts.port}" if parts.port else named
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if any(not 0x21 <= ord(char) <= 0x7E for char in target + authority):
        raise http.client.InvalidURL("a client document's URL must be plain ASCII without spaces")
    return (
        f"GET {target} HTTP/1.1\r\nHost: {authority}\r\nAccept: application/json\r\n"
        "User-Agent: propertymanagement-oauth\r\nConnection: close\r\n\r\n"
    ).encode("ascii")


def _receive(sock: socket.socket, deadline: float) -> bytes | None:
    """The whole answer, read until the server closes (Connection: close), each read waiting only
    for what is left of the deadline; None when it is longer than a document may be."""
    chunks: list[bytes] = []
    size = 0
    while True:
        sock.settimeout(_left(deadline))
        chunk = sock.recv(4096)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BYTES + HEAD_BYTES:
            return None


class _Received:
    """A received answer where http.client reads a socket (it parses status, headers and the
    body's framing: length, chunks)."""

    def __init__(self, raw: bytes) -> None:
        self._raw = raw

    def makefile(self, *_args: Any, **_kwargs: Any) -> io.BytesIO:
        return io.BytesIO(self._raw)
