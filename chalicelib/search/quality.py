"""Search quality on a labelled query set (tests/search_queries.json): recall@5 and mean
reciprocal rank per language, through the same path meta.tools.search takes (language,
query embedding, backend ranking, the reordering above it). The set has two halves: `dev`, to
tune on, and `heldout`, only reported."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

QUERIES = Path(__file__).resolve().parents[2] / "tests" / "search_queries.json"
NOTHING_FITS = QUERIES.with_name("search_nothing_fits.json")  # requests no tool serves

Search = Callable[[str, str], list[str]]  # (query, language) -> tool names, best first


@dataclass
class Score:
    queries: int = 0
    recall_at_5: float = 0.0
    mrr: float = 0.0
    misses: list[dict[str, Any]] = field(default_factory=list)  # first relevant tool not in the top 5


HALVES = ("dev", "heldout")


def load_queries(path: Path = QUERIES, *, half: str | None = None) -> list[dict[str, Any]]:
    queries = json.loads(path.read_text(encoding="utf-8"))["queries"]
    return [q for q in queries if half is None or q["half"] == half]


def evaluate(search: Search, queries: list[dict[str, Any]]) -> dict[str, Score]:
    scores: dict[str, Score] = {}
    for entry in queries:
        relevant = entry["relevant"]
        found = search(entry["query"], entry["language"])
        score = scores.setdefault(entry["language"], Score())
        score.queries += 1
        score.recall_at_5 += len(set(found[:5]) & set(relevant)) / len(relevant)
        rank = next((i + 1 for i, name in enumerate(found) if name in relevant), None)
        score.mrr += 1 / rank if rank else 0.0
        if rank is None or rank > 5:
            score.misses.append({"query": entry["query"], "relevant": relevant, "found": found[:3]})
    for score in scores.values():
        score.recall_at_5 /= score.queries
        score.mrr /= score.queries
    return scores


def load_nothing_fits(path: Path = NOTHING_FITS) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text(encoding="utf-8"))["requests"])


Fits = Callable[[str, str], bool]  # (query, language) -> the answer says nothing fits


@dataclass
class Flagged:
    requests: int = 0
    flagged: int = 0

    @property
    def rate(self) -> float:
        return self.flagged / self.requests if self.requests else 0.0


def flagged(says_nothing_fits: Fits, requests: list[dict[str, Any]]) -> dict[str, Flagged]:
    """Per language, how many of the requests the search says nothing fits."""
    found: dict[str, Flagged] = {}
    for entry in requests:
        counted = found.setdefault(entry["language"], Flagged())
        counted.requests += 1
        counted.flagged += says_nothing_fits(entry["query"], entry["language"])
    return found
