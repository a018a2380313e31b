"""The thesaurus data: large enough, consistent, bilingual, and pointing at real operations."""

from __future__ import annotations

from chalicelib.registry import REGISTRY, load_all
from chalicelib.search import terms


def test_the_thesaurus_has_300_concepts_over_8_domains() -> None:
    assert len(terms.domains()) >= 8
    assert len(terms.concepts()) >= 300


def test_the_thesaurus_is_consistent_and_names_only_registered_operations() -> None:
    load_all()
    assert terms.problems(set(REGISTRY)) == []


def test_every_concept_speaks_both_languages() -> None:
    for concept in terms.concepts():
        assert concept.de.preferred and concept.en.preferred, concept.id
        assert len(concept.definition_de) > 20 and len(concept.definition_en) > 20, concept.id


def test_domains_have_names_in_both_languages() -> None:
    for domain in terms.domains().values():
        assert domain.name_de and domain.name_en and domain.concepts, domain.code
