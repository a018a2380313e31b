"""The search index behind a small interface (Engine: index, delete, search, clear a tenant), and
its embedded implementation on SQLite FTS5 (one database file; `make serve` keeps it in its state
folder, tests in a temporary one; an OpenSearch implementation for the cloud can follow behind the
same interface, none is built yet).

Every row carries its tenant and every search filters by it. The text is folded before the
tokenizer sees it (fold.py); a word matches as itself or as a prefix (FTS5's `*`), and a word of
FUZZY_MIN letters or more also as the index's terms one edit away (a letter wrong, missing, extra
or two swapped): SQLite reads the vocabulary (fts5vocab, one pass over its terms in C) and hands
over at most VOCAB_SCAN terms of about the word's length, which are compared here, and at most
TERMS_PER_WORD of them widen the query. The pass grows with the vocabulary (every tenant's words:
they only widen the query, whose rows stay the tenant's); 50,000 entities of 5 tenants, ~49,000
terms: 19-31 ms a search in the engine on this 2-core machine."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from dataclasses import dataclass
from typing import Protocol

from chalicelib import config
from chalicelib.entity_search.fold import fold
from chalicelib.entity_search.texts import indexed_text

FUZZY_MIN = 5  # a word of this many letters may hold one typo
VOCAB_SCAN = 50_000  # vocabulary terms looked at per fuzzy word at most
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
    def index(self, entries: list[Entry]) -> None: ...  # each replaces what the index held of it
    def delete(self, tenant_id: str, entity_ids: list[str]) -> None: ...
    def search(
        self, tenant_id: str, words: list[str], *, types: list[str], object_id: str | None, cap: int
    ) -> tuple[list[Hit], bool]: ...  # up to `cap` hits, best first, and whether more matched
    def clear_tenant(self, tenant_id: str) -> None: ...
    def entries(self, tenant_id: str) -> list[Entry]: ...  # every row of the tenant, by id


_SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS entries USING fts5(
    body, tenant UNINDEXED, type UNINDEXED, id UNINDEXED, object UNINDEXED, name UNINDEXED,
    fields UNINDEXED, tokenize = "unicode61 remove_diacritics 2"
);
CREATE VIRTUAL TABLE IF NOT EXISTS terms USING fts5vocab(entries, row);
CREATE TABLE IF NOT EXISTS rows (
    tenant TEXT NOT NULL, id TEXT NOT NULL, row INTEGER NOT NULL, PRIMARY KEY (tenant, id)
);
CREATE INDEX IF NOT EXISTS rows_by_tenant ON rows (tenant);
"""


class SqliteEngine:
    """The embedded engine: SQLite FTS5 in one file (":memory:": in this process only)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()  # the stream's poller writes while requests read
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        if path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def index(self, entries: list[Entry]) -> None:
        with self._lock, self._db:
            self._db.execute("BEGIN")
            for entry in entries:
                self._delete(entry.tenant_id, entry.id)
                body = " ".join(fold(indexed_text(name, text)) for name, text in entry.fields)
                cursor = self._db.execute(
                    "INSERT INTO entries (body, tenant, type, id, object, name, fields) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        body,
                        entry.tenant_id,
                        entry.type,
                        entry.id,
                        entry.object_id,
                        entry.name,
                        json.dumps(entry.fields),
                    ),
                )
                self._db.execute(
                    "INSERT INTO rows (tenant, id, row) VALUES (?, ?, ?)", (entry.tenant_id, entry.id, cursor.lastrowid)
                )

    def delete(self, tenant_id: str, entity_ids: list[str]) -> None:
        with self._lock, self._db:
            self._db.execute("BEGIN")
            for entity_id in entity_ids:
                self._delete(tenant_id, entity_id)

    def _delete(self, tenant_id: str, entity_id: str) -> None:
        found = self._db.execute("SELECT row FROM rows WHERE tenant = ? AND id = ?", (tenant_id, entity_id)).fetchone()
        if found:
            self._db.execute("DELETE FROM entries WHERE rowid = ?", found)
            self._db.execute("DELETE FROM rows WHERE tenant = ? AND id = ?", (tenant_id, entity_id))

    def clear_tenant(self, tenant_id: str) -> None:
        with self._lock, self._db:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM entries WHERE rowid IN (SELECT row FROM rows WHERE tenant = ?)", (tenant_id,))
            self._db.execute("DELETE FROM rows WHERE tenant = ?", (tenant_id,))

    def entries(self, tenant_id: str) -> list[Entry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT type, id, object, name, fields FROM entries"
                " WHERE rowid IN (SELECT row FROM rows WHERE tenant = ?) ORDER BY id",
                (tenant_id,),
            ).fetchall()
        return [Entry(tenant_id, t, i, o, n, tuple((f, x) for f, x in json.loads(fs))) for t, i, o, n, fs in rows]

    def search(
        self, tenant_id: str, words: list[str], *, types: list[str], object_id: str | None, cap: int
    ) -> tuple[list[Hit], bool]:
        if not words or not types:
            return [], False
        with self._lock:
            groups = []
            for word in words:
                alternatives = [f'"{word}"*', *(f'"{term}"' for term in self._near(word))]
                groups.append("(" + " OR ".join(alternatives) + ")")
            sql = (
                "SELECT type, id, object, name, fields, bm25(entries) FROM entries WHERE entries MATCH ? AND tenant = ?"
                f" AND type IN ({', '.join('?' for _ in types)})"
            )
            params: list[object] = [" AND ".join(groups), tenant_id, *types]
            if object_id is not None:
                sql += " AND object = ?"
                params.append(object_id)
            rows = self._db.execute(sql + " ORDER BY bm25(entries) LIMIT ?", (*params, cap + 1)).fetchall()
        hits = [
            Hit(type=t, id=i, object_id=o, name=n, fields=tuple((f, x) for f, x in json.loads(fs)), rank=r)
            for t, i, o, n, fs, r in rows[:cap]
        ]
        return hits, len(rows) > cap

    def _near(self, word: str) -> list[str]:
        """The vocabulary's terms one edit from `word` (none for a short word)."""
        if len(word) < FUZZY_MIN:
            return []
        rows = self._db.execute(
            "SELECT term FROM terms WHERE length(term) BETWEEN ? AND ? LIMIT ?",
            (len(word) - 1, len(word) + 1, VOCAB_SCAN),
        )
        near = [term for (term,) in rows if term != word and one_edit(word, term)]
        return near[:TERMS_PER_WORD]


def one_edit(a: str, b: str) -> bool:
    """`b` is `a` with one letter changed, added, dropped, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]


_engine: Engine | None = None
_engine_lock = threading.Lock()


def current() -> Engine:
    """The process's engine: the one `use` opened, else an in-memory one (a process of its own)."""
    global _engine
    with _engine_lock:
        if _engine is None:
            _engine = SqliteEngine(":memory:")
        return _engine


def file_in(state_dir: str) -> str:
    """The index's file of this stage in a state folder (`make serve`'s, which pmctl --local reads)."""
    return os.path.join(state_dir, f"entity-search-{config.stage()}.sqlite3")


def use(path: str) -> Engine:
    """Open the index at `path` (a file: `make serve`'s state folder, a test's temporary folder)
    as this process's engine, closing the one before."""
    global _engine
    with _engine_lock:
        before, _engine = _engine, SqliteEngine(path)
    if isinstance(before, SqliteEngine):
        before.close()
    return _engine
