"""Every generated page, and the Reference section of mkdocs.yml's nav that lists them."""

from __future__ import annotations

import re
from pathlib import Path

from generate import stale_files, write_files
from generate.reference import operations, tables

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference"
MKDOCS = ROOT / "mkdocs.yml"
# The nav's Reference section sits between these lines of mkdocs.yml, written by `make generate`.
NAV_START = "  # reference: written by `make generate`"
NAV_END = "  # end of reference"


def pages() -> dict[str, str]:
    """docs/reference/<name> -> its Markdown."""
    by_area = operations.areas()
    found = {"index.md": operations.index_page(by_area)}
    found.update({f"{area}.md": operations.area_page(area, ops) for area, ops in by_area.items()})
    found["errors.md"] = tables.errors_page()
    found["configuration.md"] = tables.configuration_page()
    return found


def nav() -> list[str]:
    """The lines of mkdocs.yml's Reference section, markers included."""
    lines = [NAV_START, "  - Reference:", "      - reference/index.md"]
    for area in operations.areas():
        lines.append(f"      - {operations.title_of(area)}: reference/{area}.md")
    lines += [
        "      - Error codes: reference/errors.md",
        "      - Configuration and limits: reference/configuration.md",
    ]
    return [*lines, NAV_END]


def mkdocs_yml(text: str) -> str:
    """mkdocs.yml's text with its Reference section as nav() writes it."""
    pattern = re.compile(re.escape(NAV_START) + r"\n.*?" + re.escape(NAV_END), re.S)
    if not pattern.search(text):
        raise ValueError(f"mkdocs.yml lacks the lines {NAV_START!r} ... {NAV_END!r} around the reference nav")
    return pattern.sub(lambda _: "\n".join(nav()), text)


def expected() -> dict[Path, str]:
    """Every generated page and mkdocs.yml, as the code gives them."""
    wanted = {REFERENCE / name: text for name, text in pages().items()}
    wanted[MKDOCS] = mkdocs_yml(MKDOCS.read_text(encoding="utf-8"))
    return wanted


def _not_generated(wanted: dict[Path, str]) -> list[Path]:
    """Pages in docs/reference/ that nothing generates any more (removed by `write`)."""
    return sorted(path for path in REFERENCE.glob("*.md") if path not in wanted)


def stale() -> list[Path]:
    wanted = expected()
    return stale_files(wanted, extra=_not_generated(wanted))


def write() -> list[Path]:
    """Writes docs/reference/ (removing pages no longer generated) and mkdocs.yml's reference nav;
    returns the files changed."""
    wanted = expected()
    return write_files(wanted, extra=_not_generated(wanted))
