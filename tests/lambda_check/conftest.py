"""The deployment under test: the packaged template and bundles (`make package`; another
folder with PM_LAMBDA_PACKAGE), moto's server holding what the template defines, and every
function of the template ready to start from its bundle. One per session: `make lambda-check`
runs these tests in one process, after `make package`."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from infra.lambda_check import bundles
from infra.lambda_check.events import Gateway
from infra.lambda_check.functions import Running
from infra.lambda_check.stand_in import StandIn
from infra.lambda_check.template import REGION, Template
from infra.package import MODELS_DIR

ROOT = Path(__file__).resolve().parents[2]


def package_dir() -> Path:
    return (ROOT / os.environ.get("PM_LAMBDA_PACKAGE", "build/package")).resolve()


@dataclass
class Deployment:
    template: Template
    stand_in: StandIn
    functions: dict[str, Running]
    gateway: Gateway


@pytest.fixture(scope="session")
def deployment() -> Iterator[Deployment]:
    folder = package_dir()
    if not (folder / "sam.json").exists():
        pytest.fail(f"no packaged template in {folder}: run `make package` first (`make lambda-check` does)")
    logs = folder / "lambda-logs"  # each function's log of this run, and the summary
    shutil.rmtree(logs, ignore_errors=True)
    template = Template(folder / "sam.json")
    stand_in = StandIn(template).start()
    _copy_search_models(stand_in, template, folder)
    functions = {
        name: Running(function, bundles.unpack(folder / function.code, folder / "unpacked"), stand_in, logs)
        for name, function in template.functions().items()
    }
    try:
        yield Deployment(template, stand_in, functions, Gateway(template, functions))
    finally:
        loaded = {name: running.loaded_files() for name, running in functions.items()}
        (logs / "loaded-modules.json").write_text(json.dumps(loaded, indent=1), encoding="utf-8")
        for running in functions.values():
            running.stop()
        stand_in.stop()
        report = "\n".join(running.summary() for running in functions.values())
        logs.mkdir(exist_ok=True)
        (logs / "summary.txt").write_text(report + "\n", encoding="utf-8")


def _copy_search_models(stand_in: StandIn, template: Template, folder: Path) -> None:
    """What `make deploy` does before the stack: the search models set aside from the MCP bundle
    (infra/package.py) copied to the artifact bucket, which the template names as a parameter."""
    bucket = template.parameters["SearchModelBucket"]
    s3 = stand_in.client("s3")
    s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": REGION})
    models = folder / MODELS_DIR
    files = [f for f in models.rglob("*") if f.is_file()]
    if not files:
        pytest.fail(f"no search models in {models}: run `make package` first")
    for file in files:
        s3.upload_file(str(file), bucket, f"{MODELS_DIR}/{file.relative_to(models).as_posix()}")
