"""The cloud search backend: Amazon OpenSearch Service (or Serverless), holding the same documents
as the embedded backend (chalicelib/search/corpus.py) and ranking them the same way: English queries
hybrid (BM25 + best vector, each min-max normalised, weighted BM25_WEIGHT / VECTOR_WEIGHT), other
languages by the best vector alone, an empty query browses by name.

Request shapes follow the OpenSearch documentation; the section each follows is named where it is
built. opensearch-py and boto3 are imported inside functions only (cold start): the embedded backend
never loads them."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any

from chalicelib.search.backend import BM25_WEIGHT, VECTOR_WEIGHT, Hit, Page, SearchDocument

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

# The default `index.max_result_window`: the most a knn `k` or a hybrid `pagination_depth` may ask for.
MAX_WINDOW = 10_000
VECTOR_PATH = "vectors"  # the nested objects; each holds one embedding of the document
VECTOR_FIELD = f"{VECTOR_PATH}.vector"


def index_body(dimension: int) -> dict[str, Any]:
    """The tools index ("k-NN vector", "Nested field search"): a document's vectors are nested
    objects, so a search scores a document by its nearest vector, not by one vector per document.

    Engine: lucene. "Methods and engines" > "Engine recommendations" advises Faiss for large-scale
    use and Lucene for smaller deployments (under 10 million vectors) with filtering during search;
    here a few hundred tools are searched, always filtered to the names a key may see."""
    return {
        "settings": {"index": {"knn": True}},
        "mappings": {
            "properties": {
                "name": {"type": "keyword"},
                "text": {"type": "text", "analyzer": "english"},
                VECTOR_PATH: {
                    "type": "nested",
                    "properties": {
                        "vector": {
                            "type": "knn_vector",
                            "dimension": dimension,
                            "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": "lucene"},
                        }
                    },
                },
            }
        },
    }


def docs_index_body() -> dict[str, Any]:
    """The docs index: BM25 only, so no vectors and no `index.knn`."""
    return {"mappings": {"properties": {"name": {"type": "keyword"}, "text": {"type": "text", "analyzer": "english"}}}}


def pipeline_body() -> dict[str, Any]:
    """The search pipeline ("Normalization processor"): min-max each sub-query's scores, then take a
    weighted arithmetic mean. The weights follow the order of the hybrid sub-queries: [match, knn]."""
    return {
        "description": "BM25 + vector hybrid search for the MCP tool search",
        "phase_results_processors": [
            {
                "normalization-processor": {
                    "normalization": {"technique": "min_max"},
                    "combination": {
                        "technique": "arithmetic_mean",
                        "parameters": {"weights": [BM25_WEIGHT, VECTOR_WEIGHT]},
                    },
                }
            }
        ],
    }


def _names_filter(names: Collection[str]) -> dict[str, Any]:
    return {"terms": {"name": sorted(names)}}


def _nested_knn(vector: Sequence[float], k: int, names_filter: dict[str, Any]) -> dict[str, Any]:
    """A knn clause inside a nested query. "Nested field search" > "Vector search with filtering on
    nested fields": a filter on a top-level field goes inside the knn clause, so the k nearest are
    chosen among the allowed names (a filter outside would drop hits after the top k were picked).
    The nested query's score_mode max: a document scores its best vector ("Retrieving all nested hits")."""
    return {
        "nested": {
            "path": VECTOR_PATH,
            "score_mode": "max",
            "query": {"knn": {VECTOR_FIELD: {"vector": [float(x) for x in vector], "k": k, "filter": names_filter}}},
        }
    }


