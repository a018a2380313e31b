"""`python -m docs_gen`: writes docs/reference/ from the code (see the package's docstring)."""

from __future__ import annotations

from docs_gen.pages import write

if __name__ == "__main__":
    for path in write():
        print(path)
