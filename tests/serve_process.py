"""`make serve` in a process of its own, as a newcomer runs it: for the end-to-end test, the
fault test that kills it, and the load benchmark."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.client import Api
from tests.eventually import eventually

ROOT = Path(__file__).resolve().parents[1]


def start(port: int, state_dir: Path | str, *, capture: bool = True, **env_extra: str) -> subprocess.Popen[str]:
    """Starts the server and waits until it answers (`capture` keeps its output for reading)."""
    # its own AWS stand-ins and its own outbox (in the state folder), as a newcomer's would be
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k != "PM_OUTBOX_DIR"}
    env.update(PM_PORT=str(port), PM_STATE_DIR=str(state_dir), POWERTOOLS_LOG_LEVEL="WARNING")
    env.update(PM_DOCS_BUILD="0")  # no mkdocs build beside the tests (tests/functional/test_docs_site.py builds)
    env.update(env_extra)
    output = subprocess.PIPE if capture else subprocess.DEVNULL
    proc = subprocess.Popen(
        [sys.executable, "-m", "chalicelib.local.serve"],
        cwd=ROOT,
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
        text=True,
    )
    api = Api(f"http://127.0.0.1:{port}")
    try:
        # a first start in a fresh clone compiles every module, beside the other test worker: allow for it
        eventually(lambda: answers(api), timeout=120, message="make serve to answer")
    except AssertionError as error:
        proc.kill()
        raise AssertionError(
            f"make serve did not come up ({error}): " + (proc.stdout.read() if proc.stdout else "")
        ) from None
    return proc


def answers(api: Api) -> bool:
    """Whether the server at `api` answers its version query (not yet listening: False)."""
    try:
        return api.request("GET", "/api/platform/v1/query/version").status == 200
    except OSError:
        return False


def stop(proc: subprocess.Popen[str]) -> str:
    """Stops it as Ctrl-C would; answers what it printed."""
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, out
    return out or ""
