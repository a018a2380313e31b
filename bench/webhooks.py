"""Webhook benchmark on the local stack: delivery latency from commit (the create's HTTP
answer) to the receiver, p50/p95, and deliveries per second with 1, 10 and 100 subscribed
endpoints (loopback receivers), stream poller and dispatcher running as in `make serve`.

    .venv/bin/python -m bench.webhooks
"""

from __future__ import annotations

import os
import time

os.environ.setdefault("PM_ALLOW_LOOPBACK_WEBHOOKS", "1")

from bench.harness import Service, median, p, record, table
from tests.client import Api
from tests.receiver import Receiver

ENDPOINTS_AND_EVENTS = ((1, 100), (10, 30), (100, 10))


def main() -> str:
    service = Service()
    service.stack.start_stream()
    api = Api(f"http://127.0.0.1:{service.port}")
    try:
        latency_rows = _latency(api, events=50)
        rows = [_throughput(api, endpoints, events) for endpoints, events in ENDPOINTS_AND_EVENTS]
    finally:
        service.stop()
    intro = (
        "Webhook benchmark: loopback receivers answering 200 at once; the stream poller (100 ms batching window) and "
        "the dispatcher (16 sends in flight) run in the service's process, as in `make serve`."
    )
    return intro + "\n\n" + table(["measure", "value"], latency_rows) + "\n\n" + table(["endpoints", "events", "deliveries", "seconds", "deliveries/s"], rows)


def _latency(api: Api, events: int) -> list[list[str]]:
    tenant = api.signup(company="Latenz GmbH")
    receiver = Receiver().start()
    tenant.ok("webhooks.create", {"name": "bench", "url": receiver.url, "events": ["contact.created"]})
    samples = []
    for i in range(events):
        created = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": f"L{i}"}})["contact"]
        committed = time.time()
        deadline = committed + 30
        while time.time() < deadline:
            hit = next((r for r in receiver.delivered() if r.event["data"]["id"] == created["id"]), None)
            if hit is not None:
                samples.append((hit.at - committed) * 1000)
                break
            time.sleep(0.002)
    receiver.stop()
    record("webhook delivery", "commit → receiver p50 / p95", "seconds (at least once)", f"{median(samples):.0f} / {p(samples, 0.95):.0f} ms")
    return [
        ["commit → receiver p50", f"{median(samples):.0f} ms"],
        ["commit → receiver p95", f"{p(samples, 0.95):.0f} ms"],
        ["events measured", str(len(samples))],
    ]


def _throughput(api: Api, endpoints: int, events: int) -> list[str]:
    tenant = api.signup(company=f"Durchsatz {endpoints}")
    receivers = [Receiver().start() for _ in range(endpoints)]
    for receiver in receivers:
        tenant.ok("webhooks.create", {"name": "bench", "url": receiver.url, "events": ["contact.created"]})
    time.sleep(1.1)  # subscriptions are cached for a second
    started = time.time()
    for i in range(events):
        tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": f"T{i}"}})
    expected = endpoints * events
    deadline = time.time() + 600
    while time.time() < deadline and sum(len(r.delivered()) for r in receivers) < expected:
        time.sleep(0.05)
    elapsed = max(r.delivered()[-1].at for r in receivers if r.delivered()) - started
    delivered = sum(len(r.delivered()) for r in receivers)
    for receiver in receivers:
        receiver.stop()
    record(f"webhook fan-out, {endpoints} endpoints", "deliveries per second", "all delivered", f"{delivered / elapsed:.0f}/s, {delivered} of {expected}")
    return [str(endpoints), str(events), f"{delivered} of {expected}", f"{elapsed:.1f}", f"{delivered / elapsed:.0f}"]


if __name__ == "__main__":
    print(main())
