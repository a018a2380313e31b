"""An in-process OpenSearch for the entity index (chalicelib/entity_search/opensearch_engine.py):
no server exists offline, so this fake takes the requests the real client serialises and answers
them by the OpenSearch documentation's semantics of the few request kinds the engine sends, read
from the request itself, not from the engine's code:

- index creation ("Create index"): the analysis settings are applied as declared: a `pattern`
  tokenizer splits on its pattern (Python's `re` reads `[\\W_]+` as Java's regex does with
  UNICODE_CHARACTER_CLASS, the flag the fake requires), then the `lowercase` filter; a `strict`
  mapping refuses a document with an undeclared field ("dynamic");
- "Bulk" (`index` and `delete` actions; a delete of a missing document answers not_found, no
  error), "Delete by query" with a term query;
- "Search": `bool` (filter, must, should with minimum_should_match), `term`, `terms`, `prefix` (an
  indexed term that starts with the value, not analyzed), `fuzzy` (an indexed term at most
  `fuzziness` edits away, a transposition one edit when `transpositions`, no more than
  `max_expansions` terms of the index, nearest first); `sort` by `_score` and fields, `search_after`,
  `size`, `_source` filtering. Scores: the number of a document's matched `should` clauses.

Every request must carry the tenant as its routing (the engine's promise: a tenant's rows on one shard)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import Connection, OpenSearch

from tests.opensearch_fake import read_request, respond


def distance(a: str, b: str, transpositions: bool) -> int:
    """Levenshtein distance, with a swap of neighbours as one edit when `transpositions`
    (optimal string alignment, as Lucene's fuzzy automata count)."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(rows[i - 1][j] + 1, row[j - 1] + 1, rows[i - 1][j - 1] + cost)
            if transpositions and i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[i - 2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


@dataclass
class Index:
    body: dict[str, Any]
    docs: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def properties(self) -> dict[str, Any]:
        return dict(self.body["mappings"]["properties"])

    def analyse(self, field_name: str, text: str) -> list[str]:
        """A text field's terms by its declared analyzer (a custom one: pattern tokenizer, lowercase)."""
        name = self.properties[field_name].get("analyzer", "standard")
        analysis = self.body["settings"]["analysis"]
        analyzer = analysis["analyzer"][name]
        assert analyzer["type"] == "custom", f"the fake knows custom analyzers only, not {analyzer}"
        tokenizer = analysis["tokenizer"][analyzer["tokenizer"]]
        assert tokenizer["type"] == "pattern" and tokenizer.get("flags") == "UNICODE_CHARACTER_CLASS", tokenizer
        terms = [t for t in re.split(tokenizer["pattern"], text) if t]
        for filter_name in analyzer.get("filter", []):
            assert filter_name == "lowercase", f"the fake knows the lowercase filter only, not {filter_name}"
            terms = [t.lower() for t in terms]
        return terms

    def terms(self, doc: dict[str, Any], field_name: str) -> list[str]:
        spec = self.properties[field_name]
        value = doc.get(field_name)
        if value is None:
            return []
        if spec["type"] == "keyword":
            assert spec.get("index", True), f"{field_name} is not indexed: no query may read it"
            return [str(value)]
        return self.analyse(field_name, str(value))

    def vocabulary(self, field_name: str) -> list[str]:
        """Every term of the field in the index (a shard's term dictionary: all tenants')."""
        return sorted({t for doc in self.docs.values() for t in self.terms(doc, field_name)})


def check_index_body(body: dict[str, Any]) -> None:
    assert set(body) <= {"settings", "mappings"}
    props = body["mappings"]["properties"]
    analyzers = body["settings"]["analysis"]["analyzer"]
    for name, spec in props.items():
        assert spec["type"] in {"keyword", "text"}, f"{name}: {spec['type']}"
        if spec["type"] == "text":
            assert spec["analyzer"] in analyzers, f"{name}: analyzer {spec['analyzer']} is not declared"
            prefixes = spec.get("index_prefixes")
            if prefixes is not None:  # "Index prefixes": 0 < min_chars <= max_chars < 20
                assert 0 < prefixes["min_chars"] <= prefixes["max_chars"] < 20, prefixes
        else:
            assert set(spec) <= {"type", "index", "doc_values"}, f"{name}: {spec}"


class FakeEntityOpenSearch(Connection):
    """One node; the real client's transport hands it serialised requests."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.indices: dict[str, Index] = {}
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self._expanded: dict[str, set[str]] = {}  # a fuzzy clause's terms, for the request being answered

    def perform_request(
        self,
        method: str,
        url: str,
        params: Any = None,
        body: Any = None,
        timeout: Any = None,
        ignore: Any = (),
        headers: Any = None,
    ) -> Any:
        parts, params, parsed = read_request(url, params, body)
        self.requests.append((method, "/" + "/".join(parts), params))
        self._expanded = {}
        return respond(self, *self._route(method, parts, params, parsed))

    def _route(self, method: str, parts: list[str], params: dict[str, str], body: Any) -> tuple[int, Any]:
        if len(parts) == 1 and method == "HEAD":
            return (200, None) if parts[0] in self.indices else (404, None)
        if len(parts) == 1 and method == "PUT":
            check_index_body(body)
            if parts[0] in self.indices:
                return 400, {"error": {"type": "resource_already_exists_exception"}, "status": 400}
            self.indices[parts[0]] = Index(body)
            return 200, {"acknowledged": True, "index": parts[0]}
        index = self.indices.get(parts[0])
        if index is None:
            return 404, {"error": {"type": "index_not_found_exception"}, "status": 404}
        assert params.get("routing"), f"{method} /{'/'.join(parts)} without the tenant's routing"
        if method == "POST" and parts[1:] == ["_bulk"]:
            return 200, self._bulk(parts[0], index, body)
        if method == "POST" and parts[1:] == ["_delete_by_query"]:
            gone = [doc_id for doc_id, doc in index.docs.items() if self._matches(index, body["query"], doc)[0]]
            for doc_id in gone:
                del index.docs[doc_id]
            return 200, {"deleted": len(gone), "failures": []}
        if method in ("GET", "POST") and parts[1:] == ["_search"]:
            return 200, self._search(parts[0], index, body)
        raise AssertionError(f"unexpected request {method} /{'/'.join(parts)}")

    def _bulk(self, name: str, index: Index, lines: list[dict[str, Any]]) -> dict[str, Any]:
        items: list[dict[str, Any]] = []
        i = 0
        while i < len(lines):
            ((action, meta),) = lines[i].items()
            doc_id = meta["_id"]
            if action == "index":
                source = lines[i + 1]
                undeclared = set(source) - set(index.properties)
                if index.body["mappings"].get("dynamic") == "strict" and undeclared:
                    items.append(
                        {"index": {"_id": doc_id, "status": 400, "error": {"type": "strict_dynamic_mapping_exception"}}}
                    )
                else:
                    index.docs[doc_id] = source
                    items.append({"index": {"_index": name, "_id": doc_id, "result": "created", "status": 201}})
                i += 2
            else:
                assert action == "delete", action
                found = index.docs.pop(doc_id, None) is not None
                result = "deleted" if found else "not_found"
                items.append(
                    {"delete": {"_index": name, "_id": doc_id, "result": result, "status": 200 if found else 404}}
                )
                i += 1
        return {"took": 1, "errors": any("error" in v for item in items for v in item.values()), "items": items}

    def _matches(self, index: Index, query: dict[str, Any], doc: dict[str, Any]) -> tuple[bool, float]:
        ((kind, spec),) = query.items()
        if kind == "bool":
            assert set(spec) <= {"filter", "must", "should", "minimum_should_match"}, spec
            score = 0.0
            for clause in spec.get("filter", []) + spec.get("must", []):
                ok, part = self._matches(index, clause, doc)
                if not ok:
                    return False, 0.0
                score += part
            should = [self._matches(index, clause, doc) for clause in spec.get("should", [])]
            hits = sum(ok for ok, _ in should)
            if should and hits < spec.get("minimum_should_match", 0 if spec.get("must") or spec.get("filter") else 1):
                return False, 0.0
            return True, score + hits
        ((field_name, value),) = spec.items()
        terms = index.terms(doc, field_name)
        if kind == "term":
            return str(value) in terms, 1.0
        if kind == "terms":
            return any(str(v) in terms for v in value), 1.0
        if kind == "prefix":
            prefix = value["value"] if isinstance(value, dict) else value
            return any(t.startswith(prefix) for t in terms), 1.0
        if kind == "fuzzy":
            key = json.dumps([field_name, value], sort_keys=True)
            if key not in self._expanded:  # a query's expansion is computed once, not per document
                self._expanded[key] = self._expansions(index, field_name, value)
            return any(t in self._expanded[key] for t in terms), 1.0
        raise AssertionError(f"the fake does not know the query {kind}")

    def _expansions(self, index: Index, field_name: str, spec: dict[str, Any]) -> set[str]:
        word, edits = spec["value"], int(spec.get("fuzziness", 2))
        transpositions, prefix_length = spec.get("transpositions", True), spec.get("prefix_length", 0)
        near = [
            (distance(word, term, transpositions), term)
            for term in index.vocabulary(field_name)
            if term[:prefix_length] == word[:prefix_length] and abs(len(term) - len(word)) <= edits
        ]
        ranked = sorted((d, term) for d, term in near if d <= edits)
        return {term for _, term in ranked[: spec.get("max_expansions", 50)]}

    def _search(self, name: str, index: Index, body: dict[str, Any]) -> dict[str, Any]:
        assert set(body) <= {"size", "query", "sort", "_source", "search_after", "track_total_hits"}, body
        found = []
        for doc_id, doc in index.docs.items():
            ok, score = self._matches(index, body["query"], doc)
            if ok:
                found.append((score, doc_id, doc))
        keys = []
        for clause in body.get("sort", []):
            ((key, order),) = clause.items()
            keys.append((key, order))

        def sort_values(item: tuple[float, str, dict[str, Any]]) -> list[Any]:
            return [item[0] if key == "_score" else item[2][key] for key, _ in keys]

        for position in reversed(range(len(keys))):
            found.sort(key=lambda item: sort_values(item)[position], reverse=keys[position][1] == "desc")
        if "search_after" in body:
            after = body["search_after"]
            assert keys and all(key != "_score" for key, _ in keys), "search_after here sorts by fields"
            found = [item for item in found if sort_values(item) > after]
        wanted = body.get("_source", True)
        hits = []
        for score, doc_id, doc in found[: body.get("size", 10)]:
            source = {k: v for k, v in doc.items() if wanted is True or k in wanted}
            hits.append(
                {
                    "_index": name,
                    "_id": doc_id,
                    "_score": score,
                    "_source": source,
                    "sort": sort_values((score, doc_id, doc)),
                }
            )
        return {"took": 1, "timed_out": False, "hits": {"max_score": None, "hits": hits}}


def fake_client() -> tuple[OpenSearch, FakeEntityOpenSearch]:
    """A real client whose one connection is the fake."""
    client = OpenSearch(
        hosts=[{"host": "search.test", "port": 443}], use_ssl=True, connection_class=FakeEntityOpenSearch
    )
    connection = client.transport.get_connection()
    assert isinstance(connection, FakeEntityOpenSearch)
    return client, connection
