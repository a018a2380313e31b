"""Figures in the hand-written pages that the code gives (`make generate`): each stands between
`<!-- count: <name> -->` and `<!-- /count -->` (invisible on GitHub and on the docs site) and is
rewritten from the registry, so no page says "~148" where 171 exist. The names are COUNTS' keys;
a marker naming another fails the check."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from chalicelib import registry, resources
from generate import ROOT, stale_files, write_files

COUNTS: dict[str, Callable[[], int]] = {
    # MCP's domain tools: one per REST operation (registry.domain_operations), beside the meta-tools
    "domain_tools": lambda: len(registry.domain_operations()),
    # the operations of the v2 surface, each in the OpenAPI document of a key holding every scope
    "v2_operations": lambda: sum(op.surface == "v2" for op in resources.load_all().values()),
}
MARKED = re.compile(r"(<!-- count: ([a-z_0-9]+) -->)(.*?)(<!-- /count -->)")
# Where figures stand: the README and the docs site's pages; the changelog keeps the figures of
# its day, and the generated reference pages are written whole.
SKIPPED = ("docs/changelog.md", "docs/reference/")


def pages() -> list[Path]:
    found = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [path for path in found if not str(path.relative_to(ROOT)).startswith(SKIPPED)]


def filled(text: str, where: Path) -> str:
    """`text` with every marked figure as the code gives it."""
    resources.load_all()

    def figure(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in COUNTS:
            raise ValueError(f"{where}: no count named {name!r}; one of {', '.join(sorted(COUNTS))}")
        return f"{match.group(1)}{COUNTS[name]()}{match.group(4)}"

    return MARKED.sub(figure, text)


def expected() -> dict[Path, str]:
    wanted = {}
    for path in pages():
        text = path.read_text(encoding="utf-8")
        if "<!-- count: " in text:
            wanted[path] = filled(text, path)
    return wanted


def stale() -> list[Path]:
    return stale_files(expected())


def write() -> list[Path]:
    return write_files(expected())
