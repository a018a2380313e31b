"""chalicelib/search/data/vectors.npz (`make generate`): every text the tool search indexes,
embedded at build time and shipped. Due after a change of an operation's summary, the German
glosses or the example requests; `make check` and `test_search_vectors_are_shipped` fail until
then. Stale means a text without its vector (a compressed archive is not compared by its bytes)."""

from __future__ import annotations

from pathlib import Path

from chalicelib import registry, resources
from chalicelib.search import corpus, embedding


def texts_to_embed() -> list[str]:
    resources.load_all()
    return [
        text for document in corpus.tool_documents(registry.domain_operations()) for text in document.embedded_texts
    ]


def stale() -> list[Path]:
    return [embedding.VECTORS] if embedding.missing(texts_to_embed()) else []


def write() -> list[Path]:
    texts = texts_to_embed()
    if not embedding.missing(texts):
        return []
    embedding.write(texts)
    return [embedding.VECTORS]
