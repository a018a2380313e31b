"""Cold start: importing the app must not pull in heavy libraries that only some
operations need (the import time itself is measured in bench/, not asserted here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("mcp", "opensearchpy", "jsonschema", "moto", "numpy", "grpc")


def test_app_import_leaves_heavy_modules_unloaded() -> None:
    code = f"import app, sys; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == ""
