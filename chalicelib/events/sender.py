"""Sending one delivery: a signed POST (Standard Webhooks, via the standardwebhooks
library), the configured Authorization header, 10 s timeout, no redirects, and no
private, loopback or metadata addresses after DNS resolution (loopback only in the local
stage)."""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import socket
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from chalicelib.store.model import Item

TIMEOUT_SECONDS = 10
USER_AGENT = "propertymanagement-webhooks/1"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def unsafe_target(url: str) -> str | None:
    """Why the URL may not be called, or None."""
    host = urlsplit(url).hostname or ""
    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except OSError as err:
        return f"cannot resolve {host}: {err}"
    local_stage = os.environ.get("PM_ALLOW_LOOPBACK_WEBHOOKS") == "1"
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if ip.is_loopback and local_stage:
            continue
        if ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_reserved or ip.is_multicast or ip.is_unspecified or not ip.is_global:
            return f"{host} resolves to a non-public address ({address})"
    return None


def send(url: str, payload: str, event_id: str, secret: str, authorization: str | None) -> dict[str, Any]:
    from standardwebhooks.webhooks import Webhook

    problem = unsafe_target(url)
    if problem:
        return {"statusCode": None, "error": problem, "durationMs": 0}
    now = dt.datetime.now(dt.UTC)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": event_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(secret).sign(event_id, now, payload),
    }
    if authorization:
        headers["Authorization"] = authorization
    request = urllib.request.Request(url, data=payload.encode(), method="POST", headers=headers)
    started = time.perf_counter()
    try:
        with _opener.open(request, timeout=TIMEOUT_SECONDS) as answer:
            status, retry_after = answer.status, answer.headers.get("Retry-After")
    except urllib.error.HTTPError as err:
        status, retry_after = err.code, err.headers.get("Retry-After") if err.headers else None
    except (urllib.error.URLError, OSError, TimeoutError) as err:
        return {"statusCode": None, "error": f"{type(err).__name__}: {err}", "durationMs": round((time.perf_counter() - started) * 1000, 1)}
    outcome: dict[str, Any] = {"statusCode": status, "durationMs": round((time.perf_counter() - started) * 1000, 1)}
    if retry_after and retry_after.strip().isdigit():
        outcome["retryAfter"] = int(retry_after.strip())
    if status >= 300:
        outcome["error"] = f"HTTP {status}"
    return outcome


def secrets_of(tenant_id: str, webhook_id: str) -> dict[str, Any]:
    from chalicelib.resources.webhooks import SECRET_SK
    from chalicelib.store.entities import entity_pk

    return Item.get(entity_pk(tenant_id, webhook_id), SECRET_SK, consistent_read=True).data_dict()
