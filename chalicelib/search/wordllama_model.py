"""WordLlama's static token embeddings (the `wordllama` package, MIT: model l2_supercat, 256
dimensions): a text's vector is the mean of its tokens' vectors. The second of the two
embedding models (embedding.py); it reads German requests better than the sentence encoder
alone does (measured on the development half, see docs/concepts/mcp.md, "How tool search ranks").

Only the package's data is used, not its code: its inference imports the Rust `tokenizers`
library, `safetensors` and compiled helpers (about 30 MB the MCP bundle has no room for), while
what it computes is small: the Llama-2 tokenizer is a byte-level-fallback BPE without a
pre-tokenizer (prepend "▁", spaces become "▁", then merges by rank), and the vectors come from
a safetensors file, which is a JSON header and a raw array. tests/unit/test_wordllama_model.py holds
this tokenizer to the `tokenizers` library's on every indexed text and labelled query.

Where the data is: the installed `wordllama` package (development), or the same two files,
vendored by infra/package.py without code or dependencies and set aside from the MCP bundle,
fetched by the function on its first search (model_files.py)."""

from __future__ import annotations

import heapq
import json
import struct
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

import numpy as np

from chalicelib.search import model_files

DIMENSION = 256
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
_SPACE = "\u2581"  # SentencePiece's word boundary


def data_dir() -> Path:
    """The `wordllama` package's folder (found without importing it: its __init__ loads the
    libraries this module avoids), or where the MCP function fetched its files (model_files)."""
    return model_files.path("wordllama")


class _Bpe:
    """The tokenizer file's BPE model: merges applied lowest rank first, pieces outside the
    vocabulary spelled as their UTF-8 bytes (<0xNN>)."""

    def __init__(self, config: dict[str, object]) -> None:
        model = config["model"]
        assert isinstance(model, dict) and model["type"] == "BPE" and model["byte_fallback"], (
            "a byte-fallback BPE model"
        )
        self.vocab: dict[str, int] = model["vocab"]
        merges = [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model["merges"]]
        self.ranks: dict[tuple[str, str], int] = {(a, b): rank for rank, (a, b) in enumerate(merges)}
        self.unknown = self.vocab[model["unk_token"]]

    def ids(self, text: str) -> list[int]:
        if not text:
            return []
        pieces = list(_SPACE + text.replace(" ", _SPACE))  # "" once merged into the piece before it
        # Merges lowest rank first, equal ranks leftmost first, as the `tokenizers` library
        # merges (a heap of candidate pairs over a linked list of pieces): one pass over
        # the text plus a heap step per merge, where a scan of every pair per merge was
        # quadratic in the text's length.
        after = [*range(1, len(pieces)), -1]
        before = list(range(-1, len(pieces) - 1))
        ranks = self.ranks
        heap = [(rank, i) for i, pair in enumerate(pairwise(pieces)) if (rank := ranks.get(pair)) is not None]
        heapq.heapify(heap)
        while heap:
            rank, left = heapq.heappop(heap)
            right = after[left]
            if not pieces[left] or right == -1 or ranks.get((pieces[left], pieces[right])) != rank:
                continue  # a pair that a merge before it took apart
            merged = pieces[left] + pieces[right]
            pieces[left], pieces[right] = merged, ""
            after[left] = after[right]
            if after[left] != -1:
                before[after[left]] = left
                if (rank := ranks.get((merged, pieces[after[left]]))) is not None:
                    heapq.heappush(heap, (rank, left))
            if before[left] != -1 and (rank := ranks.get((pieces[before[left]], merged))) is not None:
                heapq.heappush(heap, (rank, before[left]))
        found: list[int] = []
        for piece in filter(None, pieces):
            if piece in self.vocab:
                found.append(self.vocab[piece])
            else:
                found += [self.vocab.get(f"<0x{byte:02X}>", self.unknown) for byte in piece.encode("utf-8")]
        return found


@lru_cache(maxsize=1)
def _model() -> tuple[_Bpe, np.ndarray]:
    folder = data_dir()
    bpe = _Bpe(json.loads((folder / TOKENIZER).read_text(encoding="utf-8")))
    return bpe, _safetensor(folder / WEIGHTS, "embedding.weight")


def _safetensor(path: Path, name: str) -> np.ndarray:
    """One tensor of a safetensors file: 8 bytes of header length, the JSON header (dtype,
    shape, byte offsets after the header), then the data."""
    with path.open("rb") as file:
        (length,) = struct.unpack("<Q", file.read(8))
        header = json.loads(file.read(length))
        entry = header[name]
        start, end = entry["data_offsets"]
        file.seek(8 + length + start)
        raw = file.read(end - start)
    dtype = {"F16": np.float16, "F32": np.float32, "BF16": None}[entry["dtype"]]
    if dtype is None:
        raise ValueError("bfloat16 weights are not supported")
    return np.frombuffer(raw, dtype=dtype).reshape(entry["shape"]).astype(np.float32)


def token_ids(text: str) -> list[int]:
    return _model()[0].ids(text)


def embed(texts: list[str]) -> np.ndarray:
    """Unit vectors, one row per text (a text without tokens: zeros)."""
    bpe, weights = _model()
    matrix = np.zeros((len(texts), DIMENSION), dtype=np.float32)
    for row, text in enumerate(texts):
        ids = bpe.ids(text)
        if ids:
            matrix[row] = weights[np.clip(ids, 0, len(weights) - 1)].mean(axis=0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)  # type: ignore[no-any-return]
