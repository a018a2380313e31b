"""The thesaurus data: large enough, consistent, bilingual, and pointing at real operations."""

from __future__ import annotations

from chalicelib.registry import REGISTRY
from chalicelib.resources import load_all
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


def first(query: str, **options: object) -> dict[str, object]:
    from chalicelib.search import glossary

    hits = glossary.search(query, **options)  # type: ignore[arg-type]
    assert hits, query
    return hits[0]


def test_a_term_finds_its_concept_first() -> None:
    assert first("Hausgeld")["id"] == "ownership.house-money"
    assert first("Mieterhöhung")["id"] == "rental.rent-increase"


def test_umlauts_fold_and_case_does_not_matter() -> None:
    assert first("mieterhoehung")["id"] == "rental.rent-increase"


def test_an_outdated_term_leads_to_the_current_one() -> None:
    hit = first("Instandhaltungsrücklage")
    assert hit["id"] == "ownership.maintenance-reserve"
    assert hit["match"] == {"term": "Instandhaltungsrücklage", "language": "de", "status": "deprecated", "score": 8.0}
    de = hit["de"]
    assert isinstance(de, dict) and de["preferred"] == "Erhaltungsrücklage"


def test_english_queries_find_german_concepts() -> None:
    assert first("rent increase")["id"] == "rental.rent-increase"
    assert first("maintenance reserve", language="en")["id"] == "ownership.maintenance-reserve"


def test_filters_and_projection() -> None:
    from chalicelib.search import glossary

    only_banking = glossary.search("Lastschrift", domains=["banking"], limit=50)
    assert only_banking and {hit["domain"] for hit in only_banking} == {"banking"}
    german = first("Hausgeld", language="de")
    assert "de" in german and "en" not in german
    assert first("Instandhaltungsrücklage", status=["preferred"])["match"]["term"] != "Instandhaltungsrücklage"
    assert glossary.search("   ") == []


def test_glossary_and_domains() -> None:
    from chalicelib.search import glossary

    entries = glossary.glossary(domain="banking", language="de")
    assert entries == sorted(entries, key=lambda e: glossary.fold(e["term"])) and all(e["definition"] for e in entries)
    listed = glossary.domain_list()
    assert len(listed) >= 8 and sum(d["concepts"] for d in listed) == len(terms.concepts())
