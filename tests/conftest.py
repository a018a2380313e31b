"""Fixtures: one embedded stack and one HTTP server per test process (moto's server on
loopback, the Chalice app served by Chalice's own local server), and fresh tenants."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("PM_TABLE_NAME", "pm-test")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")

from tests.client import Api, Tenant  # noqa: E402


@pytest.fixture(scope="session")
def stack() -> Iterator[object]:
    from chalicelib.local.stack import LocalStack, free_port

    local = LocalStack(port=free_port()).start()
    yield local
    local.stop()


@pytest.fixture(scope="session")
def api(stack: object) -> Iterator[Api]:
    from chalice.config import Config
    from chalice.local import create_local_server

    import app as app_module
    from chalicelib.local.stack import free_port

    port = free_port()
    server = create_local_server(app_module.app, Config(chalice_stage="local"), "127.0.0.1", port)
    thread = threading.Thread(target=server.server.serve_forever, daemon=True)
    thread.start()
    yield Api(f"http://127.0.0.1:{port}")
    server.shutdown()


@pytest.fixture()
def tenant(api: Api) -> Tenant:
    return api.signup()


@pytest.fixture()
def other_tenant(api: Api) -> Tenant:
    return api.signup(company="Andere Verwaltung AG")
