"""Tool and docs search as the meta-tools use it: picks the backend (PM_SEARCH_BACKEND:
`embedded`, the default, or `opensearch`), embeds the query, guesses its language when the
caller does not say it."""

from __future__ import annotations

import os
import threading
from functools import lru_cache

from chalicelib.search import embedding, glossary, terms
from chalicelib.search.backend import Page, SearchBackend

_lock = threading.Lock()
_backend: SearchBackend | None = None

# Words that mark a query as German even when no thesaurus term is in it.
_GERMAN_WORDS = frozenset(
    "der die das den dem des ein eine einen einem einer und oder für mit von zu im in auf aus bei nach über wie was wer wo alle "
    "anlegen erstellen erfassen ändern aendern löschen loeschen anzeigen suchen finden auflisten hochladen zuweisen wiederherstellen "
    "zusammenführen neue neuen neuer neues meine meiner unsere welche welcher zeige zeig liste".split()
)


def backend() -> SearchBackend:
    global _backend
    with _lock:
        if _backend is None:
            _backend = _build()
        return _backend


def _build() -> SearchBackend:
    from chalicelib.mcp import catalogue
    from chalicelib.search import corpus

    kind = os.environ.get("PM_SEARCH_BACKEND", "embedded")
    if kind == "opensearch":
        from chalicelib.search.opensearch_backend import OpenSearchBackend, client_from_env

        return OpenSearchBackend(client_from_env(), prefix=os.environ.get("PM_OPENSEARCH_PREFIX", "pm"))
    if kind != "embedded":
        raise ValueError(f"PM_SEARCH_BACKEND must be 'embedded' or 'opensearch', not {kind!r}")
    from chalicelib.search.embedded import EmbeddedBackend

    ops = catalogue.domain_operations()
    return EmbeddedBackend(corpus.tool_documents(ops), corpus.docs_documents(ops))


@lru_cache(maxsize=1)
def _vocabulary() -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {"de": set(), "en": set()}
    for concept in terms.concepts():
        for language in ("de", "en"):
            for term in concept.terms(language).all():
                found[language].update(glossary.words(term))
    shared = found["de"] & found["en"]  # "Portal", "Webhook": no evidence either way
    return {language: frozenset(words - shared) for language, words in found.items()}


def detect_language(query: str) -> str:
    """'de' when the query reads German (umlauts, German words or thesaurus terms), else 'en'."""
    if any(ch in query for ch in "äöüÄÖÜß"):
        return "de"
    words = glossary.words(query)
    vocabulary = _vocabulary()
    german = sum(1 for w in words if w in _GERMAN_WORDS or w in vocabulary["de"])
    english = sum(1 for w in words if w in vocabulary["en"])
    return "de" if german > english else "en"


def search_tools(query: str, *, language: str, names: list[str], limit: int, offset: int) -> Page:
    vector = embedding.embed_query(query).tolist() if query.strip() else None
    return backend().search_tools(query, language=language, vector=vector, names=names, limit=limit, offset=offset)


def search_docs(query: str, *, names: list[str], limit: int, offset: int) -> Page:
    return backend().search_docs(query, names=names, limit=limit, offset=offset)
