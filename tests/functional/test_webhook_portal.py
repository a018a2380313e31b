"""The webhook portal's API side (issue 37): each attempt's body, status, answer and duration in
the delivery log, never a request header or a secret; tests logged and resent; the log filtered;
the recent success rate; rotation of the signing secret with an overlap in which both sign."""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from chalicelib import clock, config
from tests.client import Tenant
from tests.eventually import eventually


class Answering:
    """A receiver that answers every POST with `status` and `body` (`{auth}` in it is replaced by
    the Authorization header it got, as a receiver that echoes its request would), and keeps
    what it got."""

    def __init__(self) -> None:
        self.status = 200
        self.body = "ok"
        self.got: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                sent = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                headers = {k.lower(): v for k, v in self.headers.items()}
                receiver.got.append((headers, sent))
                answer = receiver.body.replace("{auth}", headers.get("authorization", "")).encode()
                self.send_response(receiver.status)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


@pytest.fixture()
def answering() -> Iterator[Answering]:
    receiver = Answering()
    yield receiver
    receiver.server.shutdown()
    receiver.server.server_close()


def _hook(tenant: Tenant, url: str, **extra: Any) -> dict[str, Any]:
    body = {"name": "Portal", "url": url, "events": ["contact.created", "contact.updated"], **extra}
    return dict(tenant.ok("webhooks.create", body)["webhook"])


def _log(tenant: Tenant, hook: dict[str, Any], **filters: Any) -> dict[str, Any]:
    return dict(tenant.get("webhooks.deliveries.list", {"webhook": hook["id"], "limit": 50, "offset": 0, **filters}))


def test_each_attempt_keeps_the_body_sent_the_status_the_answers_first_bytes_and_the_duration(
    tenant: Tenant, answering: Answering
) -> None:
    answering.status, answering.body = 500, "echo: {auth} " + "x" * 5000
    hook = _hook(tenant, answering.url, authorizationHeader="Bearer portal-token-123")
    tenant.contact(lastName="Versuch")

    def tried() -> dict[str, Any] | None:
        entries = [e for e in _log(tenant, hook)["deliveries"] if e["eventType"] == "contact.created"]
        return entries[0] if entries and entries[0]["attemptLog"] else None

    entry = eventually(tried, timeout=15, message="the first attempt to be logged")
    attempt = entry["attemptLog"][0]
    assert attempt["number"] == 1 and attempt["statusCode"] == 500 and attempt["error"] == "http_5xx"
    assert attempt["durationMs"] > 0 and attempt["at"]
    assert len(attempt["response"].encode()) <= config.WEBHOOK_RESPONSE_BYTES
    assert attempt["response"].startswith("echo: [redacted] xxx")
    # what was sent is what the receiver got; no request header is kept or shown
    assert json.loads(entry["requestBody"]) == json.loads(answering.got[0][1])
    raw = tenant.query("webhooks.deliveries.list", {"webhook": hook["id"], "limit": 50, "offset": 0}).raw.decode()
    assert "portal-token-123" not in raw and hook["secret"] not in raw
    assert answering.got[0][0]["webhook-signature"] not in raw


def test_a_test_is_logged_and_resent_with_its_id(tenant: Tenant, answering: Answering) -> None:
    answering.body = '{"received": true}'
    hook = _hook(tenant, answering.url)
    ping = tenant.ok("webhooks.test", {"webhook": hook["id"]})["ping"]
    (entry,) = _log(tenant, hook, eventType="webhook.ping")["deliveries"]
    assert entry["id"] == ping["id"] and entry["test"] is True and entry["status"] == "delivered"
    assert entry["attemptLog"][0]["response"] == '{"received": true}'
    tenant.ok("webhooks.deliveries.retry", {"webhook": hook["id"], "delivery": ping["id"]})
    eventually(lambda: len(answering.got) == 2, timeout=15, message="the resent ping")
    assert (
        json.loads(answering.got[1][1])["id"] == ping["id"]
        and json.loads(answering.got[1][1])["type"] == "webhook.ping"
    )

    def resent() -> dict[str, Any] | None:
        (again,) = _log(tenant, hook, eventType="webhook.ping")["deliveries"]
        return again if again["attempts"] == 2 and again["status"] == "delivered" else None

    again = eventually(resent, timeout=15, message="the resend in the log")
    assert [a["number"] for a in again["attemptLog"]] == [1, 2]


