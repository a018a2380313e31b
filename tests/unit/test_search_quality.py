"""Tool search quality on the labelled query set (tests/search_queries.json: requests in
users' words, English and German, each with the tools that answer it), through the embedded
backend and the ranking above it. The floors hold on the held-out half, which nothing is
tuned on (the development half is what the ranking was tuned with; bench/search.py reports
both)."""

from __future__ import annotations

import pytest

from chalicelib import registry, resources
from chalicelib.search import examples, fit, quality, service

# (recall@5, MRR) per language on the held-out half, just under what holds on 3 December (en 0.997 /
# 0.931, de 0.974 / 0.929; docs/benchmarks.md, "Tool search"). Issue 53's goal, recall@5 >= 0.98 and
# MRR >= 0.92, is met but for German recall@5; issue 17's was 0.97 / 0.90. Before issue 17 the
# held-out half measured en 0.72 / 0.54 and de 0.62 / 0.44
FLOORS = {"en": (0.99, 0.93), "de": (0.97, 0.92)}


@pytest.fixture(scope="module")
def held_out() -> dict[str, quality.Score]:
    resources.load_all()
    names = [op.name for op in registry.domain_operations()]

    def search(query: str, language: str) -> list[str]:
        return [hit.id for hit in service.search_tools(query, language=language, names=names, limit=10, offset=0).hits]

    return quality.evaluate(search, quality.load_queries(half="heldout"))


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", "de"])
def test_recall_and_mrr_on_the_held_out_half(held_out: dict[str, quality.Score], language: str) -> None:
    score = held_out[language]
    recall_floor, mrr_floor = FLOORS[language]
    print(f"\n{language}: {score.queries} queries, recall@5 {score.recall_at_5:.3f}, MRR {score.mrr:.3f}")
    # the misses are not printed: the held-out half is not to be tuned on (the bench lists the development half's)
    assert score.recall_at_5 >= recall_floor, (
        f"{len(score.misses)} of {score.queries} without a relevant tool in the top 5"
    )
    assert score.mrr >= mrr_floor


@pytest.fixture(scope="module")
def says_nothing_fits() -> quality.Fits:
    resources.load_all()
    names = [op.name for op in registry.domain_operations()]

    def says(query: str, language: str) -> bool:
        page = service.search_tools(query, language=language, names=names, limit=5, offset=0)
        return page.fit is not None and fit.nothing_fits(page.fit, language)

    return says


# Of the requests no tool serves (tests/search_nothing_fits.json), the share the answer flags: 7 of 12
# per language on 2 December, with the floors of search/fit.py set from the development half alone
NOTHING_FITS_FLOOR = 0.5


@pytest.mark.slow
def test_nothing_fits_is_said_of_most_requests_no_tool_serves_and_of_no_labelled_one(
    says_nothing_fits: quality.Fits,
) -> None:
    unserved = quality.flagged(says_nothing_fits, quality.load_nothing_fits())
    labelled = quality.flagged(says_nothing_fits, quality.load_queries(half="heldout"))
    for language in ("en", "de"):
        print(
            f"\n{language}: nothing fits {unserved[language].flagged} of {unserved[language].requests} unserved, "
            f"{labelled[language].flagged} of {labelled[language].requests} held-out labelled"
        )
        assert unserved[language].rate >= NOTHING_FITS_FLOOR
        assert labelled[language].flagged == 0


def test_the_set_is_big_enough_bilingual_and_covers_every_tool_in_both_halves() -> None:
    resources.load_all()
    tools = {op.name for op in registry.domain_operations()}
    queries = quality.load_queries()
    assert len(queries) >= 400 and sum(q["language"] == "de" for q in queries) >= 200
    assert all(set(q["relevant"]) <= tools for q in queries), "only existing tools"
    assert {q["half"] for q in queries} == set(quality.HALVES)
    for half in quality.HALVES:
        for language in ("en", "de"):
            covered = {q["relevant"][0] for q in queries if q["half"] == half and q["language"] == language}
            assert covered == tools, f"{half}/{language} lacks {sorted(tools - covered)}"


def test_the_language_of_each_query_is_recognised() -> None:
    wrong = [q["query"] for q in quality.load_queries() if service.detect_language(q["query"]) != q["language"]]
    assert wrong == []


def test_every_tool_has_example_requests_and_none_is_a_labelled_query() -> None:
    resources.load_all()
    tools = {op.name for op in registry.domain_operations()}
    assert examples.problems(tools) == []
    asked = {q["query"].casefold().strip(" ?.!") for q in quality.load_queries()}
    shown = {
        e.casefold().strip(" ?.!")
        for name in tools
        for language in examples.LANGUAGES
        for e in examples.of(name, language)
    }
    assert sorted(asked & shown) == [], "an example request that is a labelled query measures nothing"
