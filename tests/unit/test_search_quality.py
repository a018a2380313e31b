"""Tool search quality on the labelled query set (tests/search_queries.json: 60 English and
60 German queries an agent would type, each with the tools that answer it), through the
embedded backend. The floors sit a little under the figures measured when the set was made
(README); a change that makes search worse fails here."""

from __future__ import annotations

import pytest

from chalicelib import registry
from chalicelib.mcp import catalogue
from chalicelib.search import quality, service

FLOORS = {"en": (0.80, 0.58), "de": (0.62, 0.47)}  # (recall@5, MRR)


@pytest.fixture(scope="module")
def scores() -> dict[str, quality.Score]:
    registry.load_all()
    names = [op.name for op in catalogue.domain_operations()]

    def search(query: str, language: str) -> list[str]:
        return [hit.id for hit in service.search_tools(query, language=language, names=names, limit=10, offset=0).hits]

    return quality.evaluate(search, quality.load_queries())


@pytest.mark.parametrize("language", ["en", "de"])
def test_recall_and_mrr_stay_above_their_floors(scores: dict[str, quality.Score], language: str) -> None:
    score = scores[language]
    recall_floor, mrr_floor = FLOORS[language]
    print(f"\n{language}: {score.queries} queries, recall@5 {score.recall_at_5:.3f}, MRR {score.mrr:.3f}")
    assert score.queries == 60
    assert score.recall_at_5 >= recall_floor, score.misses
    assert score.mrr >= mrr_floor, score.misses


def test_the_language_of_each_query_is_recognised() -> None:
    wrong = [q["query"] for q in quality.load_queries() if service.detect_language(q["query"]) != q["language"]]
    assert wrong == []


def test_the_query_set_names_only_existing_tools() -> None:
    registry.load_all()
    known = {op.name for op in catalogue.domain_operations()}
    assert all(set(q["relevant"]) <= known for q in quality.load_queries())
