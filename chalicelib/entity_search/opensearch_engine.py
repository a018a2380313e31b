"""The entity index on OpenSearch (the cloud's engine), behind engine.Engine: the same rows as the
embedded engine, found by the same rule. The text is folded here before OpenSearch sees it
(fold.py), as it is before SQLite's tokenizer sees it; the index's analyzer only splits it into
words the way fold.words does (a pattern tokenizer on `[\\W_]+`, read by Java's regex with
UNICODE_CHARACTER_CLASS as Python reads it). A query word matches an indexed word as itself or as
its prefix (a prefix query), and a word of FUZZY_MIN letters or more also one edit away (a fuzzy
query of fuzziness 1 with transpositions: a letter wrong, missing, extra or two swapped), at most
TERMS_PER_WORD alternatives; every word must match. find.py ranks what comes back, never the
engine's score, so the two engines answer the same (tests/contract/test_entity_search_engines.py
holds them to one table of cases).

One index per stage (`<prefix>-entities`), every row with its tenant, each request routed by the
tenant (its rows on one shard) and filtered by it. Request shapes follow the OpenSearch
documentation: "Bulk", "Delete by query", "Search" with `search_after`, "Prefix", "Fuzzy",
"Boolean", "Pattern tokenizer"; opensearch-py loads only when this engine is used (cold start)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from chalicelib.entity_search.fold import fold
from chalicelib.entity_search.rows import FUZZY_MIN, TERMS_PER_WORD, Entry, Hit
from chalicelib.entity_search.texts import indexed_text

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

PAGE = 1_000  # rows a read of a whole tenant (entries) asks for at a time
BULK_ROWS = 500  # rows a bulk request carries at most
SOURCE = ["type", "id", "object", "name", "fields"]
WORDS_PATTERN = r"[\W_]+"  # what separates words: fold.words' `[^\W_]+` are the words between

INDEX_BODY: dict[str, Any] = {
    "settings": {
        "index": {"number_of_shards": 1, "refresh_interval": "1s"},  # a write is searchable within a second
        "analysis": {
            "tokenizer": {
                "pm_words": {"type": "pattern", "pattern": WORDS_PATTERN, "flags": "UNICODE_CHARACTER_CLASS"}
            },
            "analyzer": {"pm_folded": {"type": "custom", "tokenizer": "pm_words", "filter": ["lowercase"]}},
        },
    },
    "mappings": {
        "dynamic": "strict",
        "properties": {
            "tenant": {"type": "keyword"},
            "type": {"type": "keyword"},
            "id": {"type": "keyword"},
            "object": {"type": "keyword"},
            "name": {"type": "keyword", "index": False, "doc_values": False},
            "fields": {"type": "keyword", "index": False, "doc_values": False},  # (field, text) pairs as JSON
            # prefixes of 2-10 letters indexed as their own terms: a prefix query reads them instead of
            # walking the vocabulary ("Index prefixes")
            "body": {"type": "text", "analyzer": "pm_folded", "index_prefixes": {"min_chars": 2, "max_chars": 10}},
        },
    },
}


def _doc_id(tenant_id: str, entity_id: str) -> str:
    return f"{tenant_id}:{entity_id}"


def word_clause(word: str) -> dict[str, Any]:
    """One query word: as itself or a prefix, and one edit away when it is long enough."""
    alternatives: list[dict[str, Any]] = [{"prefix": {"body": {"value": word}}}]
    if len(word) >= FUZZY_MIN:
        alternatives.append(
            {
                "fuzzy": {
                    "body": {
                        "value": word,
                        "fuzziness": 1,
                        "transpositions": True,
                        "prefix_length": 0,
                        "max_expansions": TERMS_PER_WORD,
                    }
                }
            }
        )
    return {"bool": {"should": alternatives, "minimum_should_match": 1}}


def search_body(
    tenant_id: str, words: list[str], *, types: list[str], object_id: str | None, cap: int
) -> dict[str, Any]:
    """The query of a search: the tenant's rows of these types (at the object) with every word."""
    filters: list[dict[str, Any]] = [{"term": {"tenant": tenant_id}}, {"terms": {"type": types}}]
    if object_id is not None:
        filters.append({"term": {"object": object_id}})
    return {
        "size": cap + 1,
        "query": {"bool": {"filter": filters, "must": [word_clause(word) for word in words]}},
        "sort": [{"_score": "desc"}, {"id": "asc"}],
        "_source": SOURCE,
        "track_total_hits": False,
    }


