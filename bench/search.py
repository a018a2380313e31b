"""Tool search: quality on the labelled query set (per language, on the development and the
held-out half), latency per query for both backends' local parts side by side in one run,
and the size of a 5-tool answer of meta.tools.search.

- embedded: what `make serve` and the MCP function run by default: query embedding (both
  models), BM25 and cosine ranking in process, the reordering above the backend.
- opensearch: everything this process does for one search against OpenSearch: query
  embedding, building the request, the client's serialisation and the parsing of the answer,
  the reordering, against the in-process fake of the HTTP API (tests/opensearch_fake.py), so
  the network and the cluster's own time are not in it.

The floor is the query embedding alone: what no backend can skip."""

from __future__ import annotations

import json
from typing import Any

from bench.harness import SMOKE, p, record, table, timed
from chalicelib import registry, resources
from chalicelib.context import CallContext
from chalicelib.mcp import meta
from chalicelib.scopes import ALL_SCOPES
from chalicelib.search import embedding, fit, quality, rerank, service
from chalicelib.search.backend import SearchBackend
from chalicelib.search.index_opensearch import index_catalogue
from chalicelib.search.opensearch_backend import OpenSearchBackend
from tests.opensearch_fake import fake_client

QUERIES = [("create a new tenant contact", "en"), ("Lastschriftmandat für Mieter anlegen", "de")]
REPEAT = 3 if SMOKE else 300
SAMPLE_EVERY = 20 if SMOKE else 1  # of the labelled requests: a smoke run asks every 20th


def _opensearch() -> OpenSearchBackend:
    client, _ = fake_client()
    backend = OpenSearchBackend(client)
    index_catalogue(backend)  # what deployment runs, against the fake
    return backend


def _latency(backend: SearchBackend, names: list[str], query: str, language: str) -> list[float]:
    """What service.search_tools does, on the given backend: embedding, the
    backend's ranking of its pool, the reordering above it."""

    def once() -> None:
        vector = embedding.embed_query(query, language).tolist()
        page = backend.search_tools(query, language=language, vector=vector, names=names, limit=service.POOL, offset=0)
        rerank.order(query, page.hits)

    once()
    return timed(once, REPEAT)


