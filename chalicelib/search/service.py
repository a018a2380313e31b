"""Tool and docs search as the meta-tools use it: picks the backend (PM_SEARCH_BACKEND:
`embedded`, the default, or `opensearch`), embeds the query, guesses its language when the
caller does not say it."""

from __future__ import annotations

import threading
from functools import lru_cache

from chalicelib import config, registry
from chalicelib.search import embedding, fit, glossary, rerank, terms
from chalicelib.search.backend import Page, SearchBackend

_lock = threading.Lock()
_backend: SearchBackend | None = None

# Function words and common verbs: they mark a query's language when no thesaurus term does.
_GERMAN_WORDS = frozenset(
    "der die das den dem des ein eine einen einem einer eines und oder für mit von vom zu zum zur im in auf aus bei "
    "nach über wie was wer wo wann warum alle allen als ist sind hat haben wird werden war nicht kein keine noch schon "
    "welche welcher welches unser unsere meine meiner mein sich auch nur anlegen erstellen erfassen eintragen "
    "hinterlegen ablegen notieren ergänzen aendern ändern löschen loeschen entfernen anzeigen suchen finden auflisten "
    "hochladen herunterladen zuweisen wiederherstellen zusammenführen neue neuen neuer neues zeige zeig liste stand "
    "letzte letzten gestern heute ich wir mir mich uns bitte wieder senden schicken testen prüfen aktivieren "
    "deaktivieren einrichten abrufen nachsehen gibt es hier dort sein seine ihre ihr den erneut ausliefern".split()
)
_ENGLISH_WORDS = frozenset(
    "the a an of for to in on at from by with and or all my our their his her its is are was were be been has have had "
    "does do did which who whom whose what when where why how that this these those there new show list find get "
    "create add update change delete remove restore record register look up open read send set tell".split()
)


def backend() -> SearchBackend:
    global _backend
    with _lock:
        if _backend is None:
            _backend = _build()
        return _backend


def _build() -> SearchBackend:
    from chalicelib.search import corpus  # cold start: the corpus reads the examples and the thesaurus

    kind = config.search_backend()
    if kind == "opensearch":
        from chalicelib.opensearch_client import client_from_env  # cold start: only PM_SEARCH_BACKEND=opensearch
        from chalicelib.search.opensearch_backend import OpenSearchBackend  # cold start: as above

        return OpenSearchBackend(client_from_env(), prefix=config.opensearch_prefix())
    if kind != "embedded":
        raise ValueError(f"PM_SEARCH_BACKEND must be 'embedded' or 'opensearch', not {kind!r}")
    from chalicelib.search.embedded import (  # cold start: bm25s and the BM25 indexes load on the first search
        EmbeddedBackend,
    )

    ops = registry.domain_operations()
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
    """'de' when the query reads German (German words, thesaurus terms, umlauts), else 'en'.
    Names carry umlauts in English queries too ('the Müllers'), so umlauts only tip a tie."""
    lowered = query.casefold().split()
    vocabulary = _vocabulary()
    german = english = 0.0
    for raw in lowered:
        word = raw.strip(".,;:!?()\"'")
        folded = glossary.fold(word)
        german += word in _GERMAN_WORDS or folded in vocabulary["de"]
        english += word in _ENGLISH_WORDS or folded in vocabulary["en"]
    german += 0.5 * any(ch in query for ch in "äöüÄÖÜß")
    return "de" if german > english else "en"


# The backend's best this many are reordered (rerank.py); a page past them keeps its order.
POOL = 50


def search_tools(query: str, *, language: str, names: list[str], limit: int, offset: int) -> Page:
    if not query.strip():
        return backend().search_tools(query, language=language, vector=None, names=names, limit=limit, offset=offset)
    query_vector = embedding.embed_query(query, language)
    ranked = backend().search_tools(
        query, language=language, vector=query_vector.tolist(), names=names, limit=max(POOL, offset + limit), offset=0
    )
    hits = rerank.order(query, ranked.hits[:POOL]) + ranked.hits[POOL:]
    top = next((hit.id for hit in hits if hit.id in registry.REGISTRY), None)  # an index of this release's tools
    best = fit.best_fit(query_vector, top) if top else None
    return Page(hits=hits[offset : offset + limit], total=ranked.total, fit=best)


def search_docs(query: str, *, names: list[str], limit: int, offset: int) -> Page:
    return backend().search_docs(query, names=names, limit=limit, offset=offset)
