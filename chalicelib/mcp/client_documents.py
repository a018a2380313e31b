"""Client ID metadata documents (issue 35, work in progress; the MCP authorization spec's way for a
client to be known without registering): a client id that is an https URL names a JSON document
there, which this fetches under the webhooks' rules for where the service may connect
(events/targets.py: https, public addresses only, every resolved address checked and the connection
pinned to one of them, so a name cannot rebind to a private address between check and use), at most
MAX_BYTES within TIMEOUT_SECONDS, no redirects; kept CACHE_SECONDS, at most CACHE_ENTRIES."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import threading
import time
from collections import OrderedDict
from typing import Any
from urllib.parse import urlsplit

from chalicelib.events import targets

MAX_BYTES = 5 * 1024
TIMEOUT_SECONDS = 5.0
CACHE_SECONDS = 300
CACHE_ENTRIES = 1000

_cache: OrderedDict[str, tuple[float, dict[str, Any] | None]] = OrderedDict()
_lock = threading.Lock()


def is_document_id(client_id: str) -> bool:
    return client_id.startswith(("https://", "http://"))


def document(client_id: str) -> dict[str, Any] | None:
    """The client's metadata from its document (None: not fetchable, not allowed, or not a
    document of this client id)."""
    now = time.monotonic()
    with _lock:
        hit = _cache.get(client_id)
        if hit is not None and now - hit[0] < CACHE_SECONDS:
            return hit[1]
    found = _fetch(client_id)
    with _lock:
        _cache[client_id] = (now, found)
        _cache.move_to_end(client_id)
        while len(_cache) > CACHE_ENTRIES:
            _cache.popitem(last=False)
    return found


def _fetch(url: str) -> dict[str, Any] | None:
    if targets.url_problem(url) is not None:
        return None
    parts = urlsplit(url)
    host, https = parts.hostname or "", parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    try:
        infos = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
        addresses = [str(info[4][0]) for info in infos if info[0] in (socket.AF_INET, socket.AF_INET6)]
        if not addresses or not all(targets.address_allowed(a) for a in addresses):
            return None
        sock = socket.create_connection((addresses[0], port), timeout=TIMEOUT_SECONDS)
        if https:
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        connection = http.client.HTTPConnection(host, port, timeout=TIMEOUT_SECONDS)
        connection.sock = sock  # connected to the checked address: no second lookup
        connection.request("GET", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
        answer = connection.getresponse()
        body = answer.read(MAX_BYTES + 1)
        connection.close()
    except (OSError, http.client.HTTPException):
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
