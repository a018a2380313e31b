"""Sending one delivery attempt: a signed POST (Standard Webhooks, via the standardwebhooks
library) with the configured Authorization header, and nothing a receiver can turn against
us or against other tenants:

- the host is resolved once (within RESOLVE_SECONDS); every address it names must be public
  (events/targets.py), and the connection goes to the address that passed the check, with
  the host name kept for TLS (SNI, certificate) and the Host header: a name that answers
  differently the second time (DNS rebinding) never gets a second lookup;
- the whole attempt ends after TIMEOUT_SECONDS, however the receiver drips its answer (a
  watchdog closes the socket); the status line, the headers and at most the first
  config.WEBHOOK_RESPONSE_BYTES of the body are read (the delivery log shows them, with the
  Authorization header's value and the signing secrets blanked out should the receiver echo
  them); a body that does not come in time is left unread, the status kept;
- during a secret's rotation the request carries a signature by each secret still signing
  (the new one first), space-separated as Standard Webhooks allows;
- no redirects are followed (a 3xx is a failed attempt);
- every attempt settles: whatever goes wrong becomes an `Outcome` with a coarse reason
  (`timeout`, `connection_refused`, `tls_error`, `http_5xx`, ...), never an exception,
  and never an address or an exception's text that would make the ping a scanner."""

from __future__ import annotations

import datetime as dt
import http.client
import socket
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from standardwebhooks.webhooks import Webhook

from chalicelib import config
from chalicelib.events import targets
from chalicelib.log import logger

TIMEOUT_SECONDS = 10.0  # the whole attempt: resolve, connect, TLS, send, status and headers
CONNECT_SECONDS = 3.0
RESOLVE_SECONDS = 3.0
USER_AGENT = "propertymanagement-webhooks/1"
# Every reason an attempt can fail for (Outcome.reason): what the delivery log and the ping show.
REASONS = (
    "invalid_url",
    "dns_error",
    "dns_timeout",
    "blocked_address",
    "connection_refused",
    "connection_failed",
    "connection_closed",
    "timeout",
    "tls_error",
    "invalid_response",
    "redirect",
    "http_4xx",
    "http_410",
    "http_429",
    "http_5xx",
    "webhook_disabled",
    "internal_error",
)

# getaddrinfo cannot be given a timeout: it runs on these threads, and a lookup that takes
# longer is abandoned (its thread finishes on its own).
_resolvers = ThreadPoolExecutor(max_workers=8, thread_name_prefix="webhook-dns")


@dataclass(frozen=True)
class Outcome:
    status_code: int | None  # the receiver's HTTP status; None when none came
    reason: str | None  # coarse, for people and logs; None on success
    duration_ms: float
    retry_after: int | None = None  # seconds the receiver asked for (429, 503)
    response: str | None = None  # the first bytes of the receiver's body as text, secrets blanked out

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class _Refused(Exception):
    """An attempt that ends before anything was sent, with its coarse reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


REDACTED = "[redacted]"


def send(url: str, payload: str, event_id: str, secret: str | list[str], authorization: str | None) -> Outcome:
    """One attempt. `secret`: the signing secret, or the secrets still signing (a rotation's
    overlap: the new one first, then the one it replaces)."""
    started = time.perf_counter()
    signing = [secret] if isinstance(secret, str) else list(secret)

    def took() -> float:
        return round((time.perf_counter() - started) * 1000, 1)

    try:
        status, retry_after, body = _post(url, payload, _headers(payload, event_id, signing, authorization), started)
    except _Refused as refusal:
        return Outcome(None, refusal.reason, took())
    except Exception as err:  # noqa: BLE001 - every attempt settles; the reason is all that is kept
        reason = _reason_of(err)
        if reason == "internal_error":
            logger.warning("webhook attempt failed unexpectedly", extra={"error": type(err).__name__})
        return Outcome(None, reason, took())
    return Outcome(status, _status_reason(status), took(), retry_after, _shown_body(body, signing, authorization))


def _shown_body(body: bytes, signing: list[str], authorization: str | None) -> str | None:
    """The receiver's first bytes as text for the log; whatever of our secrets it echoes (the
    Authorization header's value, a signing secret or its key part) is blanked out."""
    if not body:
        return None
    text = body.decode("utf-8", errors="replace")
    hidden = [authorization or "", *signing, *(s.removeprefix("whsec_") for s in signing)]
    if authorization and " " in authorization:  # `Bearer abc`: the credential alone counts too
        hidden.append(authorization.split(" ", 1)[1])
    for value in sorted({h for h in hidden if len(h) >= 8}, key=len, reverse=True):
        text = text.replace(value, REDACTED)
    return text


