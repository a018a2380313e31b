"""`make serve`: the whole service on one machine. Starts the embedded stack, restores
the saved state from .local/, serves the API on 127.0.0.1:$PM_PORT (default 8000), saves
state every few seconds when it changed and once more on shutdown.

While it runs, `.local/stack.json` (PM_STATE_DIR) names the embedded stack's endpoint and
table, so `pmctl --local` can reach the same data; it is removed on shutdown."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from chalicelib import config
from chalicelib.entity_search import engine as search_engine
from chalicelib.local import demo, docs_site
from chalicelib.local.http_server import create_server
from chalicelib.local.stack import LocalStack

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_SECONDS = 5.0


def _stage_environment(stage: str) -> None:
    """Apply the stage's environment variables from .chalice/config.json, as `chalice local` would."""
    chalice_config = json.loads((ROOT / ".chalice" / "config.json").read_text())
    stage_config = chalice_config.get("stages", {}).get(stage, {})
    for source in (chalice_config.get("environment_variables", {}), stage_config.get("environment_variables", {})):
        for name, value in source.items():
            os.environ.setdefault(name, value)


def main() -> None:
    _stage_environment("local")
    port = config.local_port()
    state_dir = ROOT / config.state_dir(".local")  # a relative PM_STATE_DIR is the repository's, as pmctl reads it
    # No SES here: the service's mail goes to the outbox folder and is printed as it lands.
    os.environ.setdefault("PM_OUTBOX_DIR", str(state_dir / "outbox"))
    os.environ.setdefault("PM_PRINT_OUTBOX", "1")

    stack = LocalStack(state_file=state_dir / "state.json").start()
    state_dir.mkdir(parents=True, exist_ok=True)
    search_engine.use(search_engine.file_in(str(state_dir)))  # the entity search's index, kept with the data
    restored = len(stack.items())
    stack.start_stream()  # audit records from here on; the restored items are not replayed

    sys.path.insert(0, str(ROOT))

    server = create_server(port)
    if config.docs_build_at_start():
        docs_site.build_in_background()  # /docs answers 503 until it is built (when missing or stale)
    stopping = threading.Event()

    def snapshots() -> None:
        while not stopping.wait(SNAPSHOT_SECONDS):
            stack.snapshot_if_dirty()

    def shutdown(signum: int, frame: FrameType | None) -> None:
        stopping.set()
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGINT, shutdown)
    signal.signal(signal.SIGTERM, shutdown)
    threading.Thread(target=snapshots, daemon=True).start()

    base = f"http://127.0.0.1:{port}"
    connection_file = _write_connection_file(state_dir, stack.endpoint, port)
    print(_banner(base, restored, state_dir), flush=True)
    if config.local_demo():
        print(demo.banner(base, demo.ensure_demo_company()), flush=True)
    try:
        server.server.serve_forever()
    finally:
        _remove_connection_file(connection_file)
        saved = stack.export_state()
        stack.stop()
        print(f"Saved {saved} items to {state_dir / 'state.json'}. Bye.", flush=True)


def _write_connection_file(state_dir: Path, endpoint: str, port: int) -> Path:
    """Where the embedded stack is, for `pmctl --local` (dummy credentials: see stack.LOCAL_ENV)."""

    target = state_dir / "stack.json"
    facts = {
        "endpoint": endpoint,
        "tableName": config.table_name(),
        "region": config.region(),
        "keyEnvironment": config.key_environment(),
        "apiBase": f"http://127.0.0.1:{port}",
        "outboxDir": config.outbox_dir(),
        "pid": os.getpid(),
    }
    state_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(".stack.json.tmp")
    partial.write_text(json.dumps(facts, indent=2) + "\n")
    os.replace(partial, target)
    return target


def _remove_connection_file(path: Path) -> None:
    """Only our own: a second `make serve` on another port may have written it since."""
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError):
        pass


def _banner(base: str, restored: int, state_dir: Path) -> str:
    return f"""
Property Management API on {base}  (embedded AWS stand-ins; {restored} items restored from {state_dir})

Console (sign up, keys, webhooks, agent activity): {base}/console
Docs (concepts, guides, the reference of every operation): {base}/docs/

Or sign up with curl; the confirmation mail is printed here (and kept in {state_dir / "outbox"}):
  curl -s -X POST {base}/api/platform/v1/command/signup -H 'Content-Type: application/json' \\
    -d '{{"companyName": "Hausverwaltung Muster GmbH", "email": "you@example.org", "agentName": "me"}}'
  curl -s -X POST {base}/api/platform/v1/command/signup.confirm -H 'Content-Type: application/json' \\
    -d '{{"email": "you@example.org", "code": "<the code from the mail>"}}'

That answer holds your first API key, shown once. Put apiKey.key in PM_KEY (export PM_KEY=pm_test_...)
and ask who you are:
  curl -s {base}/propertymanagement/v2/query/info -H "Authorization: Bearer $PM_KEY"

Operator CLI (vendor onboarding, tenants): .venv/bin/pmctl --local --help

Stop with Ctrl-C; the data stays in {state_dir}.
"""


if __name__ == "__main__":
    main()
