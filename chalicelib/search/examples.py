"""Example requests per domain tool, in English and German: how users ask for what the tool
does ("add a new tenant", "neuen Mieter anlegen"). Indexed beside the tool's summary (both
languages embedded, the English ones in its BM25 text), they carry the words users use that
a summary does not.

The data lives in examples/<first name segment>.json, `{"tool.name": {"en": [...], "de":
[...]}}`; a new tool needs at least three requests per language there (a contract test
insists), each short, generic, and about this tool rather than its neighbours."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("examples")
LANGUAGES = ("en", "de")
MINIMUM = 3  # per tool and language


@lru_cache(maxsize=1)
def _all() -> dict[str, dict[str, tuple[str, ...]]]:
    found: dict[str, dict[str, tuple[str, ...]]] = {}
    for path in sorted(DATA.glob("*.json")):
        for name, requests in json.loads(path.read_text(encoding="utf-8")).items():
            found[name] = {language: tuple(requests.get(language, ())) for language in LANGUAGES}
    return found


def tools() -> list[str]:
    """The tools that have example requests."""
    return sorted(_all())


def of(name: str, language: str) -> tuple[str, ...]:
    return _all().get(name, {}).get(language, ())


def problems(tool_names: set[str]) -> list[str]:
    """Tools with too few examples, examples of unknown tools, files named after the wrong segment."""
    found = [f"{name}: no such tool" for name in sorted(set(_all()) - tool_names)]
    for name in sorted(tool_names):
        found += [
            f"{name}: fewer than {MINIMUM} {language} examples"
            for language in LANGUAGES
            if len(of(name, language)) < MINIMUM
        ]
    for path in sorted(DATA.glob("*.json")):
        found += [
            f"{path.name}: {name} belongs in {name.split('.')[0]}.json"
            for name in json.loads(path.read_text())
            if name.split(".")[0] != path.stem
        ]
    return found
