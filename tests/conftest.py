"""Fixtures: one embedded stack and one HTTP server per test process (moto's server on
loopback, the Chalice app served by Chalice's own local server), and fresh tenants. Within
the process nothing goes through a socket: the tests' REST calls reach the app directly
(tests/client.py), the app's AWS calls reach moto directly (chalicelib/local/moto_transport.py);
MCP sessions, raw-socket tests and the webhook receivers use the wire."""

from __future__ import annotations

import gc
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PM_TABLE_NAME", "pm-test")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("PM_ALLOW_LOOPBACK_WEBHOOKS", "1")  # as in the local stage: test receivers listen on loopback
# Sign-ups and codes per source address and per e-mail address off (two counter writes per
# sign-up, and every test signs up from 127.0.0.1): the limits' own tests set them.
os.environ.setdefault("PM_SIGNUP_LIMIT", "0/1")
os.environ.setdefault("PM_OAUTH_LIMIT", "0/1")  # authorize and token per source address: the OAuth tests' flows
os.environ.setdefault("PM_ADDRESS_LIMIT", "0/1")
os.environ.setdefault("PM_ADDRESS_TOTAL_LIMIT", "0/1")
os.environ.setdefault("PM_INVITE_LIMIT", "0/1")
os.environ.setdefault("PM_OUTBOX_DIR", tempfile.mkdtemp(prefix="pm-outbox-"))  # the service's mail, read by Api.signup
# Every key's (and tenant's) default limit off (a counter write per call, a sixth of the suite's time): the
# limits' own tests set a tenant's limits (pmctl tenants throttle), which count as deployed.
os.environ.setdefault("PM_THROTTLE_RATE", "0")
os.environ.setdefault("PM_TENANT_THROTTLE_RATE", "0")  # and every tenant's, for the same reason
os.environ.setdefault("PM_WEBHOOK_RETRY_SCALE", "0.001")  # 5 s, 5 min, 30 min become 5 ms, 300 ms, 1.8 s
# A sandbox is planted with the small demo company (one object, a few of each type: ~80 lines, not
# ~1,400 taking most of a minute): the worker's, make demo's and the console's tests are about other
# things than its size. The one test of the full demo's totals (tests/functional/test_sandboxes.py)
# sets `full`; tests/unit/test_demo_data.py checks both sizes' lines.
os.environ.setdefault("PM_DEMO_SIZE", "small")

# The whole suite on a moved clock: PM_TEST_CLOCK_SHIFT=+30d (or -30d, +1y, an ISO time) moves the
# wall clock of every test process and of every Python process they start, from its start on, by
# one offset (time-machine, in tests/clock_shift/sitecustomize.py: time.time, datetime.now and the
# like; the monotonic clocks, which waits and sleeps use, stay), so a test that holds only today
# fails there. libfaketime cannot do this for Python 3.11: with its monotonic clock faked a timed
# wait never ends, with it left alone time.sleep fails (EINVAL).
if os.environ.get("PM_TEST_CLOCK_SHIFT") and not os.environ.get("PM_TEST_CLOCK_OFFSET"):
    import datetime as _dt

    from tests.moments import shifted

    _real = _dt.datetime.now(_dt.UTC)
    os.environ["PM_TEST_CLOCK_OFFSET"] = str(
        (shifted(os.environ["PM_TEST_CLOCK_SHIFT"], _real) - _real).total_seconds()
    )
    _site = str(ROOT / "tests" / "clock_shift")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_site, os.environ.get("PYTHONPATH")) if p)
    import runpy

    runpy.run_path(f"{_site}/sitecustomize.py")  # this process too: it started before the variable was set

# The cyclic collector less often: a test process holds the whole embedded stack (moto's tables,
# thousands of items of small objects each), which every older-generation pass walks, and the
# default (700, 10, 10) passes very often. Three functional files: CPU 0.87-0.93x; peak memory the same.
gc.set_threshold(20_000, 20, 100)

import tests.profiles  # noqa: E402, F401 - the Hypothesis profiles, before any test module's settings
from tests import tiers  # noqa: E402
from tests.client import Api, Tenant  # noqa: E402
from tests.receiver import Receiver  # noqa: E402


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tiers' marks from a test's folder and from tests/mutation.py (tests/tiers.py); then the
    tests marked slow (half a minute to two each) first, the rest in their order: with `--maxschedchunk
    2` xdist hands them out two at a time to whichever worker is free, so the long ones start at
    once, on different workers, instead of one of them starting last and running on alone at the end."""
    guards = tiers.guard_entries()
    for item in items:
        for mark in tiers.tier_marks(item.nodeid, guards):
            item.add_marker(mark)
    if os.environ.get(tiers.DUMP):  # the tier contract test reads what was collected with which marks
        tiers.dump(os.environ[tiers.DUMP], {item.nodeid: [m.name for m in item.iter_markers()] for item in items})
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def stack() -> Iterator[object]:
    from chalicelib.local.stack import LocalStack, free_port

    local = LocalStack(port=free_port()).start()
    local.start_stream()
    yield local
    local.stop()


@pytest.fixture(scope="session")
def api(stack: object) -> Iterator[Api]:
    from chalicelib.local.http_server import Gateways, serve_in_thread
    from chalicelib.local.stack import free_port

    port, gateways = free_port(), Gateways()
    server = serve_in_thread(port, gateways)
    yield Api(f"http://127.0.0.1:{port}", gateways=gateways)  # REST in process; MCP and raw sockets use the port
    server.shutdown()


@pytest.fixture(scope="session")
def http_api(api: Api) -> Api:
    """The same service over HTTP: for what the wire itself decides (repeated headers, framing)."""
    return Api(api.base)


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    """A webhook receiver on loopback that answers 200 (tests/receiver.py)."""
    started = Receiver().start()
    yield started
    started.stop()


@pytest.fixture()
def tenant(api: Api) -> Tenant:
    return api.signup()


@pytest.fixture()
def other_tenant(api: Api) -> Tenant:
    return api.signup(company="Andere Verwaltung AG")
