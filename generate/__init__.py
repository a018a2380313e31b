"""Everything derived from the registry and the code that is committed, made by one command:

    .venv/bin/python -m generate           (`make generate`: rewrites what is stale)
    .venv/bin/python -m generate --check   (`make check`: names each stale file, exits 1)

One module per artefact, each with `stale()` (the files that differ from what the code gives)
and `write()` (rewrites those, returns them):

- arg_types: chalicelib/arg_types.py, a TypedDict of every operation's arguments, for mypy;
- counts: the figures the hand-written pages (README.md, docs/) state of the registry, such as
  the number of MCP domain tools, between `<!-- count: <name> -->` markers;
- reference: docs/reference/ and the reference nav of mkdocs.yml, the docs site's generated pages;
- template: infra/merge-template.json, the CloudFormation merge template;
- vectors: chalicelib/search/data/vectors.npz, the tool search's embedded texts.

The package lives beside chalicelib, not in it: no Lambda bundle carries it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARTEFACTS = ("arg_types", "counts", "reference", "template", "vectors")


def stale_files(expected: dict[Path, str], *, extra: list[Path] | None = None) -> list[Path]:
    """The files whose text is not the expected one (missing ones included), and `extra` files
    that should not exist any more."""
    differing = [path for path, text in expected.items() if not path.exists() or path.read_text("utf-8") != text]
    return sorted([*differing, *(extra or [])])


def write_files(expected: dict[Path, str], *, extra: list[Path] | None = None) -> list[Path]:
    """Writes the files that differ, removes `extra`; returns what changed."""
    changed = stale_files(expected, extra=extra)
    for path in changed:
        if path in expected:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(expected[path], encoding="utf-8")
        else:
            path.unlink()
    return changed
