"""The console's words in German and English: each area's module holds `TEXTS`, key ->
(German, English); `translate` picks one and fills its {placeholders}. A key used in a template
but missing here fails the tests (tests/unit/test_console_texts.py), not a page."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

from chalicelib.console.texts import activity, auth, common, connect, data, keys, members, oauth, sandboxes, webhooks

CATALOGUE: dict[str, tuple[str, str]] = {}
for _module in (common, auth, keys, connect, webhooks, activity, data, members, oauth, sandboxes):
    for _key, _pair in _module.TEXTS.items():
        assert _key not in CATALOGUE, f"console text {_key!r} is defined twice"
        CATALOGUE[_key] = _pair


def translate(lang: str, key: str, **values: Any) -> str:
    german, english = CATALOGUE[key]
    text = german if lang == "de" else english
    return text.format(**values) if values else text


def translate_markup(lang: str, key: str, **values: Any) -> Markup:
    """`translate` for values that are markup (a time element, a named entity): the text escaped,
    then filled; a value that is no markup is escaped as it is filled in."""
    german, english = CATALOGUE[key]
    return Markup(escape(german if lang == "de" else english)).format(**values)
