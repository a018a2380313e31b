"""Webhook benchmark on the local stack: delivery latency from commit (the create's HTTP
answer) to the receiver, p50/p95, and deliveries per second with 1, 10 and 100 subscribed
endpoints (loopback receivers answering 200 at once; 100 endpoints are four tenants of 25,
the most a tenant may hold), with the stream poller and the delivery worker running as in
`make serve`.

Two scenarios side by side in one run:
  clean      only the measured tenants
  attacked   the same, after one tenant pointed 6 webhooks at a tarpit (accepts, never
             answers) and made 30 contacts, and another pointed 6 at a receiver answering
             429 with `Retry-After: 999999999` and changed one contact 150 times: their
             deliveries are pending throughout (tarpit attempts time out and come again,
             the 429 groups wait), and the healthy figures must stay within 20 %. The
             measuring begins 30 s after the attackers' changes: the first seconds of the
             burst are the tests' (tests/functional/test_webhook_fairness.py: the victim's
             event within 2 s), this is the attack going on.

    .venv/bin/python -m bench.webhooks
"""

from __future__ import annotations

import os
import time
from typing import Any

os.environ.setdefault("PM_ALLOW_LOOPBACK_WEBHOOKS", "1")

from bench.harness import SMOKE, Service, median, p, record, table
from chalicelib import config
from tests.client import Api, Tenant
from tests.receiver import Receiver, Tarpit

ENDPOINTS_AND_EVENTS = ((1, 3), (10, 1)) if SMOKE else ((1, 100), (10, 30), (100, 10))
LATENCY_EVENTS = 5 if SMOKE else 150
ATTACK_SETTLE_SECONDS = 2 if SMOKE else 30  # the measuring begins this long after the attackers' changes
ATTACK_CONTACTS, ATTACK_UPDATES = (6, 10) if SMOKE else (30, 150)  # the attackers' changes


def main() -> str:
    figures = {scenario: _scenario(attacked=scenario == "attacked") for scenario in ("clean", "attacked")}
    report = _report(figures)
    missing = [
        f"{scenario}, latency: {len(found['latency'])} of {LATENCY_EVENTS}"
        for scenario, found in figures.items()
        if len(found["latency"]) < LATENCY_EVENTS
    ] + [
        f"{scenario}, fan-out to {t['endpoints']}: {t['delivered']} of {t['expected']}"
        for scenario, found in figures.items()
        for t in found["throughput"]
        if t["delivered"] < t["expected"]
    ]
    if missing:
        raise SystemExit(f"{report}\n\nnot every event was delivered: {'; '.join(missing)}")
    return report


def _scenario(*, attacked: bool) -> dict[str, Any]:
    """Each scenario on a fresh stack: moto walks the whole table for an index Query (the
    fan-out's subscription read, once a second per tenant), so a scenario run on the table
    the other left behind would measure the table's size, not the attack."""
    service = Service(moto_process=True)  # moto's CPU on the other core, not under the service's interpreter lock
    service.stack.start_stream()
    api = Api(f"http://127.0.0.1:{service.port}")
    try:
        attack = Attack(api, service).start() if attacked else None
        found: dict[str, Any] = {
            "latency": _latency(api),
            "throughput": [_throughput(api, e, n) for e, n in ENDPOINTS_AND_EVENTS],
        }
        if attack is not None:
            found["attack"] = attack.stop()
        return found
    finally:
        service.stop()


class Attack:
    """Two tenants whose receivers misbehave, with their deliveries pending meanwhile."""

    def __init__(self, api: Api, service: Service) -> None:
        self.api, self.service = api, service
        self.tarpit = Tarpit().start()
        self.limited = Receiver(always=429, retry_after="999999999").start()

    def start(self) -> Attack:
        tarpitting, limiting = self.api.signup(company="Teergrube GmbH"), self.api.signup(company="Drossel GmbH")
        for n in range(6):
            _subscribe(tarpitting, self.tarpit.url, f"tarpit {n}")
            _subscribe(limiting, self.limited.url, f"429 {n}")
        for n in range(ATTACK_CONTACTS):
            tarpitting.contact(lastName=f"Teer {n}")
        person = limiting.contact(lastName="V0")
        for version in range(1, ATTACK_UPDATES):
            limiting.ok("contacts.update", {"contact": {"id": person["id"], "lastName": f"V{version}"}})
        assert self.service.stack.poller.wait_idle(120)
        deadline = time.monotonic() + 30
        while (self.tarpit.connections < 6 or len(self.limited.requests) < 6) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(ATTACK_SETTLE_SECONDS)
        return self

    def stop(self) -> dict[str, int]:
        seen = {"tarpit connections": self.tarpit.connections, "429 answers": len(self.limited.requests)}
        self.tarpit.stop()
        self.limited.stop()
        return seen


