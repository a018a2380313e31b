"""Bundle sizes: `make package`'s two artifacts, built here into a scratch folder (the same
steps, pinned wheels for Lambda's Linux), against Lambda's 250 MB unzipped limit."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from bench.harness import record, table
from infra import package

ROOT = Path(__file__).resolve().parents[1]


def main() -> str:
    rows = []
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, "-m", "infra.package", "--out", out], cwd=ROOT, check=True, capture_output=True)
        for bundle in package.BUNDLES:
            path = Path(out) / bundle.zip_name
            with zipfile.ZipFile(path) as archive:
                unzipped = sum(info.file_size for info in archive.infolist())
            share = f"{100 * unzipped / package.LAMBDA_UNZIPPED_LIMIT:.0f} %"
            functions = ", ".join(package.FUNCTIONS_OF[bundle.name])
            rows.append(
                [bundle.zip_name, functions, f"{path.stat().st_size / 1e6:.1f}", f"{unzipped / 1e6:.1f}", share]
            )
            record(
                f"bundle {bundle.zip_name}",
                "MB unzipped (share of Lambda's 250 MB)",
                "< 250 MB",
                f"{unzipped / 1e6:.1f} MB ({share})",
            )
    return "Bundles (make package):\n\n" + table(["bundle", "functions", "MB zipped", "MB unzipped", "of 250 MB"], rows)


if __name__ == "__main__":
    print(main())
