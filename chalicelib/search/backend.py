"""What a search backend offers the MCP meta-tools, whichever engine answers.

Two indexes: `tools` (one document per domain tool: BM25 text in English, one or more
embedding vectors, its kind) and `docs` (one Markdown page per operation, BM25 only). The
caller passes the names the key may see (its scopes, and the kind it asked for); a backend
ranks only those, so paging and totals never count a tool the key cannot use.

Backends: `embedded` (chalicelib/search/embedded.py, in-process BM25 + shipped vectors; the
default and what `make serve` and the tests run) and `opensearch`
(chalicelib/search/opensearch_backend.py), chosen by PM_SEARCH_BACKEND."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

# How the two rankings of an English query are combined: each is min-max normalised over the
# candidates, then weighted. The embedding carries paraphrases, BM25 exact words and names.
BM25_WEIGHT = 0.4
VECTOR_WEIGHT = 0.6
# A tool's semantic score: the mean of its this many texts nearest the query (embedded.py ranks by it,
# fit.py measures whether anything fits by it)
TOP_TEXTS = 5


@dataclass(frozen=True)
class SearchDocument:
    """One thing to find. `vectors` are the embeddings of `embedded_texts` (computed at build
    time; a document's score is its best vector's cosine similarity to the query)."""

    id: str
    text: str  # BM25 text (English: name words, summary, argument names, English thesaurus terms)
    embedded_texts: tuple[str, ...]  # what the vectors embed (English summary, German gloss)
    vectors: tuple[tuple[float, ...], ...] = ()


@dataclass(frozen=True)
class Hit:
    id: str
    score: float


@dataclass(frozen=True)
class Page:
    hits: list[Hit]
    total: int  # candidates matching (for paging)
    fit: float | None = None  # how well the best tool fits the request (search/fit.py); None when browsing


class SearchBackend(Protocol):
    def search_tools(
        self,
        query: str,
        *,
        language: str,
        vector: Sequence[float] | None,
        names: Collection[str],
        limit: int,
        offset: int,
    ) -> Page:
        """Rank the tools among `names`: English hybrid (BM25 + vector), other languages vector only.
        `vector` is the query's embedding (None for an empty query: then browse by name)."""
        ...

    def search_docs(self, query: str, *, names: Collection[str], limit: int, offset: int) -> Page:
        """BM25 over the operations' Markdown pages among `names`; an empty query browses by name."""
        ...
