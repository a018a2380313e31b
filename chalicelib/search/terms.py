"""The property-management thesaurus: concepts in domains, each with German and English terms
(one preferred, admitted synonyms and abbreviations, deprecated ones still in use), a
definition per language, broader and related concepts, and the API operations it is about.

The data lives in thesaurus/<domain>.json, one file per domain; `problems()` lists what is
inconsistent in it (the tests insist on none)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).with_name("thesaurus")
LANGUAGES = ("de", "en")


@dataclass(frozen=True)
class Terms:
    preferred: str
    admitted: tuple[str, ...]
    deprecated: tuple[str, ...]

    def all(self) -> tuple[str, ...]:
        return (self.preferred, *self.admitted, *self.deprecated)


@dataclass(frozen=True)
class Concept:
    id: str
    domain: str
    de: Terms
    en: Terms
    definition_de: str
    definition_en: str
    broader: tuple[str, ...]
    related: tuple[str, ...]
    operations: tuple[str, ...]

    def terms(self, language: str) -> Terms:
        return self.de if language == "de" else self.en


@dataclass(frozen=True)
class Domain:
    code: str
    name_de: str
    name_en: str
    description_de: str
    description_en: str
    concepts: tuple[Concept, ...]


def _terms(raw: dict[str, object]) -> Terms:
    return Terms(
        str(raw["preferred"]),
        tuple(map(str, raw.get("admitted") or [])),  # type: ignore[call-overload]
        tuple(map(str, raw.get("deprecated") or [])),  # type: ignore[call-overload]
    )


@lru_cache(maxsize=1)
def domains() -> dict[str, Domain]:
    found: dict[str, Domain] = {}
    for path in sorted(DATA.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        code = raw["domain"]
        concepts = tuple(
            Concept(
                id=c["id"],
                domain=code,
                de=_terms(c["de"]),
                en=_terms(c["en"]),
                definition_de=c["definitionDe"],
                definition_en=c["definitionEn"],
                broader=tuple(c.get("broader") or []),
                related=tuple(c.get("related") or []),
                operations=tuple(c.get("operations") or []),
            )
            for c in raw["concepts"]
        )
        found[code] = Domain(code, raw["nameDe"], raw["nameEn"], raw["descriptionDe"], raw["descriptionEn"], concepts)
    return found


def concepts() -> list[Concept]:
    return [concept for domain in domains().values() for concept in domain.concepts]


def problems(operation_names: set[str] | None = None) -> list[str]:
    """What is inconsistent: duplicate ids or preferred terms, dangling references, empty
    terms or definitions, unknown operations (when their names are given)."""
    found: list[str] = []
    everything = concepts()
    ids = [c.id for c in everything]
    found += [f"duplicate id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    known = set(ids)
    for concept in everything:
        if not concept.id.startswith(concept.domain + "."):
            found.append(f"{concept.id}: id does not start with its domain {concept.domain}")
        for ref in (*concept.broader, *concept.related):
            if ref not in known:
                found.append(f"{concept.id}: unknown reference {ref}")
        for language in LANGUAGES:
            if not concept.terms(language).preferred.strip():
                found.append(f"{concept.id}: no preferred {language} term")
        if not concept.definition_de.strip() or not concept.definition_en.strip():
            found.append(f"{concept.id}: a definition is missing")
        if operation_names is not None:
            found += [f"{concept.id}: unknown operation {op}" for op in concept.operations if op not in operation_names]
    for language in LANGUAGES:
        preferred = [c.terms(language).preferred.casefold() for c in everything]
        found += [
            f"preferred {language} term {t!r} used twice"
            for t in sorted({t for t in preferred if preferred.count(t) > 1})
        ]
    return found
