"""What an entity index holds and answers (Entry, Hit), the interface every engine offers (Engine),
and the matching rule both engines share (FUZZY_MIN, TERMS_PER_WORD): the embedded one
(engine.py, which also chooses the process's engine) and OpenSearch's (opensearch_engine.py)
import it from here, so that the second needs nothing of the first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

FUZZY_MIN = 5  # a word of this many letters may hold one typo
TERMS_PER_WORD = 20  # a word's fuzzy alternatives at most


@dataclass(frozen=True)
class Entry:
    """One entity as the index holds it."""

    tenant_id: str
    type: str
    id: str
    object_id: str | None  # the object it belongs to (an object: itself), for the objectId filter
    name: str
    fields: tuple[tuple[str, str], ...]  # (field, text) in the catalogue's order


@dataclass(frozen=True)
class Hit:
    type: str
    id: str
    object_id: str | None
    name: str
    fields: tuple[tuple[str, str], ...]
    rank: float  # the engine's relevance, lower is better (FTS5's bm25)


class Engine(Protocol):
    def put_rows(self, entries: list[Entry]) -> None: ...  # each replaces what the index held of it
    def drop_rows(self, tenant_id: str, entity_ids: list[str]) -> None: ...
    def search_rows(
        self, tenant_id: str, words: list[str], *, types: list[str], object_id: str | None, cap: int
    ) -> tuple[list[Hit], bool]: ...  # up to `cap` hits, best first, and whether more matched
    def clear_tenant(self, tenant_id: str) -> None: ...
    def tenant_rows(self, tenant_id: str) -> list[Entry]: ...  # every row of the tenant, by id
