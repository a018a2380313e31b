"""The search index behind a small interface (Engine: put, drop and search rows, clear or read a
tenant; method names of their own, which the IAM analysis of tests/contract/aws_calls.py tells
apart from every other `.index` and `.search`), and its embedded implementation on SQLite FTS5 (one
database file; `make serve` keeps it in its state folder, tests in a temporary one). The cloud's,
on OpenSearch, is opensearch_engine.py.

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

from chalicelib import config
from chalicelib.entity_search.fold import fold
from chalicelib.entity_search.rows import FUZZY_MIN, TERMS_PER_WORD, Engine, Entry, Hit
from chalicelib.entity_search.texts import indexed_text
from chalicelib.errors import Unavailable

VOCAB_SCAN = 50_000  # vocabulary terms looked at per fuzzy word at most


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

    def put_rows(self, entries: list[Entry]) -> None:
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

    def drop_rows(self, tenant_id: str, entity_ids: list[str]) -> None:
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

    def tenant_rows(self, tenant_id: str) -> list[Entry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT type, id, object, name, fields FROM entries"
                " WHERE rowid IN (SELECT row FROM rows WHERE tenant = ?) ORDER BY id",
                (tenant_id,),
            ).fetchall()
        return [Entry(tenant_id, t, i, o, n, tuple((f, x) for f, x in json.loads(fs))) for t, i, o, n, fs in rows]

    def search_rows(
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
    """The process's engine: the one `use` opened, else the one PM_ENTITY_SEARCH_ENGINE names
    (`sqlite`: an in-memory one, a process of its own; `opensearch`: the stack's domain; `off`: a
    stack without a domain, where each function's own index would see nothing the stream wrote)."""
    global _engine
    with _engine_lock:
        if _engine is None:
            _engine = _configured()
        return _engine


def _configured() -> Engine:
    kind = config.entity_search_engine()
    if kind == "opensearch":
        from chalicelib.entity_search.opensearch_engine import OpenSearchEngine  # cold start: the cloud's only
        from chalicelib.opensearch_client import client_from_env  # cold start: as above

        return OpenSearchEngine(client_from_env(), index_name())
    if kind == "off":
        return NoEngine()
    if kind != "sqlite":
        raise ValueError(f"PM_ENTITY_SEARCH_ENGINE is `sqlite`, `opensearch` or `off`, not {kind!r}")
    return SqliteEngine(":memory:")


class NoEngine:
    """No index (a stack deployed without an OpenSearch domain): the stream's changes are dropped
    and a search answers 503 saying why, rather than an empty list that looks like "nobody"."""

    def put_rows(self, entries: list[Entry]) -> None:
        return None

    def drop_rows(self, tenant_id: str, entity_ids: list[str]) -> None:
        return None

    def clear_tenant(self, tenant_id: str) -> None:
        return None

    def tenant_rows(self, tenant_id: str) -> list[Entry]:
        raise self._unavailable()

    def search_rows(
        self, tenant_id: str, words: list[str], *, types: list[str], object_id: str | None, cap: int
    ) -> tuple[list[Hit], bool]:
        raise self._unavailable()

    @staticmethod
    def _unavailable() -> Unavailable:
        return Unavailable(
            "This deployment has no entity search: it runs on an OpenSearch domain "
            "(deploy the stack with SearchBackend=opensearch, then `pmctl search reindex`)."
        )


def index_name() -> str:
    """The OpenSearch index of the entities (one per stack: its stage's domain)."""
    return f"{config.opensearch_prefix()}-entities"


def use_engine(chosen: Engine) -> Engine | None:
    """Make `chosen` this process's engine (a test's OpenSearch engine on the fake); the one before."""
    global _engine
    with _engine_lock:
        before, _engine = _engine, chosen
    return before


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
