"""OpenSearchBackend against an in-process fake of the OpenSearch HTTP API (no server exists offline).

The fake (tests/opensearch_fake.py) records every request, checks it against the request shapes
the OpenSearch documentation gives, and answers like OpenSearch would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch

from chalicelib.opensearch_client import client_from_env
from chalicelib.search.backend import BM25_WEIGHT, VECTOR_WEIGHT, Hit, Page, SearchDocument
from chalicelib.search.opensearch_backend import OpenSearchBackend, index_body, pipeline_body
from tests.opensearch_fake import (
    DIM,
    FakeOpenSearch,
    Request,
    check_bulk_lines,
    check_index_body,
    check_pipeline_body,
    check_search,
    fake_client,
    find,
)

ROOT = Path(__file__).resolve().parents[2]


# --- Fixtures ------------------------------------------------------------------------------------------

TOOLS = ["contracts.list", "invoices.create", "meters.read", "tenants.create", "tenants.list"]


def vec(*values: float) -> tuple[float, ...]:
    return tuple(values)


def tool(name: str) -> SearchDocument:
    return SearchDocument(
        id=name,
        text=f"{name.replace('.', ' ')} tool",
        embedded_texts=("en", "de"),
        vectors=(vec(1, 0, 0, 0), vec(0, 1, 0, 0)),
    )


@pytest.fixture()
def server() -> FakeOpenSearch:
    client, connection = fake_client()
    connection.client = client  # type: ignore[attr-defined]
    return connection


@pytest.fixture()
def backend(server: FakeOpenSearch) -> OpenSearchBackend:
    return OpenSearchBackend(server.client)  # type: ignore[attr-defined]


@pytest.fixture()
def indexed(server: FakeOpenSearch, backend: OpenSearchBackend) -> OpenSearchBackend:
    backend.create_indexes(DIM)
    backend.bulk_index("tools", [tool(name) for name in TOOLS])
    backend.bulk_index(
        "docs",
        [
            SearchDocument(id=name, text=f"# {name}\nCreates or lists {name.split('.')[0]}.", embedded_texts=())
            for name in TOOLS
        ],
    )
    server.requests.clear()
    return backend


def only_search(server: FakeOpenSearch) -> Request:
    assert len(server.requests) == 1, [r.path for r in server.requests]
    request = server.requests[0]
    assert request.method == "POST" and request.path.endswith("/_search")
    return request


# --- Tests ---------------------------------------------------------------------------------------------


def test_create_indexes_sends_mappings_and_the_hybrid_pipeline(
    server: FakeOpenSearch, backend: OpenSearchBackend
) -> None:
    backend.create_indexes(DIM)

    assert [(r.method, r.path) for r in server.requests] == [
        ("HEAD", "/pm-tools"),
        ("PUT", "/pm-tools"),
        ("HEAD", "/pm-docs"),
        ("PUT", "/pm-docs"),
        ("PUT", "/_search/pipeline/pm-hybrid"),
    ]
    tools = server.requests[1].body
    assert tools["settings"] == {"index": {"knn": True}}
    properties = tools["mappings"]["properties"]
    assert properties["name"] == {"type": "keyword"}
    assert properties["text"] == {"type": "text", "analyzer": "english"}
    assert properties["vectors"]["type"] == "nested"
    assert properties["vectors"]["properties"]["vector"] == {
        "type": "knn_vector",
        "dimension": DIM,
        "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": "lucene"},
    }
    assert "vectors" not in server.requests[3].body["mappings"]["properties"]
    processor = server.requests[4].body["phase_results_processors"][0]["normalization-processor"]
    assert processor["normalization"] == {"technique": "min_max"}
    assert processor["combination"] == {
        "technique": "arithmetic_mean",
        "parameters": {"weights": [BM25_WEIGHT, VECTOR_WEIGHT]},
    }


def test_create_indexes_keeps_existing_indexes_and_replaces_the_pipeline(
    server: FakeOpenSearch, backend: OpenSearchBackend
) -> None:
    backend.create_indexes(DIM)
    server.requests.clear()

    backend.create_indexes(DIM)

    assert [(r.method, r.path) for r in server.requests] == [
        ("HEAD", "/pm-tools"),
        ("HEAD", "/pm-docs"),
        ("PUT", "/_search/pipeline/pm-hybrid"),
    ]


def test_prefix_names_indexes_and_pipeline(server: FakeOpenSearch) -> None:
    OpenSearchBackend(server.client, prefix="stage").create_indexes(DIM)  # type: ignore[attr-defined]

    assert set(server.indices) == {"stage-tools", "stage-docs"} and set(server.pipelines) == {"stage-hybrid"}


def test_bulk_index_sends_one_request_and_refreshes(server: FakeOpenSearch, backend: OpenSearchBackend) -> None:
    backend.create_indexes(DIM)
    server.requests.clear()

    backend.bulk_index("tools", [tool("tenants.create"), tool("tenants.list")])

    assert len(server.requests) == 1
    request = server.requests[0]
    assert (request.method, request.path) == ("POST", "/pm-tools/_bulk")
    assert request.params == {"refresh": "true"}
    assert request.body[0] == {"index": {"_id": "tenants.create"}}
    assert request.body[1] == {
        "name": "tenants.create",
        "text": "tenants create tool",
        "vectors": [{"vector": [1.0, 0.0, 0.0, 0.0]}, {"vector": [0.0, 1.0, 0.0, 0.0]}],
    }
    assert [line["index"]["_id"] for line in request.body[::2]] == ["tenants.create", "tenants.list"]
    assert set(server.indices["pm-tools"]["docs"]) == {"tenants.create", "tenants.list"}


def test_bulk_index_docs_carry_no_vectors(server: FakeOpenSearch, backend: OpenSearchBackend) -> None:
    backend.create_indexes(DIM)
    server.requests.clear()

    backend.bulk_index("pm-docs", [SearchDocument(id="tenants.list", text="# tenants.list", embedded_texts=())])

    assert server.requests[0].path == "/pm-docs/_bulk"
    assert server.requests[0].body[1] == {"name": "tenants.list", "text": "# tenants.list"}


def test_bulk_index_reports_failed_items_and_unknown_indexes(
    server: FakeOpenSearch, backend: OpenSearchBackend
) -> None:
    backend.create_indexes(DIM)
    server.failing_ids = {"tenants.list"}

    with pytest.raises(RuntimeError, match="failed for 1 documents"):
        backend.bulk_index("tools", [tool("tenants.create"), tool("tenants.list")])
    with pytest.raises(ValueError, match="unknown index"):
        backend.bulk_index("other", [tool("tenants.create")])


def test_english_query_is_hybrid_through_the_pipeline(server: FakeOpenSearch, indexed: OpenSearchBackend) -> None:
    server.scores = {"tenants.create": 0.9, "tenants.list": 0.7}
    names = ["tenants.list", "tenants.create", "meters.read"]

    page = indexed.search_tools(
        "create a tenant", language="en", vector=[0.1, 0.2, 0.3, 0.4], names=names, limit=2, offset=0
    )

    request = only_search(server)
    assert request.path == "/pm-tools/_search"
    assert request.params == {"search_pipeline": "pm-hybrid"}
    assert (request.body["from"], request.body["size"]) == (0, 2)
    hybrid = request.body["query"]["hybrid"]
    match, nested = hybrid["queries"]
    assert match == {
        "bool": {"must": {"match": {"text": "create a tenant"}}, "filter": {"terms": {"name": sorted(names)}}}
    }
    assert nested["nested"]["path"] == "vectors" and nested["nested"]["score_mode"] == "max"
    knn = nested["nested"]["query"]["knn"]["vectors.vector"]
    assert knn == {"vector": [0.1, 0.2, 0.3, 0.4], "k": 3, "filter": {"terms": {"name": sorted(names)}}}
    assert hybrid["pagination_depth"] == 3  # every allowed tool is a candidate, on every page alike
    assert page == Page(hits=[Hit("tenants.create", 0.9), Hit("tenants.list", 0.7)], total=3)


def test_german_query_is_a_filtered_nested_knn_alone(server: FakeOpenSearch, indexed: OpenSearchBackend) -> None:
    server.scores = {"tenants.create": 0.95, "meters.read": 0.6, "tenants.list": 0.8}
    names = ["tenants.list", "tenants.create", "meters.read"]

    page = indexed.search_tools(
        "Mieter anlegen", language="de", vector=[0.4, 0.3, 0.2, 0.1], names=names, limit=2, offset=0
    )

    request = only_search(server)
    assert "search_pipeline" not in request.params
    assert "hybrid" not in request.body["query"] and not find(request.body, "match")
    nested = request.body["query"]["nested"]
    assert (nested["path"], nested["score_mode"]) == ("vectors", "max")
    knn = nested["query"]["knn"]["vectors.vector"]
    assert knn["vector"] == [0.4, 0.3, 0.2, 0.1] and knn["filter"] == {"terms": {"name": sorted(names)}}
    assert knn["k"] >= request.body["from"] + request.body["size"]
    # cosinesimil scores are (1 + cos) / 2 ("Spaces"); the page reports the cosine.
    assert page == Page(hits=[Hit("tenants.create", 0.9), Hit("tenants.list", 0.6)], total=3)


def test_knn_k_reaches_offset_plus_limit_and_total_counts_only_allowed_names(
    server: FakeOpenSearch, indexed: OpenSearchBackend
) -> None:
    page = indexed.search_tools(
        "Zähler", language="de", vector=[1, 0, 0, 0], names=["meters.read", "tenants.list"], limit=10, offset=5
    )

    body = only_search(server).body
    assert body["query"]["nested"]["query"]["knn"]["vectors.vector"]["k"] == 15
    assert (body["from"], body["size"]) == (5, 10)
    assert page == Page(hits=[], total=2)


def test_empty_query_browses_by_name(server: FakeOpenSearch, indexed: OpenSearchBackend) -> None:
    names = ["tenants.list", "contracts.list", "meters.read"]

    page = indexed.search_tools("", language="en", vector=None, names=names, limit=10, offset=0)

    request = only_search(server)
    assert request.path == "/pm-tools/_search" and request.params == {}
    assert request.body["query"] == {"bool": {"must": {"match_all": {}}, "filter": {"terms": {"name": sorted(names)}}}}
    assert request.body["sort"] == [{"name": "asc"}]
    assert page == Page(hits=[Hit("contracts.list", 0.0), Hit("meters.read", 0.0), Hit("tenants.list", 0.0)], total=3)


def test_docs_search_is_bm25_on_the_docs_index(server: FakeOpenSearch, indexed: OpenSearchBackend) -> None:
    server.scores = {"tenants.list": 3.2, "tenants.create": 4.1}

    page = indexed.search_docs("tenants", names=["tenants.list", "tenants.create", "meters.read"], limit=5, offset=0)

    request = only_search(server)
    assert request.path == "/pm-docs/_search" and request.params == {}
    assert request.body["query"] == {
        "bool": {
            "must": {"match": {"text": "tenants"}},
            "filter": {"terms": {"name": ["meters.read", "tenants.create", "tenants.list"]}},
        }
    }
    assert page == Page(hits=[Hit("tenants.create", 4.1), Hit("tenants.list", 3.2)], total=2)


def test_empty_docs_query_browses_by_name(server: FakeOpenSearch, indexed: OpenSearchBackend) -> None:
    page = indexed.search_docs(" ", names=["tenants.list", "invoices.create"], limit=1, offset=1)

    body = only_search(server).body
    assert body["sort"] == [{"name": "asc"}] and find(body, "match_all")
    assert page == Page(hits=[Hit("tenants.list", 0.0)], total=2)


SEARCHES = {
    "hybrid": lambda b, names: b.search_tools(
        "tenant", language="en", vector=[1, 0, 0, 0], names=names, limit=3, offset=1
    ),
    "knn": lambda b, names: b.search_tools(
        "Mieter", language="de", vector=[1, 0, 0, 0], names=names, limit=3, offset=1
    ),
    "browse": lambda b, names: b.search_tools("", language="de", vector=None, names=names, limit=3, offset=1),
    "docs": lambda b, names: b.search_docs("tenant", names=names, limit=3, offset=1),
    "docs-browse": lambda b, names: b.search_docs("", names=names, limit=3, offset=1),
}


@pytest.mark.parametrize("kind", SEARCHES)
def test_every_search_filters_every_clause_by_names_and_pages(
    server: FakeOpenSearch, indexed: OpenSearchBackend, kind: str
) -> None:
    names = {"tenants.list", "meters.read"}

    SEARCHES[kind](indexed, names)

    body = only_search(server).body
    query = body["query"]
    branches = query["hybrid"]["queries"] if "hybrid" in query else [query]
    for branch in branches:  # each scoring branch is restricted, not just the request as a whole
        assert find(branch, "terms") and all(
            terms == {"name": ["meters.read", "tenants.list"]} for terms in find(branch, "terms")
        )
    assert (body["from"], body["size"]) == (1, 3)


def test_no_allowed_names_sends_no_request(server: FakeOpenSearch, indexed: OpenSearchBackend) -> None:
    assert indexed.search_tools("tenant", language="en", vector=[1, 0, 0, 0], names=[], limit=5, offset=0) == Page(
        hits=[], total=0
    )
    assert indexed.search_docs("tenant", names=set(), limit=5, offset=0) == Page(hits=[], total=0)
    assert server.requests == []


def test_pages_concatenate_to_the_whole_ranking(server: FakeOpenSearch, indexed: OpenSearchBackend) -> None:
    server.scores = {name: 1.0 - i / 10 for i, name in enumerate(TOOLS)}

    pages = [
        indexed.search_tools("tool", language="en", vector=[0, 0, 1, 0], names=TOOLS, limit=2, offset=offset)
        for offset in (0, 2, 4)
    ]

    assert [hit.id for page in pages for hit in page.hits] == TOOLS
    assert {page.total for page in pages} == {5}
    depths = {r.body["query"]["hybrid"]["pagination_depth"] for r in server.requests}
    assert depths == {5}  # "keep the pagination_depth value the same while navigating between pages"


def test_hybrid_page_past_the_end_is_empty_with_the_total(server: FakeOpenSearch, indexed: OpenSearchBackend) -> None:
    names = ["tenants.list", "tenants.create", "meters.read"]

    page = indexed.search_tools("tenant", language="en", vector=[1, 0, 0, 0], names=names, limit=5, offset=10)

    assert [(r.method, r.path) for r in server.requests] == [
        ("POST", "/pm-tools/_search"),
        ("POST", "/pm-tools/_count"),
    ]
    assert server.requests[1].body == {"query": {"terms": {"name": sorted(names)}}}
    assert page == Page(hits=[], total=3)


def test_other_hybrid_errors_propagate(server: FakeOpenSearch, indexed: OpenSearchBackend) -> None:
    from opensearchpy.exceptions import RequestError

    error = {
        "error": {
            "root_cause": [{"type": "illegal_argument_exception", "reason": "pagination_depth is missing"}],
            "type": "x",
        },
        "status": 400,
    }
    server._route = lambda *args: (400, error)  # type: ignore[method-assign]

    with pytest.raises(RequestError):
        indexed.search_tools("tenant", language="en", vector=[1, 0, 0, 0], names=["tenants.list"], limit=5, offset=1)


def test_hits_parse_into_a_page(server: FakeOpenSearch, indexed: OpenSearchBackend) -> None:
    server.canned = {
        "took": 1,
        "timed_out": False,
        "hits": {
            "total": {"value": 42, "relation": "eq"},
            "max_score": 0.812345,
            "hits": [
                {"_index": "pm-tools", "_id": "a.b", "_score": 0.812345},
                {"_index": "pm-tools", "_id": "c.d", "_score": 0.1},
            ],
        },
    }
    assert indexed.search_tools(
        "x", language="en", vector=[1, 0, 0, 0], names=["a.b", "c.d"], limit=2, offset=0
    ) == Page(hits=[Hit("a.b", 0.8123), Hit("c.d", 0.1)], total=42)
    # knn alone: never more candidates than allowed names; rest_total_hits_as_int answers a bare number
    server.canned = {"hits": {"total": 42, "hits": [{"_id": "a.b", "_score": 1.0}]}}
    assert indexed.search_tools(
        "x", language="de", vector=[1, 0, 0, 0], names=["a.b", "c.d"], limit=2, offset=0
    ) == Page(hits=[Hit("a.b", 1.0)], total=2)
    server.canned = {
        "hits": {"total": {"value": 2, "relation": "eq"}, "hits": [{"_id": "a.b", "_score": None, "sort": ["a.b"]}]}
    }
    assert indexed.search_docs("", names=["a.b", "c.d"], limit=1, offset=0) == Page(hits=[Hit("a.b", 0.0)], total=2)


# --- The checks themselves reject what OpenSearch rejects --------------------------------------------

TOOLS_PROPERTIES = index_body(DIM)["mappings"]["properties"]
KNN = {"nested": {"path": "vectors", "query": {"knn": {"vectors.vector": {"vector": [1, 0, 0, 0], "k": 5}}}}}
MATCH = {"match": {"text": "tenant"}}
PIPELINES = {"p": pipeline_body()}


def _with(body: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    body = json.loads(json.dumps(body))
    target = body
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return body


BAD = {
    "hybrid of one query": lambda: check_search(
        {"query": {"hybrid": {"queries": [MATCH]}}}, {"search_pipeline": "p"}, TOOLS_PROPERTIES, PIPELINES
    ),
    "hybrid of six queries": lambda: check_search(
        {"query": {"hybrid": {"queries": [MATCH] * 6}}}, {"search_pipeline": "p"}, TOOLS_PROPERTIES, PIPELINES
    ),
    "hybrid without pipeline": lambda: check_search(
        {"query": {"hybrid": {"queries": [MATCH, KNN]}}}, {}, TOOLS_PROPERTIES, PIPELINES
    ),
    "hybrid pipeline in the body": lambda: check_search(
        {"query": {"hybrid": {"queries": [MATCH, KNN]}}, "search_pipeline": "p"}, {}, TOOLS_PROPERTIES, PIPELINES
    ),
    "hybrid paged without depth": lambda: check_search(
        {"from": 5, "query": {"hybrid": {"queries": [MATCH, KNN]}}},
        {"search_pipeline": "p"},
        TOOLS_PROPERTIES,
        PIPELINES,
    ),
    "hybrid inside bool": lambda: check_search(
        {"query": {"bool": {"must": {"hybrid": {"queries": [MATCH, KNN]}}}}}, {}, TOOLS_PROPERTIES, PIPELINES
    ),
    "knn vector of wrong dimension": lambda: check_search(
        {"query": _with(KNN, ["nested", "query", "knn", "vectors.vector", "vector"], [1, 0])}, {}, TOOLS_PROPERTIES, {}
    ),
    "knn k of zero": lambda: check_search(
        {"query": _with(KNN, ["nested", "query", "knn", "vectors.vector", "k"], 0)}, {}, TOOLS_PROPERTIES, {}
    ),
    "knn k not an integer": lambda: check_search(
        {"query": _with(KNN, ["nested", "query", "knn", "vectors.vector", "k"], 2.5)}, {}, TOOLS_PROPERTIES, {}
    ),
    "knn zero vector": lambda: check_search(
        {"query": _with(KNN, ["nested", "query", "knn", "vectors.vector", "vector"], [0, 0, 0, 0])},
        {},
        TOOLS_PROPERTIES,
        {},
    ),
    "knn outside its nested query": lambda: check_search({"query": KNN["nested"]["query"]}, {}, TOOLS_PROPERTIES, {}),
    "nested score mode": lambda: check_search(
        {"query": _with(KNN, ["nested", "score_mode"], "best")}, {}, TOOLS_PROPERTIES, {}
    ),
    "sort on a text field": lambda: check_search(
        {"query": {"match_all": {}}, "sort": [{"text": "asc"}]}, {}, TOOLS_PROPERTIES, {}
    ),
    "terms on a text field": lambda: check_search({"query": {"terms": {"text": ["a"]}}}, {}, TOOLS_PROPERTIES, {}),
    "page past the result window": lambda: check_search(
        {"from": 9_995, "size": 10, "query": {"match_all": {}}}, {}, TOOLS_PROPERTIES, {}
    ),
    "weights not summing to 1": lambda: check_pipeline_body(
        _with(
            pipeline_body(),
            ["phase_results_processors", 0, "normalization-processor", "combination", "parameters", "weights"],
            [0.5, 0.6],
        )
    ),
    "unknown normalization": lambda: check_pipeline_body(
        _with(
            pipeline_body(),
            ["phase_results_processors", 0, "normalization-processor", "normalization", "technique"],
            "softmax",
        )
    ),
    "unknown combination": lambda: check_pipeline_body(
        _with(
            pipeline_body(),
            ["phase_results_processors", 0, "normalization-processor", "combination", "technique"],
            "max",
        )
    ),
    "knn_vector without method": lambda: check_index_body(
        _with(
            index_body(DIM),
            ["mappings", "properties", "vectors", "properties", "vector"],
            {"type": "knn_vector", "dimension": DIM},
        )
    ),
    "knn_vector without dimension": lambda: check_index_body(
        _with(index_body(DIM), ["mappings", "properties", "vectors", "properties", "vector", "dimension"], None)
    ),
    "knn without index.knn": lambda: check_index_body(_with(index_body(DIM), ["settings"], {})),
    "lucene space it lacks": lambda: check_index_body(
        _with(
            index_body(DIM),
            ["mappings", "properties", "vectors", "properties", "vector", "method"],
            {"name": "hnsw", "engine": "lucene", "space_type": "l1"},
        )
    ),
    "bulk without source line": lambda: check_bulk_lines([{"index": {"_id": "a"}}], TOOLS_PROPERTIES),
    "bulk source as action": lambda: check_bulk_lines(
        [{"name": "a", "text": "b"}, {"index": {"_id": "a"}}], TOOLS_PROPERTIES
    ),
    "bulk vector of wrong dimension": lambda: check_bulk_lines(
        [{"index": {"_id": "a"}}, {"name": "a", "vectors": [{"vector": [1.0]}]}], TOOLS_PROPERTIES
    ),
}


@pytest.mark.parametrize("case", BAD)
def test_shape_checks_reject_undocumented_requests(case: str) -> None:
    with pytest.raises((AssertionError, KeyError, TypeError)):
        BAD[case]()


# --- The client from the environment -------------------------------------------------------------------


@pytest.fixture()
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_CONFIG_FILE": str(tmp_path / "none"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
        "PM_OPENSEARCH_ENDPOINT": "https://search-pm-abc123.eu-central-1.es.amazonaws.com",
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_REGION", "AWS_PROFILE", "PM_OPENSEARCH_SERVICE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def _signed_scope(client: OpenSearch) -> str:
    """Sign a request the way the connection would (offline) and return its credential scope."""
    import requests

    connection = client.transport.get_connection()
    prepared = requests.Request("GET", connection.host + "/_cluster/health").prepare()
    authorization = connection.session.auth(prepared).headers["Authorization"]
    return authorization.split("Credential=")[1].split(",")[0]


def test_client_from_env_signs_for_the_domain_without_network(aws_env: pytest.MonkeyPatch) -> None:
    from opensearchpy import AWSV4SignerAuth, RequestsHttpConnection

    client = client_from_env()

    connection = client.transport.get_connection()
    assert isinstance(connection, RequestsHttpConnection)
    assert connection.host == "https://search-pm-abc123.eu-central-1.es.amazonaws.com:443"
    assert isinstance(connection.session.auth, AWSV4SignerAuth) and connection.session.auth.service == "es"
    assert _signed_scope(client).startswith("testing/") and _signed_scope(client).endswith(
        "/eu-central-1/es/aws4_request"
    )


def test_client_from_env_serverless_and_region(aws_env: pytest.MonkeyPatch) -> None:
    aws_env.setenv("PM_OPENSEARCH_SERVICE", "aoss")
    aws_env.setenv("AWS_REGION", "eu-west-1")
    aws_env.setenv("PM_OPENSEARCH_ENDPOINT", "https://abc123.eu-west-1.aoss.amazonaws.com")

    assert _signed_scope(client_from_env()).endswith("/eu-west-1/aoss/aws4_request")


def test_client_from_env_wants_https(aws_env: pytest.MonkeyPatch) -> None:
    aws_env.setenv("PM_OPENSEARCH_ENDPOINT", "http://localhost:9200")

    with pytest.raises(ValueError, match="https"):
        client_from_env()


def test_importing_the_backend_loads_neither_opensearchpy_nor_boto3() -> None:
    code = (
        "import sys, chalicelib.search.opensearch_backend; "
        "print([m for m in ('opensearchpy', 'boto3') if m in sys.modules])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"


@pytest.mark.slow
def test_deployment_indexes_the_whole_catalogue_with_its_vectors() -> None:
    from chalicelib import registry
    from chalicelib.search import corpus, embedding
    from chalicelib.search.index_opensearch import index_catalogue

    client, server = fake_client()
    tools, docs = index_catalogue(OpenSearchBackend(client))
    assert tools == docs == len([op for op in registry.REGISTRY.values() if op.surface == "v2" and op.authenticated])
    stored = server.indices["pm-tools"]["docs"]["contacts.create"]
    texts = corpus.tool_document(registry.REGISTRY["contacts.create"]).embedded_texts  # summary, German gloss, examples
    assert len(stored["vectors"]) == len(texts) > 2 and len(stored["vectors"][0]["vector"]) == embedding.DIMENSION
    assert server.indices["pm-docs"]["docs"]["contacts.create"]["text"].startswith("# contacts.create")
