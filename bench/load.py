"""Load test: mixed reads and writes against `make serve` (its own process, on loopback),
then proof that every acknowledged write is readable and audited.

    python -m bench.load [seconds] [clients]

Clients (threads, a new connection per request as curl makes it) run for a fixed time:
60 % contacts.show of a known contact, 10 % a contacts page, 20 % contacts.update, 10 %
contacts.create. Afterwards every created contact must be readable with the last
acknowledged value, and the audit trail must hold one `created` per acknowledged create and
one `updated` per acknowledged update."""

from __future__ import annotations

import random
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.harness import SMOKE, call, p, record, signup, table
from chalicelib.local.stack import free_port
from tests import serve_process

ROOT = Path(__file__).resolve().parents[1]
BASE = "/propertymanagement/v2"


def _call(port: int, method: str, path: str, body: Any = None, key: str | None = None) -> tuple[int, Any]:
    return call(port, method, path, body, key, timeout=60)


@dataclass
class Ledger:
    """What the server acknowledged, per contact: created, and the last name it took."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    contacts: dict[str, str] = field(default_factory=dict)  # id -> last acknowledged lastName
    updates: Counter[str] = field(default_factory=Counter)  # id -> acknowledged updates
    samples: dict[str, list[float]] = field(default_factory=dict)
    statuses: Counter[int] = field(default_factory=Counter)

    def record(self, kind: str, ms: float, status: int) -> None:
        with self.lock:
            self.samples.setdefault(kind, []).append(ms)
            self.statuses[status] += 1


def _client(port: int, key: str, ledger: Ledger, until: float, seed: int) -> None:
    rng = random.Random(seed)
    while time.monotonic() < until:
        with ledger.lock:
            known = list(ledger.contacts)
        roll = rng.random()
        started = time.perf_counter()
        if roll < 0.1 or not known:
            name = f"Neu{rng.randrange(10**9)}"
            status, body = _call(
                port,
                "POST",
                f"{BASE}/command/contacts.create",
                {"contact": {"personType": "natural", "lastName": name}},
                key,
            )
            kind = "contacts.create"
            if status == 200:
                with ledger.lock:
                    ledger.contacts[body["contact"]["id"]] = name
        elif roll < 0.3:
            target = rng.choice(known)
            name = f"Upd{rng.randrange(10**9)}"
            # one writer per contact at a time keeps "last acknowledged" well defined
            with ledger.lock:
                busy = target in _busy
                if not busy:
                    _busy.add(target)
            if busy:
                continue
            try:
                status, _ = _call(
                    port, "POST", f"{BASE}/command/contacts.update", {"contact": {"id": target, "lastName": name}}, key
                )
                if status == 200:
                    with ledger.lock:
                        ledger.contacts[target] = name
                        ledger.updates[target] += 1
            finally:
                with ledger.lock:
                    _busy.discard(target)
            kind = "contacts.update"
        elif roll < 0.4:
            status, _ = _call(port, "GET", f"{BASE}/query/contacts?limit=20&offset=0", key=key)
            kind = "contacts (page of 20)"
        else:
            status, _ = _call(port, "GET", f"{BASE}/query/contacts.show?contact={rng.choice(known)}", key=key)
            kind = "contacts.show"
        ledger.record(kind, (time.perf_counter() - started) * 1000, status)


_busy: set[str] = set()


def _audited(port: int, key: str, ledger: Ledger, timeout: float = 120) -> tuple[int, int, int]:
    """(contacts whose audit trail matches, missing records, extra records), once the stream settled."""
    deadline = time.monotonic() + timeout
    while True:
        matching, missing, extra = 0, 0, 0
        for contact_id in ledger.contacts:
            _, body = _call(port, "GET", f"{BASE}/query/audit.list?entityId={contact_id}&limit=1000&offset=0", key=key)
            actions = Counter(r["action"] for r in body["auditRecords"])
            want = Counter({"created": 1, "updated": ledger.updates[contact_id]})
            missing += sum((want - actions).values())
            extra += sum((actions - want).values())
            matching += actions == want
        if matching == len(ledger.contacts) or time.monotonic() > deadline:
            return matching, missing, extra
        time.sleep(2)


def main(seconds: float = 30, clients: int = 8) -> str:
    port = free_port()
    with tempfile.TemporaryDirectory() as state_dir:
        proc = serve_process.start(port, state_dir, capture=False, PM_THROTTLE_RATE="0", PM_TENANT_THROTTLE_RATE="0")
        try:
            _, key = signup(port, "Last GmbH", "load@example.org", "load", str(Path(state_dir) / "outbox"))
            ledger = Ledger()
            until = time.monotonic() + seconds
            threads = [
                threading.Thread(target=_client, args=(port, key, ledger, until, seed)) for seed in range(clients)
            ]
            started = time.monotonic()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.monotonic() - started
            readable = sum(
                1
                for contact_id, name in ledger.contacts.items()
                if (answer := _call(port, "GET", f"{BASE}/query/contacts.show?contact={contact_id}", key=key))[0] == 200
                and answer[1]["contact"]["lastName"] == name
            )
            audited, missing, extra = _audited(port, key, ledger)
        finally:
            serve_process.stop(proc)
    every = [ms for samples in ledger.samples.values() for ms in samples]
    total = sum(ledger.statuses.values())
    errors = sum(n for status, n in ledger.statuses.items() if status >= 400)
    rows = [
        [kind, len(samples), f"{len(samples) / wall:.1f}", f"{p(samples, 0.5):.1f}", f"{p(samples, 0.99):.1f}"]
        for kind, samples in sorted(ledger.samples.items())
    ]
    rows.append(["all", total, f"{total / wall:.1f}", f"{p(every, 0.5):.1f}", f"{p(every, 0.99):.1f}"])
    writes = len(ledger.contacts) + sum(ledger.updates.values())
    summary = (
        f"error rate {errors}/{total} ({100 * errors / max(total, 1):.2f} %); acknowledged writes {writes} "
        f"({len(ledger.contacts)} creates, {sum(ledger.updates.values())} updates): "
        f"{readable}/{len(ledger.contacts)} contacts readable with their last acknowledged value, "
        f"audit trail exact for {audited}/{len(ledger.contacts)} (missing {missing}, extra {extra})."
    )
    record(
        f"load, {clients} clients mixed",
        "throughput; p50 / p99",
        "no errors",
        f"{total / wall:.0f} req/s; {p(every, 0.5):.0f} / {p(every, 0.99):.0f} ms; {errors} errors",
    )
    record(
        "load: acknowledged writes",
        "readable and audited afterwards",
        "all",
        f"{readable}/{len(ledger.contacts)} readable, {audited}/{len(ledger.contacts)} audited exactly",
    )
    report = (
        f"Load test: {clients} clients for {seconds:g} s against `make serve` "
        "(its own process; moto in-process there), "
        "new connection per request; 60 % show, 10 % page, 20 % update, 10 % create.\n\n"
        + table(["request", "count", "per second", "p50 ms", "p99 ms"], rows)
        + "\n\n"
        + summary
    )
    if errors or readable < len(ledger.contacts) or audited < len(ledger.contacts):
        raise SystemExit(f"{report}\n\nfailed: {errors} errors, {readable} readable, {audited} audited")
    return report


if __name__ == "__main__":
    print(
        main(
            float(sys.argv[1]) if len(sys.argv) > 1 else 3 if SMOKE else 30,
            int(sys.argv[2]) if len(sys.argv) > 2 else 2 if SMOKE else 8,
        )
    )