def _headers(payload: str, event_id: str, signing: list[str], authorization: str | None) -> dict[str, str]:
    now = dt.datetime.now(dt.UTC)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": event_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": " ".join(Webhook(secret).sign(event_id, now, payload) for secret in signing),
    }
    if authorization:
        headers["Authorization"] = authorization
    return headers


def _post(url: str, payload: str, headers: dict[str, str], started: float) -> tuple[int, int | None, bytes]:
    if targets.url_problem(url) is not None:  # a URL stored under older rules
        raise _Refused("invalid_url")
    parts = urlsplit(url)
    host = parts.hostname or ""
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    address = _pinned_address(host, port)
    deadline = started + TIMEOUT_SECONDS
    sock = socket.create_connection((address, port), timeout=min(CONNECT_SECONDS, _left(deadline)))
    watchdog = threading.Timer(_left(deadline), _cut, args=(sock,))
    watchdog.daemon = True
    watchdog.start()
    try:
        sock.settimeout(_left(deadline))
        if https:
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        connection = http.client.HTTPConnection(host, port, timeout=_left(deadline))
        connection.sock = sock  # already connected to the checked address: no second lookup
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        connection.request("POST", target, body=payload.encode(), headers=headers)
        answer = connection.getresponse()
        status, retry_after = answer.status, _seconds(answer.getheader("Retry-After"))
        body = _first_bytes(answer)
        connection.close()
    except Exception as err:
        if time.perf_counter() >= deadline - 0.05:  # the watchdog cut it: whatever broke, it was the time
            raise TimeoutError("the attempt took too long") from err
        raise
    finally:
        watchdog.cancel()
        sock.close()
    return status, retry_after, body


def _first_bytes(answer: http.client.HTTPResponse) -> bytes:
    """Up to WEBHOOK_RESPONSE_BYTES of the body, as far as it comes before the deadline: a
    receiver that drips or breaks off its body still gets its status recorded."""
    got = b""
    try:
        while len(got) < config.WEBHOOK_RESPONSE_BYTES:
            chunk = answer.read1(config.WEBHOOK_RESPONSE_BYTES - len(got))
            if not chunk:
                break
            got += chunk
    except Exception:  # noqa: BLE001 - the watchdog or the receiver ended it: what came is kept
        pass
    return got[: config.WEBHOOK_RESPONSE_BYTES]


def _pinned_address(host: str, port: int) -> str:
    """The one address this attempt connects to: the first of the host's addresses, after
    every one of them passed the check (a name that also names a private address is refused,
    whichever address it would have handed out)."""
    try:
        infos = _resolvers.submit(socket.getaddrinfo, host, port, 0, socket.SOCK_STREAM).result(timeout=RESOLVE_SECONDS)
    except FutureTimeout:
        raise _Refused("dns_timeout") from None
    except OSError:
        raise _Refused("dns_error") from None
    addresses = [str(info[4][0]) for info in infos if info[0] in (socket.AF_INET, socket.AF_INET6)]
    if not addresses:
        raise _Refused("dns_error")
    if not all(targets.address_allowed(a) for a in addresses):
        raise _Refused("blocked_address")
    return addresses[0]


def _left(deadline: float) -> float:
    left = deadline - time.perf_counter()
    if left <= 0:
        raise TimeoutError("the attempt took too long")
    return left


def _cut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _seconds(value: str | None) -> int | None:
    text = (value or "").strip()
    return int(text) if text.isdigit() and len(text) < 12 else None


def _status_reason(status: int) -> str | None:
    if 200 <= status < 300:
        return None
    if 300 <= status < 400:
        return "redirect"
    if status in (410, 429):
        return f"http_{status}"
    return "http_5xx" if status >= 500 else "http_4xx"


def _reason_of(err: BaseException) -> str:
    """The coarse reason of a failed attempt (the exception's own text is never kept)."""
    if isinstance(err, TimeoutError | socket.timeout):
        return "timeout"
    if isinstance(err, ssl.SSLError | ssl.CertificateError):
        return "tls_error"
    if isinstance(err, ConnectionRefusedError):
        return "connection_refused"
    if isinstance(
        err, ConnectionResetError | BrokenPipeError | http.client.RemoteDisconnected | ConnectionAbortedError
    ):
        return "connection_closed"
    if isinstance(err, http.client.HTTPException):
        return "invalid_response"
    if isinstance(err, OSError):
        return "connection_failed"
    return "internal_error"


def ping_body(event_id: str, tenant_id: str, webhook_id: str, at: str) -> dict[str, Any]:
    return {
        "id": event_id,
        "type": "webhook.ping",
        "timestamp": at,
        "tenantId": tenant_id,
        "data": {"webhookId": webhook_id},
    }
