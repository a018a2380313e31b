"""Build-time step: embed every text the search indexes and ship the vectors.

    python -m chalicelib.search.build

Run it after changing an operation's summary or the German glosses; the contract test
`test_search_vectors_are_shipped` fails until then."""

from __future__ import annotations

from chalicelib import registry, resources
from chalicelib.search import corpus, embedding


def texts_to_embed() -> list[str]:
    resources.load_all()
    return [
        text for document in corpus.tool_documents(registry.domain_operations()) for text in document.embedded_texts
    ]


def main() -> None:
    texts = texts_to_embed()
    embedding.write(texts)
    print(f"embedded {len(set(texts))} texts into {embedding.VECTORS}")


if __name__ == "__main__":
    main()
