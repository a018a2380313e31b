"""An in-process fake of the OpenSearch HTTP API (no server exists offline), for the backend's
tests and the search benchmark.

The fake is an `opensearchpy.Connection`: the real client and transport serialise each request and
hand it over, the fake records it (method, path, URL parameters, body), checks it against the request
shapes the OpenSearch documentation gives (the `check_*` functions below, one per shape), and answers
like OpenSearch would from the documents it was sent. Scores are canned per document."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from opensearchpy import Connection, OpenSearch

DIM = 4
MAX_RESULT_WINDOW = 10_000  # index.max_result_window default: bounds from+size, k and pagination_depth


# --- The documented request shapes ---------------------------------------------------------------

# "Methods and engines": the spaces each engine's hnsw supports (nmslib is deprecated; ivf needs training).
ENGINE_SPACES = {
    "lucene": {"l2", "cosinesimil", "innerproduct"},
    "faiss": {"l2", "innerproduct", "cosinesimil", "hamming"},
}
BUILTIN_ANALYZERS = {"standard", "simple", "whitespace", "stop", "keyword", "pattern", "english", "german"}
NESTED_SCORE_MODES = {"avg", "max", "min", "sum", "none"}  # "Nested query"
KNN_PARAMETERS = {
    "vector",
    "k",
    "filter",
    "boost",
    "min_score",
    "max_distance",
    "method_parameters",
    "rescore",
    "expand_nested_docs",
}
NORMALIZATIONS = {"min_max", "l2", "z_score"}  # "Normalization processor" > "Request body fields"
COMBINATIONS = {"arithmetic_mean", "geometric_mean", "harmonic_mean"}
SEARCH_BODY_KEYS = {"query", "from", "size", "sort", "_source"}


def check_index_body(body: dict[str, Any]) -> None:
    """Per "k-NN vector": a knn_vector field needs `index.knn: true`, a `dimension` and a `method`."""
    assert set(body) <= {"settings", "mappings"}, f"unexpected index body keys {set(body)}"
    properties = body["mappings"]["properties"]
    vectors = [spec for spec in _fields(properties) if spec["type"] == "knn_vector"]
    if vectors:
        settings = body.get("settings", {})
        assert settings.get("index", {}).get("knn") is True or settings.get("index.knn") is True, (
            "knn_vector fields need index.knn: true"
        )
    for spec in _fields(properties):
        assert spec["type"] in {"keyword", "text", "nested", "object", "knn_vector"}, (
            f"unexpected field type {spec['type']}"
        )
        if spec["type"] == "text":
            assert spec.get("analyzer", "standard") in BUILTIN_ANALYZERS, f"unknown analyzer {spec.get('analyzer')}"
        if spec["type"] == "knn_vector":
            check_knn_vector_mapping(spec)


def check_knn_vector_mapping(spec: dict[str, Any]) -> None:
    dimension, method = spec.get("dimension"), spec.get("method")
    assert isinstance(dimension, int) and 1 <= dimension <= 16_000, f"knn_vector dimension {dimension!r}"
    assert isinstance(method, dict), "knn_vector needs a method"
    assert method.get("name") == "hnsw", (
        f"method {method.get('name')!r}: ivf needs a trained model, only hnsw is built in"
    )
    engine = method.get("engine", "faiss")
    assert engine in ENGINE_SPACES, f"engine {engine!r} (nmslib is deprecated)"
    space = method.get("space_type", spec.get("space_type", "l2"))
    assert space in ENGINE_SPACES[engine], f"{engine} hnsw does not support space {space!r}"


def check_pipeline_body(body: dict[str, Any]) -> None:
    """Per "Normalization processor": one phase results processor; weights in [0, 1] summing to 1."""
    processors = body["phase_results_processors"]
    assert isinstance(processors, list) and processors, "phase_results_processors must be a non-empty list"
    processor = processors[0]["normalization-processor"]
    normalization = processor.get("normalization", {}).get("technique", "min_max")
    combination = processor.get("combination", {}).get("technique", "arithmetic_mean")
    assert normalization in NORMALIZATIONS, f"normalization technique {normalization!r}"
    assert combination in COMBINATIONS, f"combination technique {combination!r}"
    assert normalization != "z_score" or combination == "arithmetic_mean", "z_score supports only arithmetic_mean"
    weights = processor.get("combination", {}).get("parameters", {}).get("weights")
    if weights is not None:
        assert all(isinstance(w, float | int) and 0.0 <= w <= 1.0 for w in weights), (
            f"weights {weights} must lie in [0, 1]"
        )
        assert math.isclose(sum(weights), 1.0), f"weights {weights} must sum to 1"


def check_bulk_lines(lines: list[dict[str, Any]], properties: dict[str, Any]) -> None:
    """Per "Bulk": an action line, then the document source, for index and create actions."""
    assert lines and len(lines) % 2 == 0, "a bulk body alternates action and source lines"
    for action, source in zip(lines[::2], lines[1::2], strict=True):
        assert len(action) == 1 and next(iter(action)) in {"index", "create"}, f"not an action line: {action}"
        meta = next(iter(action.values()))
        assert set(meta) <= {"_index", "_id"} and isinstance(meta.get("_id"), str), f"action metadata {meta}"
        check_source(source, properties)


def check_source(source: dict[str, Any], properties: dict[str, Any]) -> None:
    for key, value in source.items():
        assert key in properties, f"field {key!r} is not in the mapping"
        spec = properties[key]
        if spec["type"] == "nested":
            assert isinstance(value, list) and all(isinstance(item, dict) for item in value), (
                f"{key}: nested values are a list of objects"
            )
            for item in value:
                check_source(item, spec["properties"])
        elif spec["type"] == "knn_vector":
            assert isinstance(value, list) and len(value) == spec["dimension"], (
                f"{key}: a vector of {spec['dimension']} numbers"
            )
        else:
            assert isinstance(value, str), f"{key}: a string"


def check_search(
    body: dict[str, Any], params: dict[str, str], properties: dict[str, Any], pipelines: dict[str, Any]
) -> None:
    """Per "Search" request body, plus `search_pipeline` as a URL parameter ("Using a search pipeline")."""
    assert set(body) <= SEARCH_BODY_KEYS, f"unexpected search body keys {set(body) - SEARCH_BODY_KEYS}"
    offset, size = body.get("from", 0), body.get("size", 10)
    assert isinstance(offset, int) and isinstance(size, int) and offset >= 0 and size >= 0, (
        "from and size are non-negative integers"
    )
    assert offset + size <= MAX_RESULT_WINDOW, "from + size exceeds index.max_result_window"
    for order in body.get("sort", []):
        ((field, direction),) = order.items()
        assert _field(properties, field)[0]["type"] == "keyword", f"sort on {field}: text fields cannot be sorted"
        assert direction in {"asc", "desc"}, f"sort order {direction!r}"
    query = body.get("query", {"match_all": {}})
    check_query(query, properties, top_level=True)
    if "hybrid" in query:
        check_hybrid(query["hybrid"], offset)
        name = params.get("search_pipeline")
        assert name, "a hybrid query needs search_pipeline as a URL parameter to combine its scores"
        assert name in pipelines, f"search pipeline {name!r} does not exist"
        weights = pipelines[name]["phase_results_processors"][0]["normalization-processor"]["combination"][
            "parameters"
        ]["weights"]
        assert len(weights) == len(query["hybrid"]["queries"]), "one weight per hybrid sub-query"
    if "search_pipeline" in params:
        assert params["search_pipeline"] in pipelines, "unknown search pipeline"


def check_hybrid(spec: dict[str, Any], offset: int) -> None:
    """Per "Hybrid query": 2..5 sub-queries; "Paginating hybrid query results": pagination_depth when from > 0."""
    assert set(spec) <= {"queries", "filter", "pagination_depth"}, f"unexpected hybrid keys {set(spec)}"
    queries = spec["queries"]
    assert isinstance(queries, list) and 2 <= len(queries) <= 5, (
        "a hybrid query combines a list of 2 to 5 query clauses"
    )
    depth = spec.get("pagination_depth")
    assert offset == 0 or depth is not None, "pagination_depth is missing in the search request"
    assert depth is None or (isinstance(depth, int) and 0 < depth <= MAX_RESULT_WINDOW), f"pagination_depth {depth!r}"


def check_query(
    clause: dict[str, Any], properties: dict[str, Any], *, top_level: bool = False, nested_path: str | None = None
) -> None:
    assert isinstance(clause, dict) and len(clause) == 1, f"a query clause has exactly one type: {clause}"
    ((kind, spec),) = clause.items()
    if kind == "hybrid":
        assert top_level, "hybrid must be the top-level query"
        for sub in spec["queries"] + ([spec["filter"]] if "filter" in spec else []):
            check_query(sub, properties)
    elif kind == "bool":
        assert set(spec) <= {"must", "filter", "should", "must_not"}, f"bool keys {set(spec)}"
        for occurrence in spec.values():
            for sub in occurrence if isinstance(occurrence, list) else [occurrence]:
                check_query(sub, properties, nested_path=nested_path)
    elif kind == "match_all":
        assert set(spec) <= {"boost"}, "match_all takes no field"
    elif kind == "match":
        ((field, value),) = spec.items()
        assert _field(properties, field)[0]["type"] == "text", f"match on {field}: a text field"
        assert isinstance(value, str) or isinstance(value.get("query"), str), "match needs the query text"
    elif kind == "terms":
        ((field, values),) = spec.items()
        assert _field(properties, field)[0]["type"] == "keyword", f"terms on {field}: a keyword field"
        assert isinstance(values, list) and all(isinstance(v, str) for v in values), "terms takes a list of values"
    elif kind == "nested":
        check_nested(spec, properties)
    elif kind == "knn":
        check_knn(spec, properties, nested_path)
    else:
        raise AssertionError(f"unexpected query type {kind!r}")


def check_nested(spec: dict[str, Any], properties: dict[str, Any]) -> None:
    """Per "Nested query": a path that is mapped as nested, a query, a score_mode."""
    assert set(spec) <= {"path", "query", "score_mode", "ignore_unmapped", "inner_hits"}, f"nested keys {set(spec)}"
    assert _field(properties, spec["path"])[0]["type"] == "nested", f"{spec['path']} is not a nested field"
    assert spec.get("score_mode", "avg") in NESTED_SCORE_MODES, f"score_mode {spec.get('score_mode')!r}"
    check_query(spec["query"], properties, nested_path=spec["path"])


def check_knn(spec: dict[str, Any], properties: dict[str, Any], nested_path: str | None) -> None:
    """Per "k-NN query": one knn_vector field, a vector of the mapping's dimension, an integer k > 0; a
    field inside a nested field is searched from a nested query on that path ("Nested field search")."""
    ((field, params),) = spec.items()
    mapping, parent = _field(properties, field)
    assert mapping["type"] == "knn_vector", f"knn on {field}: not a knn_vector field"
    assert parent == nested_path, f"knn on {field} must sit in a nested query with path {parent!r}"
    assert set(params) <= KNN_PARAMETERS, f"unexpected knn parameters {set(params) - KNN_PARAMETERS}"
    vector, k = params.get("vector"), params.get("k")
    assert isinstance(vector, list) and len(vector) == mapping["dimension"], (
        f"knn vector must have {mapping['dimension']} values"
    )
    assert any(v != 0 for v in vector), "cosinesimil rejects the zero vector"
    assert isinstance(k, int) and not isinstance(k, bool) and 0 < k <= MAX_RESULT_WINDOW, f"knn k {k!r}"
    assert not {"min_score", "max_distance"} & set(params), "k, min_score and max_distance exclude each other"
    if "filter" in params:
        check_query(
            params["filter"], properties
        )  # filters may name top-level fields ("Vector search with filtering on nested fields")


def _fields(properties: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for spec in properties.values():
        out.append(spec)
        out += _fields(spec.get("properties", {}))
    return out


def _field(properties: dict[str, Any], path: str) -> tuple[dict[str, Any], str | None]:
    """The mapping of a dotted field path, and the nested field it lies in (if any)."""
    parts, spec, parent = path.split("."), {"properties": properties}, None
    for i, part in enumerate(parts):
        assert part in spec.get("properties", {}), f"{path} is not mapped"
        spec = spec["properties"][part]
        if spec["type"] == "nested" and i < len(parts) - 1:
            parent = ".".join(parts[: i + 1])
    return spec, parent


def find(clause: Any, kind: str) -> list[Any]:
    """Every `kind` clause anywhere in a query."""
    if isinstance(clause, dict):
        return [v for k, v in clause.items() if k == kind] + [x for v in clause.values() for x in find(v, kind)]
    if isinstance(clause, list):
        return [x for v in clause for x in find(v, kind)]
    return []


# --- The fake server ---------------------------------------------------------------------------------


PAST_THE_END = {
    "error": {
        "root_cause": [
            {
                "type": "illegal_argument_exception",
                "reason": "Reached end of search result, increase pagination_depth value to see more results",
            }
        ],
        "type": "search_phase_execution_exception",
        "reason": "all shards failed",
    },
    "status": 400,
}


def read_request(url: str, params: Any, body: Any) -> tuple[list[str], dict[str, str], Any]:
    """A request as the real transport hands it to a connection: the path's parts, the URL
    parameters as text, the body parsed (a bulk body line by line)."""
    params = {k: v.decode() if isinstance(v, bytes) else str(v) for k, v in (params or {}).items()}
    text = body.decode() if isinstance(body, bytes) else body
    parts = url.split("?", 1)[0].strip("/").split("/")
    if parts[-1] == "_bulk":
        assert text.endswith("\n"), "a bulk body ends with a newline"
        return parts, params, [json.loads(line) for line in text.splitlines()]
    return parts, params, json.loads(text) if text else None


def respond(connection: Connection, status: int, answer: Any) -> Any:
    """What a connection hands back to the transport: an error status raised as opensearch-py's
    exception for it, else (status, headers, body)."""
    if status >= 300:
        connection._raise_error(status, json.dumps(answer) if answer else "", "application/json")
    return status, {"content-type": "application/json"}, json.dumps(answer) if answer is not None else ""


@dataclass
class Request:
    method: str
    path: str
    params: dict[str, str]
    body: Any


class FakeOpenSearch(Connection):
    """One node of the fake cluster. The real transport hands it serialised requests."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.requests: list[Request] = []
        self.indices: dict[str, dict[str, Any]] = {}  # name -> {"body": ..., "docs": {id: source}}
        self.pipelines: dict[str, Any] = {}
        self.scores: dict[str, float] = {}  # canned relevance per document id (default 0.5)
        self.canned: dict[str, Any] | None = None  # a whole search response to answer instead
        self.failing_ids: set[str] = set()  # bulk items that fail

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
        self.requests.append(Request(method, url, params, parsed))
        return respond(self, *self._route(method, parts, params, parsed))

    def _route(self, method: str, parts: list[str], params: dict[str, str], body: Any) -> tuple[int, Any]:
        if method == "HEAD" and len(parts) == 1:
            return (200, None) if parts[0] in self.indices else (404, None)
        if method == "PUT" and len(parts) == 1:
            check_index_body(body)
            if parts[0] in self.indices:
                return 400, {"error": {"type": "resource_already_exists_exception"}, "status": 400}
            self.indices[parts[0]] = {"body": body, "docs": {}}
            return 200, {"acknowledged": True, "shards_acknowledged": True, "index": parts[0]}
        if method == "PUT" and parts[:2] == ["_search", "pipeline"] and len(parts) == 3:
            check_pipeline_body(body)
            self.pipelines[parts[2]] = body
            return 200, {"acknowledged": True}
        if method == "POST" and len(parts) == 2 and parts[1] == "_bulk":
            return 200, self._bulk(parts[0], body)
        if method in ("GET", "POST") and len(parts) == 2 and parts[1] == "_search":
            return self._search(parts[0], params, body)
        if method in ("GET", "POST") and len(parts) == 2 and parts[1] == "_count":
            return 200, self._count(parts[0], body)
        raise AssertionError(f"unexpected request {method} /{'/'.join(parts)}")

    def _properties(self, index: str) -> dict[str, Any]:
        assert index in self.indices, f"no such index {index}"
        return self.indices[index]["body"]["mappings"]["properties"]

    def _bulk(self, index: str, lines: list[dict[str, Any]]) -> dict[str, Any]:
        check_bulk_lines(lines, self._properties(index))
        items = []
        for action, source in zip(lines[::2], lines[1::2], strict=True):
            doc_id = action["index"]["_id"]
            if doc_id in self.failing_ids:
                items.append(
                    {
                        "index": {
                            "_index": index,
                            "_id": doc_id,
                            "status": 400,
                            "error": {"type": "mapper_parsing_exception"},
                        }
                    }
                )
                continue
            self.indices[index]["docs"][doc_id] = source
            items.append({"index": {"_index": index, "_id": doc_id, "result": "created", "status": 201}})
        return {"took": 3, "errors": any("error" in item["index"] for item in items), "items": items}

    def _count(self, index: str, body: dict[str, Any]) -> dict[str, Any]:
        """Per "Count": a body holding only a query."""
        assert set(body) == {"query"}, f"a count body holds only a query: {body}"
        check_query(body["query"], self._properties(index))
        allowed = set(find(body["query"], "terms")[0]["name"])
        return {
            "count": sum(doc["name"] in allowed for doc in self.indices[index]["docs"].values()),
            "_shards": {"total": 1, "successful": 1},
        }

    def _search(self, index: str, params: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        check_search(body, params, self._properties(index), self.pipelines)
        if self.canned is not None:
            return 200, self.canned
        query = body["query"]
        allowed = set(find(query, "terms")[0]["name"])
        docs = [(doc_id, doc) for doc_id, doc in sorted(self.indices[index]["docs"].items()) if doc["name"] in allowed]
        words = [word.lower() for match in find(query, "match") for word in match["text"].split()]
        knn = [params for clause in find(query, "knn") for params in clause.values()]
        if words and not knn:  # BM25 alone: only documents sharing a word
            docs = [(doc_id, doc) for doc_id, doc in docs if any(word in doc["text"].lower() for word in words)]
        ranked: list[tuple[str, float | None]]
        if "sort" in body:
            ranked = [(doc_id, None) for doc_id, doc in sorted(docs, key=lambda item: item[1]["name"])]
        else:
            ranked = [(doc_id, self.scores.get(doc_id, 0.5)) for doc_id, _ in docs]
            ranked.sort(key=lambda item: -(item[1] or 0.0))
            if knn and not words:
                ranked = ranked[: knn[0]["k"]]  # a knn query finds at most k documents
        start, size = body.get("from", 0), body.get("size", 10)
        if "hybrid" in query and start > len(ranked):  # the normalization workflow's end-of-results check
            return 400, PAST_THE_END
        hits = [{"_index": index, "_id": doc_id, "_score": score} for doc_id, score in ranked[start : start + size]]
        return 200, {
            "took": 2,
            "timed_out": False,
            "hits": {"total": {"value": len(ranked), "relation": "eq"}, "max_score": None, "hits": hits},
        }


def fake_client() -> tuple[OpenSearch, FakeOpenSearch]:
    """A real client whose one connection is the fake."""
    client = OpenSearch(hosts=[{"host": "search.test", "port": 443}], use_ssl=True, connection_class=FakeOpenSearch)
    connection = client.transport.get_connection()
    assert isinstance(connection, FakeOpenSearch)
    return client, connection