class OpenSearchEngine:
    def __init__(self, client: OpenSearch, index: str) -> None:
        self.client = client
        self.index_name = index
        self._ready = False

    def _ensure_index(self) -> None:
        """Create the index before the first write (the stream's function: the functions that only
        search may not create it); another instance creating it meanwhile is no error."""
        if self._ready:
            return
        from opensearchpy.exceptions import RequestError  # cold start: only for this engine

        if not self.client.indices.exists(index=self.index_name):
            try:
                self.client.indices.create(index=self.index_name, body=INDEX_BODY)
            except RequestError as err:
                if err.error != "resource_already_exists_exception":
                    raise
        self._ready = True

    def _bulk(self, tenant_id: str, lines: list[dict[str, Any]]) -> None:
        """Bulk requests of the tenant's rows, routed to its shard; any failed item raises (the
        stream's batch is retried whole, as with the embedded engine's failed transaction)."""
        self._ensure_index()
        step = 2 * BULK_ROWS
        for start in range(0, len(lines), step):
            answer = self.client.bulk(body=lines[start : start + step], index=self.index_name, routing=tenant_id)
            if answer.get("errors"):
                failed = [item for item in answer["items"] for result in item.values() if result.get("error")]
                # a delete of a row never indexed is no failure: it answers not_found without an error
                raise RuntimeError(f"the entity index refused {len(failed)} rows: {failed[:3]}")

    def put_rows(self, entries: list[Entry]) -> None:
        by_tenant: dict[str, list[dict[str, Any]]] = {}
        for entry in entries:
            body = " ".join(fold(indexed_text(name, text)) for name, text in entry.fields)
            source = {
                "tenant": entry.tenant_id,
                "type": entry.type,
                "id": entry.id,
                "object": entry.object_id,
                "name": entry.name,
                "fields": json.dumps(entry.fields),
                "body": body,
            }
            by_tenant.setdefault(entry.tenant_id, []).extend(
                [{"index": {"_id": _doc_id(entry.tenant_id, entry.id)}}, source]
            )
        for tenant_id, lines in by_tenant.items():
            self._bulk(tenant_id, lines)

    def drop_rows(self, tenant_id: str, entity_ids: list[str]) -> None:
        self._bulk(tenant_id, [{"delete": {"_id": _doc_id(tenant_id, entity_id)}} for entity_id in entity_ids])

    def clear_tenant(self, tenant_id: str) -> None:
        self._ensure_index()
        self.client.delete_by_query(
            index=self.index_name,
            body={"query": {"term": {"tenant": tenant_id}}},
            params={"routing": tenant_id, "refresh": "true", "conflicts": "proceed"},
        )

    def _search(self, tenant_id: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The hits of a search of the tenant's rows; none before the index exists (nothing was
        written yet)."""
        from opensearchpy.exceptions import NotFoundError  # cold start: only for this engine

        try:
            answer = self.client.search(index=self.index_name, body=body, params={"routing": tenant_id})
        except NotFoundError:
            return []
        return list(answer["hits"]["hits"])

    def tenant_rows(self, tenant_id: str) -> list[Entry]:
        rows: list[Entry] = []
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {
                "size": PAGE,
                "query": {"bool": {"filter": [{"term": {"tenant": tenant_id}}]}},
                "sort": [{"id": "asc"}],
                "_source": SOURCE,
            }
            if after is not None:
                body["search_after"] = after
            hits = self._search(tenant_id, body)
            rows += [_entry(tenant_id, hit["_source"]) for hit in hits]
            if len(hits) < PAGE:
                return rows
            after = hits[-1]["sort"]

    def search_rows(
        self, tenant_id: str, words: list[str], *, types: list[str], object_id: str | None, cap: int
    ) -> tuple[list[Hit], bool]:
        if not words or not types:
            return [], False
        found = self._search(tenant_id, search_body(tenant_id, words, types=types, object_id=object_id, cap=cap))
        hits = [_hit(hit["_source"], hit.get("_score")) for hit in found[:cap]]
        return hits, len(found) > cap


def _fields(source: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple((field, text) for field, text in json.loads(source["fields"]))


def _entry(tenant_id: str, source: dict[str, Any]) -> Entry:
    return Entry(tenant_id, source["type"], source["id"], source.get("object"), source["name"], _fields(source))


def _hit(source: dict[str, Any], score: float | None) -> Hit:
    # rank: lower is better, as the embedded engine's bm25 (find.py orders by its own rule either way)
    return Hit(source["type"], source["id"], source.get("object"), source["name"], _fields(source), -(score or 0.0))
