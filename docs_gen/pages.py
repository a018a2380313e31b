"""Every generated page, and the Reference section of mkdocs.yml's nav that lists them."""

from __future__ import annotations

import re
from pathlib import Path

from docs_gen import operations, tables

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "reference"
MKDOCS = ROOT / "mkdocs.yml"
# The nav's Reference section sits between these lines of mkdocs.yml, written by `python -m docs_gen`.
NAV_START = "  # reference: written by `python -m docs_gen`"
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


def write() -> list[Path]:
    """Writes docs/reference/ (removing pages no longer generated) and mkdocs.yml's reference nav;
    returns the files changed."""
    REFERENCE.mkdir(parents=True, exist_ok=True)
    wanted = pages()
    changed = []
    for stale in sorted(set(p.name for p in REFERENCE.glob("*.md")) - set(wanted)):
        (REFERENCE / stale).unlink()
        changed.append(REFERENCE / stale)
    for name, text in wanted.items():
        path = REFERENCE / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    current = MKDOCS.read_text(encoding="utf-8")
    if mkdocs_yml(current) != current:
        MKDOCS.write_text(mkdocs_yml(current), encoding="utf-8")
        changed.append(MKDOCS)
    return changed
