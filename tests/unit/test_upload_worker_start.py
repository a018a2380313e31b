"""The upload worker's entry (app.py, whose `on_upload` the template names) refuses to start
when the resource modules were not loaded (issue 31): its import fails, loudly, instead of
every upload notice failing at `ENTITY_TYPES["document"]` and being retried. Each import runs
in a process of its own: the registry of this one is filled for good."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# chalicelib.resources imports every resource module (each registers its entity type and
# operations); this stands in for it with a load_all() that loads nothing, as app.py would be
# without its resource loading.
WITHOUT_RESOURCES = (
    "import sys, types; import chalicelib; "
    "stub = types.ModuleType('chalicelib.resources'); stub.load_all = lambda: {}; "
    "sys.modules['chalicelib.resources'] = chalicelib.resources = stub; "
)


def _import_app(prelude: str) -> subprocess.CompletedProcess[str]:
    code = prelude + "import app; print('started', len(app.app.routes) > 0)"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_upload_worker_refuses_to_start_without_the_resources() -> None:
    run = _import_app(WITHOUT_RESOURCES)
    assert run.returncode != 0, run.stdout
    assert "RuntimeError: the upload worker cannot start: the registry is empty (0 entity types" in run.stderr
    assert "require_registry()" in run.stderr  # raised at app.py's import, before any message
    assert "started" not in run.stdout


def test_the_upload_worker_starts_with_the_resources() -> None:
    run = _import_app("")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "started True"
