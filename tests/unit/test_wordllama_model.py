"""Our reading of WordLlama's data (chalicelib/search/wordllama_model.py) against the package's
own code: the same token ids as the `tokenizers` library on every text the search indexes and
every labelled query, and the same vectors as WordLlama's inference."""

from __future__ import annotations

import numpy as np
import pytest
import tokenizers  # a development dependency (wordllama's)

from chalicelib import registry, resources
from chalicelib.search import corpus, quality, wordllama_model

ODD = ["", " ", "  two  spaces ", "Ä😀 x", "naïve café — 12,50 €", "\t", "ÜBERSICHT", "a" * 300]


def _texts() -> list[str]:
    resources.load_all()
    indexed = [text for doc in corpus.tool_documents(registry.domain_operations()) for text in doc.embedded_texts]
    return indexed + [q["query"] for q in quality.load_queries()] + ODD


@pytest.mark.slow
def test_token_ids_are_the_tokenizers_library_s() -> None:
    reference = tokenizers.Tokenizer.from_file(str(wordllama_model.data_dir() / wordllama_model.TOKENIZER))
    texts = _texts()
    differing = [
        text
        for text in texts
        if wordllama_model.token_ids(text) != reference.encode(text, add_special_tokens=False).ids
    ]
    assert len(texts) > 5000 and differing == []


def test_vectors_are_wordllama_s_own() -> None:
    from wordllama import WordLlama

    model = WordLlama.load(cache_dir=wordllama_model.data_dir(), disable_download=True)
    # WordLlama divides an empty text's zero vector by its zero norm (NaN): "" is checked below instead
    texts = [text for text in _texts()[::20] if text] + ODD[1:]
    np.testing.assert_allclose(wordllama_model.embed(texts), model.embed(texts, norm=True), atol=1e-5)


def test_a_text_without_tokens_is_a_zero_vector() -> None:
    assert not wordllama_model.embed([""]).any()
