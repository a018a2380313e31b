"""The console's words: every text a page asks for exists in German and English, and every text
in the catalogue is asked for somewhere (by its key, or by a prefix the code completes, as
`"role." + member.role`). A missing text would otherwise fail only on the page that needs it."""

from __future__ import annotations

import re
from pathlib import Path

from chalicelib.console.texts import CATALOGUE

CONSOLE = Path(__file__).resolve().parents[2] / "chalicelib" / "console"
SOURCES = [*CONSOLE.rglob("*.py"), *CONSOLE.rglob("*.html")]
KEY = r"[a-z_]+(?:\.[a-z_0-9]+)+"
# a text asked for by its key: t("...") in templates, translate(lang, "...") and _t(request, "...") in code
ASKED = re.compile(rf"""(?:\bt\(\s*|translate\([^,()]+,\s*|_t\([^,()]+,\s*)["']({KEY})["']""")
# a key completed at run time: "role." + x, f"members.{done}", "activity.type." + name
PREFIXED = re.compile(r"""["']([a-z_]+(?:\.[a-z_]+)*\.)["']\s*\+|f["']([a-z_]+(?:\.[a-z_]+)*\.)\{""")
QUOTED = re.compile(rf"""["']({KEY})["']""")


def _texts() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in SOURCES if "texts" not in path.parts]


def test_every_text_a_page_asks_for_exists() -> None:
    asked = {key for text in _texts() for key in ASKED.findall(text)}
    assert len(asked) > 100
    assert sorted(asked - set(CATALOGUE)) == []


def test_every_text_is_asked_for() -> None:
    sources = _texts()
    quoted = {key for text in sources for key in QUOTED.findall(text)}
    prefixes = {a or b for text in sources for a, b in PREFIXED.findall(text)}
    unused = [key for key in CATALOGUE if key not in quoted and not key.startswith(tuple(prefixes))]
    assert unused == []


def test_every_text_has_both_languages() -> None:
    for key, (german, english) in CATALOGUE.items():
        assert german.strip() and english.strip(), key
        # the same placeholders, in whatever order each language needs them
        assert sorted(re.findall(r"\{(\w+)\}", german)) == sorted(re.findall(r"\{(\w+)\}", english)), key


def test_the_webhook_pages_know_every_url_refusal_they_translate() -> None:
    """The webhook form shows events/targets.py's URL refusals in the page's language, matched
    by their English words: a reworded refusal must fail here, not fall back to English unseen."""
    from chalicelib.console.pages.webhooks import URL_PROBLEMS

    source = (CONSOLE.parent / "events" / "targets.py").read_text(encoding="utf-8")
    assert [message for message in URL_PROBLEMS if message not in source] == []
    assert all(key in CATALOGUE for key in URL_PROBLEMS.values())
