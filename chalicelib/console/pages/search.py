"""The header's search: what the `search` query finds among all of the company's entities that the
person reads (docs/concepts/search.md), grouped by type in the order of each type's best result,
each linked to its page where the console has one (data.py's six types), with the object it
belongs to. One search call of the best SEARCH_LIMIT; the page says when more matched, and each
type with a list page links to that list's search for all of its matches."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from chalicelib.console import names as naming
from chalicelib.console.operations import messages, run
from chalicelib.console.pages import data
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page
from chalicelib.errors import ApiError

SEARCH_LIMIT = 100  # results read for the page: the `search` query's largest page
LIST_OF_TYPE = {dtype.key: dtype for dtype in data.TYPES.values()}  # entity type -> its list page


@page("GET", "/search")
def search_page(request: Request) -> Answer:
    query = request.query.get("q", "").strip()[: data.MAX_QUERY]
    groups: list[dict[str, Any]] = []
    total, shown = 0, 0
    errors: list[str] = []
    status = 200
    if query:
        try:
            answer = run(request, "search", {"query": query, "limit": SEARCH_LIMIT, "offset": 0})
            total, shown = answer["pagination"]["total"], len(answer["results"])
            groups = _groups(request, answer["results"], query)
        except ApiError as error:
            errors, status = messages(request, error), error.status
    return render(request, "search.html", status, errors=errors, query=query, groups=groups, total=total, shown=shown)


def _groups(request: Request, results: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    """The results by type, types in the order of their best result, each result as a row."""
    object_ids = [r["objectId"] for r in results if r.get("objectId") and r["type"] != "object"]
    objects = _object_names(request, list(dict.fromkeys(object_ids)))
    by_type: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        by_type.setdefault(result["type"], []).append(_row(result, objects))
    groups = []
    for type_name, rows in by_type.items():
        listed = LIST_OF_TYPE.get(type_name)
        more = f"/data/{listed.plural}?{urlencode({'q': query})}" if listed else None
        # the data pages' names for their types (Objekte, Objects), the webhooks page's for the rest
        title = translate(request.lang, f"data.type.{listed.plural}" if listed else f"webhooks.entity.{type_name}")
        groups.append({"type": type_name, "title": title, "rows": rows, "more_url": more})
    return groups


def _row(result: dict[str, Any], objects: dict[str, str]) -> dict[str, Any]:
    name = result["name"] or result["id"]
    matched = str((result.get("matched") or {}).get("text") or "")
    object_id = result.get("objectId") if result["type"] != "object" else None
    return {
        "name": name,
        "href": data.path_of(result["id"]),
        "matched": matched if matched and matched.casefold() not in name.casefold() else "",
        "object": {"text": objects.get(object_id, object_id), "href": data.path_of(object_id)} if object_id else None,
    }


def _object_names(request: Request, object_ids: list[str]) -> dict[str, str]:
    """The objects' names, one batched read (names.py) of at most its MAX_READ."""
    if not object_ids:
        return {}
    assert request.ctx is not None
    known = naming.Names(request.ctx).look_up(object_ids[: naming.MAX_READ]).known
    return {object_id: named.name for object_id, named in known.items() if named.name}
