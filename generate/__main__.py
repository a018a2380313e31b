"""`python -m generate [--check]`: see the package's docstring."""

from __future__ import annotations

import importlib
import sys

from generate import ARTEFACTS, ROOT

if __name__ == "__main__":
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        raise SystemExit("usage: python -m generate [--check]")
    found = []
    for name in ARTEFACTS:
        module = importlib.import_module(f"generate.{name}")
        for path in module.stale() if check else module.write():
            found.append(path)
            print(f"{'stale' if check else 'wrote'}: {path.relative_to(ROOT)} ({name})")
    if check and found:
        raise SystemExit("generated files are stale: run `make generate` and commit them")
