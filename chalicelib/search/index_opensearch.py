"""Deploy-time step for the OpenSearch backend: create the indexes and the hybrid pipeline,
then index every domain tool (text and shipped vectors) and every docs page.

    PM_OPENSEARCH_ENDPOINT=https://... python -m chalicelib.search.index_opensearch

Idempotent: existing indexes are kept and documents overwritten by id."""

from __future__ import annotations

from chalicelib import config, registry, resources
from chalicelib.opensearch_client import client_from_env
from chalicelib.search import corpus, embedding
from chalicelib.search.backend import SearchDocument
from chalicelib.search.opensearch_backend import OpenSearchBackend


def with_vectors(documents: list[SearchDocument]) -> list[SearchDocument]:
    """The tool documents carrying the vectors of their embedded texts."""
    rows = iter(embedding.vectors_for([text for d in documents for text in d.embedded_texts]).tolist())
    return [
        SearchDocument(d.id, d.text, d.embedded_texts, tuple(tuple(next(rows)) for _ in d.embedded_texts))
        for d in documents
    ]


def index_catalogue(backend: OpenSearchBackend) -> tuple[int, int]:
    resources.load_all()
    ops = registry.domain_operations()
    backend.create_indexes(embedding.DIMENSION)
    tools = with_vectors(corpus.tool_documents(ops))
    docs = corpus.docs_documents(ops)
    backend.bulk_index("tools", tools)
    backend.bulk_index("docs", docs)
    return len(tools), len(docs)


def main() -> None:
    backend = OpenSearchBackend(client_from_env(), prefix=config.opensearch_prefix())
    tools, docs = index_catalogue(backend)
    print(f"indexed {tools} tools and {docs} docs pages")


if __name__ == "__main__":
    main()