class OpenSearchBackend:
    def __init__(self, client: OpenSearch, *, prefix: str = "pm") -> None:
        self.client = client
        self.tools_index = f"{prefix}-tools"
        self.docs_index = f"{prefix}-docs"
        self.pipeline = f"{prefix}-hybrid"

    def create_indexes(self, dimension: int) -> None:
        for index, body in ((self.tools_index, index_body(dimension)), (self.docs_index, docs_index_body())):
            if not self.client.indices.exists(index=index):
                self.client.indices.create(index=index, body=body)
        # PUT /_search/pipeline/<id> creates or replaces, so the weights follow backend.py on every deploy.
        self.client.search_pipeline.put(id=self.pipeline, body=pipeline_body())

    def bulk_index(self, index: str, documents: list[SearchDocument]) -> None:
        """Index `documents` into "tools" or "docs" (or the full index name) in one `_bulk` request
        ("Bulk" API: an action line, then the document), visible to search when it returns."""
        name = {"tools": self.tools_index, "docs": self.docs_index}.get(index, index)
        if name not in (self.tools_index, self.docs_index):
            raise ValueError(f"unknown index {index!r}")
        if not documents:
            return
        lines: list[dict[str, Any]] = []
        for doc in documents:
            source: dict[str, Any] = {"name": doc.id, "text": doc.text}
            if doc.vectors:
                source[VECTOR_PATH] = [{"vector": [float(x) for x in vector]} for vector in doc.vectors]
            lines += [{"index": {"_id": doc.id}}, source]
        response = self.client.bulk(body=lines, index=name, refresh=True)
        if response.get("errors"):
            failed = [item for item in response["items"] if "error" in next(iter(item.values()))]
            raise RuntimeError(f"bulk indexing into {name} failed for {len(failed)} documents: {failed[:3]}")

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
        if not names:
            return Page(hits=[], total=0)
        if not query.strip() or vector is None:
            return self._browse(self.tools_index, names, limit, offset)
        names_filter = _names_filter(names)
        # Every allowed tool is a vector candidate, as in the embedded backend: min-max then runs over
        # all of them, and the depth is the same on every page of one key's results.
        depth = min(MAX_WINDOW, len(names))
        if language == "en":
            # "Hybrid query" with the filter on each sub-query, as "Hybrid search with pre-filtering"
            # shows (its top-level `filter` shorthand needs 3.0). "Paginating hybrid query results":
            # `pagination_depth` (2.19+) is required once from > 0 and should not change between pages.
            body = {
                "from": offset,
                "size": limit,
                "_source": False,
                "query": {
                    "hybrid": {
                        "pagination_depth": depth,
                        "queries": [
                            {"bool": {"must": {"match": {"text": query}}, "filter": names_filter}},
                            _nested_knn(vector, depth, names_filter),
                        ],
                    }
                },
            }
            return self._hybrid(body, names_filter)
        # knn alone finds at most k documents: k must reach offset + limit.
        k = min(MAX_WINDOW, max(depth, offset + limit))
        body = {"from": offset, "size": limit, "_source": False, "query": _nested_knn(vector, k, names_filter)}
        response = self.client.search(index=self.tools_index, body=body)
        # "Spaces": a cosinesimil score is (2 - (1 - cos)) / 2; report the cosine, as the embedded backend does.
        return _page(response, total=min(len(names), _total(response)), score=lambda s: 2 * s - 1)

    def _hybrid(self, body: dict[str, Any], names_filter: dict[str, Any]) -> Page:
        from opensearchpy.exceptions import (  # cold start: opensearch-py loads only for the opensearch backend
            TransportError,
        )

        try:
            # The hybrid scores are only combined by the search pipeline, named as a URL parameter.
            return _page(self.client.search(index=self.tools_index, body=body, search_pipeline=self.pipeline))
        except TransportError as error:
            # A page past the last hybrid result is an error, not an empty page (OpenSearch blog,
            # "Navigating pagination in hybrid queries with the pagination_depth parameter" >
            # "Limitations"). The knn sub-query reaches every allowed tool, so the total is the
            # number of allowed tools indexed ("Count" API).
            if "Reached end of search result" not in str(error.info):
                raise
            count = self.client.count(index=self.tools_index, body={"query": names_filter})
            return Page(hits=[], total=int(count["count"]))

    def search_docs(self, query: str, *, names: Collection[str], limit: int, offset: int) -> Page:
        if not names:
            return Page(hits=[], total=0)
        if not query.strip():
            return self._browse(self.docs_index, names, limit, offset)
        # "Boolean query": `match` scores (BM25), the `filter` clause restricts without scoring.
        body = {
            "from": offset,
            "size": limit,
            "_source": False,
            "query": {"bool": {"must": {"match": {"text": query}}, "filter": _names_filter(names)}},
        }
        return _page(self.client.search(index=self.docs_index, body=body))

    def _browse(self, index: str, names: Collection[str], limit: int, offset: int) -> Page:
        # "Sort results": by the keyword `name`; sorted hits carry no score (reported as 0.0).
        body = {
            "from": offset,
            "size": limit,
            "_source": False,
            "query": {"bool": {"must": {"match_all": {}}, "filter": _names_filter(names)}},
            "sort": [{"name": "asc"}],
        }
        return _page(self.client.search(index=index, body=body))


def _total(response: dict[str, Any]) -> int:
    total = response["hits"]["total"]
    return int(total["value"] if isinstance(total, dict) else total)  # an int with rest_total_hits_as_int


def _page(response: dict[str, Any], total: int | None = None, score: Callable[[float], float] = float) -> Page:
    hits = [Hit(hit["_id"], round(score(float(hit.get("_score") or 0.0)), 4)) for hit in response["hits"]["hits"]]
    return Page(hits=hits, total=_total(response) if total is None else total)