def main() -> str:
    resources.load_all()
    ops = registry.domain_operations()
    names = [op.name for op in ops]
    embedded = service.backend()
    backends: dict[str, SearchBackend] = {"embedded": embedded, "opensearch (local part)": _opensearch()}
    rows: list[list[Any]] = []
    for query, language in QUERIES:
        floor = timed(lambda q=query, lang=language: embedding.embed_query(q, lang), REPEAT)  # type: ignore[misc]
        rows.append([f"query embedding only ({language})", f"{p(floor, 0.5):.2f}", f"{p(floor, 0.95):.2f}", "1.0x"])
        for label, backend in backends.items():
            samples = _latency(backend, names, query, language)
            ratio = p(samples, 0.5) / p(floor, 0.5)
            rows.append(
                [
                    f"{label}, {'hybrid' if language == 'en' else 'embedding'} ({language})",
                    f"{p(samples, 0.5):.2f}",
                    f"{p(samples, 0.95):.2f}",
                    f"{ratio:.1f}x",
                ]
            )
    for language in ("en", "de"):  # every labelled request once: the spread of real wording and lengths
        labelled = [q["query"] for q in quality.load_queries() if q["language"] == language][::SAMPLE_EVERY]
        samples = [
            timed(
                lambda q=query, lang=language: service.search_tools(q, language=lang, names=names, limit=5, offset=0),  # type: ignore[misc]
                1,
            )[0]
            for query in labelled
        ]
        rows.append(
            [
                f"embedded, the {len(labelled)} labelled requests ({language})",
                f"{p(samples, 0.5):.2f}",
                f"{p(samples, 0.95):.2f}",
                "",
            ]
        )
    docs_samples = timed(lambda: embedded.search_docs("IBAN validation", names=names, limit=5, offset=0), REPEAT)
    rows.append(["embedded, docs BM25 (en)", f"{p(docs_samples, 0.5):.2f}", f"{p(docs_samples, 0.95):.2f}", ""])
    latency = table(["search", "p50 ms", "p95 ms", "vs embedding"], rows)
    for row in rows:
        if row[0].startswith(("embedded", "opensearch")):
            record(
                f"tool search, {row[0]}",
                "p50 / p95 vs query embedding",
                "interactive",
                f"{row[1]} / {row[2]} ms, {row[3]}",
            )

    def search(query: str, language: str) -> list[str]:
        return [hit.id for hit in service.search_tools(query, language=language, names=names, limit=10, offset=0).hits]

    quality_rows = []
    misses = []
    for half in quality.HALVES:
        scores = quality.evaluate(search, quality.load_queries(half=half)[::SAMPLE_EVERY])
        for language, s in sorted(scores.items(), reverse=True):
            quality_rows.append([half, language, s.queries, f"{s.recall_at_5:.3f}", f"{s.mrr:.3f}"])
            record(
                f"tool search quality ({half}, {language})",
                "recall@5 / MRR",
                "≥ 0.97 / ≥ 0.90",
                f"{s.recall_at_5:.3f} / {s.mrr:.3f}",
            )
            if half == "dev":
                misses += [
                    f"- ({language}) {m['query']!r}: wanted {m['relevant'][0]}, got {', '.join(m['found'])}"
                    for m in s.misses
                ]
    return (
        f"Tool search over {len(names)} domain tools, {REPEAT} queries each.\n\n{latency}\n\n"
        "Quality (embedded backend, tests/search_queries.json):\n\n"
        f"{table(['half', 'language', 'queries', 'recall@5', 'MRR'], quality_rows)}\n\n"
        f"{_nothing_fits(names)}\n\n"
        f"{_answer_sizes()}\n\nDevelopment half, no relevant tool in the top 5:\n" + ("\n".join(misses) or "(none)")
    )


def _nothing_fits(names: list[str]) -> str:
    """How often the answer says nothing fits (search/fit.py): of the requests no tool serves, and of
    the labelled ones that a tool does serve (each half)."""

    def says(query: str, language: str) -> bool:
        page = service.search_tools(query, language=language, names=names, limit=5, offset=0)
        return page.fit is not None and fit.nothing_fits(page.fit, language)

    sets = [("no tool serves (tests/search_nothing_fits.json)", quality.load_nothing_fits())]
    sets += [(f"labelled, {half} half", quality.load_queries(half=half)[::SAMPLE_EVERY]) for half in quality.HALVES]
    rows = []
    for label, requests in sets:
        for language, counted in sorted(quality.flagged(says, requests).items(), reverse=True):
            rows.append([label, language, counted.requests, counted.flagged, f"{counted.rate:.0%}"])
            record(f"tool search, nothing fits ({label}, {language})", "flagged", "", f"{counted.rate:.0%}")
    return "Nothing fits (`nothingFits`):\n\n" + table(["requests", "language", "count", "flagged", "rate"], rows)


def _answer_sizes() -> str:
    """Bytes of meta.tools.search's answer with limit 5 (compact JSON, as the MCP server sends it)."""
    ctx = CallContext("ten_bench", "key_bench", "bench", frozenset(ALL_SCOPES), channel="mcp")
    rows = []
    for query, language in [*QUERIES, ("list the units of a property", "en")]:
        answer = meta._search_tools(ctx, {"query": query, "language": language, "limit": 5})
        size = len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode())
        rows.append([query, size, ", ".join(tool["name"] for tool in answer["tools"])])
        record(f"meta.tools.search answer, 5 tools ({query!r})", "bytes", "small", f"{size:,}")
    return "Answer size, meta.tools.search with limit 5:\n\n" + table(["query", "bytes", "tools"], rows)


if __name__ == "__main__":
    print(main())
