"""Searching the thesaurus: what `meta.thesaurus.search`, `meta.thesaurus.glossary` and
`meta.thesaurus.domains` answer (the MCP tools call these).

Matching is on terms, not on prose alone: a query that is a term (or an abbreviation, or an
outdated term still in use) finds its concept first; umlauts and ß fold (Mieterhoehung finds
Mieterhöhung), case is ignored; then terms that contain the query's words, then definitions.
The thesaurus is a few hundred concepts: a scan is microseconds, no index needed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from chalicelib.search import terms
from chalicelib.search.terms import LANGUAGES, Concept

STATUSES = ("preferred", "admitted", "deprecated")
_WEIGHT = {"preferred": 1.0, "admitted": 0.9, "deprecated": 0.8}
_FOLD = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_WORD = re.compile(r"[0-9a-z]+")


def fold(text: str) -> str:
    return text.casefold().translate(_FOLD)


def words(text: str) -> list[str]:
    return _WORD.findall(fold(text))


@lru_cache(maxsize=8192)
def _folded(term: str) -> tuple[str, tuple[str, ...]]:
    """A term's folded form and words, computed once: every search compares them all."""
    return fold(term), tuple(words(term))


@lru_cache(maxsize=1024)
def _definition_words(definition: str) -> frozenset[str]:
    return frozenset(words(definition))


@dataclass(frozen=True)
class Hit:
    concept: Concept
    score: float
    term: str  # the term that matched best ("" for a definition match)
    language: str
    status: str


def _term_score(query: str, query_words: list[str], term: str) -> float:
    folded, term_words = _folded(term)
    if folded == query:
        return 10.0
    if folded.startswith(query) or (query.startswith(folded) and len(folded) >= 3):
        return 6.0
    common = sum(1 for w in query_words if any(t.startswith(w) for t in term_words))
    return 4.0 * common / max(len(query_words), 1) if common else 0.0


def _best(
    concept: Concept, query: str, query_words: list[str], languages: tuple[str, ...], statuses: tuple[str, ...]
) -> Hit | None:
    best: Hit | None = None
    for language in languages:
        pool = concept.terms(language)
        for status, found in (
            ("preferred", (pool.preferred,)),
            ("admitted", pool.admitted),
            ("deprecated", pool.deprecated),
        ):
            if status not in statuses:
                continue
            for term in found:
                score = _term_score(query, query_words, term) * _WEIGHT[status]
                if score and (best is None or score > best.score):
                    best = Hit(concept, score, term, language, status)
    if best is None:
        for language in languages:
            definition = _definition_words(concept.definition_de if language == "de" else concept.definition_en)
            common = sum(1 for w in query_words if w in definition)
            if common:
                score = common / max(len(query_words), 1)
                if best is None or score > best.score:
                    best = Hit(concept, score, "", language, "definition")
    return best


def search(
    query: str,
    *,
    domains: list[str] | None = None,
    status: list[str] | None = None,
    language: str | None = None,
    projection: str | None = None,
    limit: int = 10,
) -> list[dict[str, Any]]:
    """Concepts for a query, best first. `domains` narrows to some domains, `status` to term
    pools (preferred, admitted, deprecated), `language` matches only that language's terms,
    `projection` shows terms and definitions in one language (default: `language`)."""
    languages = (language,) if language in LANGUAGES else LANGUAGES
    statuses = tuple(status) if status else STATUSES
    folded, query_words = fold(query.strip()), words(query)
    if not query_words:
        return []
    hits = [
        hit
        for concept in terms.concepts()
        if not domains or concept.domain in domains
        if (hit := _best(concept, folded, query_words, languages, statuses)) is not None
    ]
    hits.sort(key=lambda h: (-h.score, h.concept.id))
    return [
        describe(hit.concept, projection or language)
        | {"match": {"term": hit.term, "language": hit.language, "status": hit.status, "score": round(hit.score, 2)}}
        for hit in hits[:limit]
    ]


def describe(concept: Concept, language: str | None = None) -> dict[str, Any]:
    """A concept as the tools answer it, in one language or both."""
    answer: dict[str, Any] = {"id": concept.id, "domain": concept.domain}
    for lang in (language,) if language in LANGUAGES else LANGUAGES:
        pool = concept.terms(lang)
        answer[lang] = {
            "preferred": pool.preferred,
            "admitted": list(pool.admitted),
            "deprecated": list(pool.deprecated),
            "definition": concept.definition_de if lang == "de" else concept.definition_en,
        }
    answer.update(broader=list(concept.broader), related=list(concept.related), operations=list(concept.operations))
    return answer


def glossary(*, domain: str | None = None, language: str = "de") -> list[dict[str, str]]:
    """Preferred terms with their definitions, alphabetical (umlauts folded), of one domain or all."""
    entries = [
        {
            "id": c.id,
            "term": c.terms(language).preferred,
            "definition": c.definition_de if language == "de" else c.definition_en,
        }
        for c in terms.concepts()
        if domain is None or c.domain == domain
    ]
    return sorted(entries, key=lambda e: fold(e["term"]))


def domain_list() -> list[dict[str, Any]]:
    return [
        {
            "code": d.code,
            "nameDe": d.name_de,
            "nameEn": d.name_en,
            "descriptionDe": d.description_de,
            "descriptionEn": d.description_en,
            "concepts": len(d.concepts),
        }
        for d in terms.domains().values()
    ]