def _subscribe(tenant: Tenant, url: str, name: str = "bench") -> None:
    tenant.ok("webhooks.create", {"name": name, "url": url, "events": ["contact.created", "contact.updated"]})


def _latency(api: Api) -> list[float]:
    tenant = api.signup(company="Latenz GmbH")
    receiver = Receiver().start()
    _subscribe(tenant, receiver.url)
    samples = []
    for i in range(LATENCY_EVENTS):
        created = tenant.contact(lastName=f"L{i}")
        committed = time.time()
        hit = receiver.first(lambda r: r.event["data"]["id"] == created["id"], timeout=30)  # noqa: B023 - used before the loop moves on
        if hit is not None:
            samples.append((hit.at - committed) * 1000)
    receiver.stop()
    return samples


def _throughput(api: Api, endpoints: int, events: int) -> dict[str, Any]:
    """`events` contacts made by each tenant, every one delivered to each of its endpoints."""
    tenants = []
    receivers: list[Receiver] = []
    for start in range(0, endpoints, config.MAX_WEBHOOKS):
        tenant = api.signup(company=f"Durchsatz {endpoints}")
        for _ in range(min(config.MAX_WEBHOOKS, endpoints - start)):
            receiver = Receiver().start()
            receivers.append(receiver)
            _subscribe(tenant, receiver.url)
        tenants.append(tenant)
    time.sleep(1.1)  # subscriptions are cached for a second
    started = time.time()
    for i in range(events):
        for tenant in tenants:
            tenant.contact(lastName=f"T{i}")
    expected = endpoints * events
    deadline = time.time() + 600
    while time.time() < deadline and sum(len(r.delivered()) for r in receivers) < expected:
        time.sleep(0.05)
    elapsed = max(r.delivered()[-1].at for r in receivers if r.delivered()) - started
    delivered = sum(len(r.delivered()) for r in receivers)
    for receiver in receivers:
        receiver.stop()
    return {"endpoints": endpoints, "events": events, "expected": expected, "delivered": delivered, "seconds": elapsed}


def _report(figures: dict[str, dict[str, Any]]) -> str:
    clean, attacked = figures["clean"]["latency"], figures["attacked"]["latency"]
    ratio = p(attacked, 0.95) / p(clean, 0.95)
    record(
        "webhook delivery",
        "commit → receiver p50 / p95",
        "seconds (at least once)",
        f"{median(clean):.0f} / {p(clean, 0.95):.0f} ms",
    )
    record(
        "webhook delivery, another tenant tarpitting and answering 429",
        "commit → receiver p95 vs clean",
        "within 20 %",
        f"{p(attacked, 0.95):.0f} vs {p(clean, 0.95):.0f} ms ({ratio:.2f}×)",
    )
    latency_rows = [
        [name, f"{median(s):.0f} ms", f"{p(s, 0.95):.0f} ms", str(len(s))]
        for name, s in (("clean", clean), ("attacked", attacked))
    ]
    rows = []
    for scenario in ("clean", "attacked"):
        for t in figures[scenario]["throughput"]:
            rate = t["delivered"] / t["seconds"]
            rows.append(
                [
                    scenario,
                    str(t["endpoints"]),
                    str(t["events"]),
                    f"{t['delivered']} of {t['expected']}",
                    f"{t['seconds']:.1f}",
                    f"{rate:.0f}",
                ]
            )
            if scenario == "clean":
                result = f"{rate:.0f}/s, {t['delivered']} of {t['expected']}"
                record(f"webhook fan-out, {t['endpoints']} endpoints", "deliveries per second", "all delivered", result)
    for clean_t, attacked_t in zip(figures["clean"]["throughput"], figures["attacked"]["throughput"], strict=True):
        record(
            f"webhook fan-out, {clean_t['endpoints']} endpoints, under attack",
            "deliveries per second vs clean",
            "within 20 %",
            f"{attacked_t['delivered'] / attacked_t['seconds']:.0f} vs "
            f"{clean_t['delivered'] / clean_t['seconds']:.0f}/s",
        )
    intro = (
        "Webhook benchmark: loopback receivers answering 200 at once; the stream poller and the delivery worker "
        "(FIFO queue on moto, 128 concurrent invocations) run in the service's process, as in `make serve`. "
        "`attacked`: meanwhile one tenant's "
        f"6 webhooks tarpit and another's 6 answer 429 with a huge Retry-After "
        f"({figures['attacked']['attack']['tarpit connections']} tarpit connections, "
        f"{figures['attacked']['attack']['429 answers']} answers 429)."
    )
    return "\n\n".join(
        [
            intro,
            table(["scenario", "commit → receiver p50", "p95", "events"], latency_rows)
            + f"\n\np95 attacked / clean: {ratio:.2f}×",
            table(["scenario", "endpoints", "events per tenant", "deliveries", "seconds", "deliveries/s"], rows),
        ]
    )


if __name__ == "__main__":
    print(main())
