"""The check fails where a deployment would: each test breaks one artifact of the packaged
deployment in a copy (a module left out of a bundle, a handler renamed in the template, an
environment variable dropped from it), runs test_functions.py against the copy in a pytest of
its own, and expects it to fail, naming what broke. The copies live under build/ (the
functions' own /tmp hides the machine's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from infra.lambda_check import bundles
from infra.package import MODELS_DIR
from tests.lambda_check.conftest import ROOT, package_dir

pytestmark = pytest.mark.slow


@pytest.fixture()
def package(request: pytest.FixtureRequest) -> Any:
    folder = ROOT / "build" / "sabotage" / request.node.name
    bundles.remove(folder)
    folder.mkdir(parents=True)
    yield folder
    bundles.remove(folder)


def _copy(into: Path, *, zip_filter: Callable[[str], bool] | None = None) -> dict[str, Any]:
    """The package in `into`: the zips linked (or, filtered, rewritten without what the filter
    refuses); the template answered for the test to change and write."""
    source = package_dir()
    for archive in source.glob("*.zip"):
        if zip_filter and archive.name == "deployment.zip":
            copy = zipfile.ZipFile(into / archive.name, "w", zipfile.ZIP_DEFLATED, compresslevel=1)
            with zipfile.ZipFile(archive) as full, copy as kept:
                for info in full.infolist():
                    if zip_filter(info.filename):
                        kept.writestr(info, full.read(info))
        else:
            (into / archive.name).symlink_to(archive)
    (into / MODELS_DIR).symlink_to(source / MODELS_DIR)  # what `make deploy` copies beside the stack
    template: dict[str, Any] = json.loads((source / "sam.json").read_text(encoding="utf-8"))
    return template


def _check(package: Path, template: dict[str, Any]) -> str:
    (package / "sam.json").write_text(json.dumps(template), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:xdist", "tests/lambda_check/test_functions.py"],
        cwd=ROOT,
        env={**os.environ, "PM_LAMBDA_PACKAGE": str(package)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode != 0, "the check passed on a broken deployment:\n" + run.stdout[-3000:]
    return run.stdout


def test_a_module_left_out_of_the_bundle_fails_the_function_that_imports_it(package: Path) -> None:
    """The delivery worker is imported on the first delivery batch, not at the cold start:
    the check reaches it by invoking the function with the queue's batch."""
    left_out = "chalicelib/events/delivery_worker"
    template = _copy(package, zip_filter=lambda name: not name.startswith(left_out) and "/delivery_worker." not in name)
    output = _check(package, template)
    assert "No module named 'chalicelib.events.delivery_worker'" in output, output[-3000:]
    assert "test_a_change_reaches_the_delivery_queue_and_the_delivery_worker" in output


def test_a_handler_the_bundle_does_not_have_fails_at_the_cold_start(package: Path) -> None:
    template = _copy(package)
    template["Resources"]["OnUpload"]["Properties"]["Handler"] = "app.on_uploads"
    output = _check(package, template)
    assert "OnUpload did not start: Runtime.HandlerNotFound" in output, output[-3000:]


def test_a_variable_dropped_from_the_template_fails_what_needs_it(package: Path) -> None:
    template = _copy(package)
    del template["Resources"]["OnTableChange"]["Properties"]["Environment"]["Variables"]["PM_DELIVERY_QUEUE_URL"]
    output = _check(package, template)
    # the stream handler cannot queue the webhook's delivery: it hands the record back to the stream
    assert "test_a_change_reaches_the_delivery_queue_and_the_delivery_worker" in output, output[-3000:]
    assert "{'batchItemFailures': [{'itemIdentifier': " in output, output[-3000:]
