"""The figures the hand-written pages give of the registry are generated (generate/counts.py):
no page says "~148" where 171 exist."""

from __future__ import annotations

import re

from chalicelib import registry, resources
from generate import ROOT, counts

RUN = "run `make generate` (generate/counts.py rewrites the marked figures)"


def test_the_marked_figures_are_the_code_s() -> None:
    assert counts.stale() == [], RUN


def test_the_tool_count_is_marked_wherever_it_is_stated() -> None:
    resources.load_all()
    tools = len(registry.domain_operations())
    marked = f"<!-- count: domain_tools -->{tools}<!-- /count -->"
    for page in ("README.md", "docs/index.md", "docs/concepts/mcp.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        assert marked in text, page
        # a figure of domain tools written by hand beside it (approximate or not) would go stale
        assert not re.search(r"(?<!-->)~?\b\d{2,3} domain tools", text.replace(marked + " domain tools", "")), page


def test_an_unknown_count_is_refused() -> None:
    try:
        counts.filled("<!-- count: nonsense -->1<!-- /count -->", ROOT / "README.md")
    except ValueError as error:
        assert "nonsense" in str(error)
    else:
        raise AssertionError("an unknown count passed")