def test_the_log_filters_by_status_and_event_type_and_tells_the_recent_success_rate(
    tenant: Tenant, answering: Answering
) -> None:
    hook = _hook(tenant, answering.url)
    assert _log(tenant, hook)["health"] == {"window": 0, "delivered": 0, "failed": 0, "successRate": None}
    tenant.ok("webhooks.test", {"webhook": hook["id"]})
    answering.status = 404
    tenant.ok("webhooks.test", {"webhook": hook["id"]})
    tenant.ok("webhooks.test", {"webhook": hook["id"]})
    answering.status = 200
    tenant.contact(lastName="Gefiltert")
    eventually(lambda: _log(tenant, hook, eventType="contact.created", status="delivered")["deliveries"], timeout=15)
    failed = _log(tenant, hook, status="failed")
    assert failed["pagination"]["total"] == 2 and {e["eventType"] for e in failed["deliveries"]} == {"webhook.ping"}
    assert _log(tenant, hook, status="delivered", eventType="webhook.ping")["pagination"]["total"] == 1
    assert _log(tenant, hook, eventType="unit.created")["deliveries"] == []
    assert _log(tenant, hook)["health"] == {"window": 4, "delivered": 2, "failed": 2, "successRate": 0.5}
    refused = tenant.query("webhooks.deliveries.list", {"webhook": hook["id"], "limit": 5, "offset": 0, "status": "x"})
    assert refused.status == 400


def _verifies(secret: str, headers: dict[str, str], body: bytes) -> bool:
    try:
        Webhook(secret).verify(body, headers)
    except WebhookVerificationError:
        return False
    return True


def test_a_rotated_out_secret_signs_during_the_overlap_and_stops_verifying_after_it(
    tenant: Tenant, answering: Answering
) -> None:
    hook = _hook(tenant, answering.url)
    old = hook["secret"]
    rotated = tenant.ok("webhooks.secret.rotate", {"webhook": hook["id"]})["webhook"]
    new = rotated["secret"]
    assert new.startswith("whsec_") and new != old
    until = clock.parse(rotated["previousSecretUntil"])
    assert until - clock.parse(rotated["secretRotatedAt"]) == dt.timedelta(hours=config.WEBHOOK_SECRET_OVERLAP_HOURS)
    shown = tenant.get("webhooks.show", {"webhook": hook["id"]})["webhook"]
    assert "secret" not in shown and shown["previousSecretUntil"] == rotated["previousSecretUntil"]

    tenant.ok("webhooks.test", {"webhook": hook["id"]})
    headers, body = answering.got[-1]
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert _verifies(new, headers, body) and _verifies(old, headers, body)

    clock.set_clock(
        lambda: dt.datetime.now(dt.UTC) + dt.timedelta(hours=config.WEBHOOK_SECRET_OVERLAP_HOURS, minutes=1)
    )
    try:
        tenant.ok("webhooks.test", {"webhook": hook["id"]})
    finally:
        clock.set_clock(None)
    headers, body = answering.got[-1]
    assert len(headers["webhook-signature"].split(" ")) == 1
    assert _verifies(new, headers, body) and not _verifies(old, headers, body)


def test_a_second_rotation_in_the_overlap_drops_the_first_secret_at_once(tenant: Tenant, answering: Answering) -> None:
    hook = _hook(tenant, answering.url)
    first = hook["secret"]
    second = tenant.ok("webhooks.secret.rotate", {"webhook": hook["id"]})["webhook"]["secret"]
    third = tenant.ok("webhooks.secret.rotate", {"webhook": hook["id"]})["webhook"]["secret"]
    tenant.ok("webhooks.test", {"webhook": hook["id"]})
    headers, body = answering.got[-1]
    assert _verifies(third, headers, body) and _verifies(second, headers, body)
    assert not _verifies(first, headers, body)


def test_rotation_needs_write_scope_and_is_the_tenants_own(
    tenant: Tenant, other_tenant: Tenant, answering: Answering
) -> None:
    hook = _hook(tenant, answering.url)
    assert other_tenant.command("webhooks.secret.rotate", {"webhook": hook["id"]}).status == 404
    reader = tenant.new_key(["read"])
    assert tenant.command("webhooks.secret.rotate", {"webhook": hook["id"]}, key=reader).status == 403
    # the event log: a rotation is an update of the webhook, attributed like every change
    shown = tenant.get("webhooks.show", {"webhook": hook["id"]})["webhook"]
    assert shown["version"] == hook["version"]
    tenant.ok("webhooks.secret.rotate", {"webhook": hook["id"]})
    assert tenant.get("webhooks.show", {"webhook": hook["id"]})["webhook"]["version"] == hook["version"] + 1
