"""A search as the calling key may see it. Only the entity types of the areas the key reads are
asked for; for a key limited to objects the candidates are judged by the reach (store/reach.py,
`within`: in batches, as a list's hits), before paging, so `total` counts only what the key
reaches. Ranking: per query word an exact word of the entity scores 3, a prefix 2, a word one typo
away 1; entities rank by their weakest word, then their mean, then the engine's relevance: exact
matches above prefixes above fuzzy ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib import scopes
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.entity_search import engine
from chalicelib.entity_search.engine import FUZZY_MIN, Hit, one_edit
from chalicelib.entity_search.fold import words
from chalicelib.entity_search.texts import (
    CONTENT,
    contacts_named,
    indexed_text,
    name_of,
    named_through,
    names_of_people,
    searchable_types,
    values,
)
from chalicelib.store import authors, reach
from chalicelib.store.entities import to_wire
from chalicelib.store.entity_reads import entity_pk, fetch_entities

CANDIDATES = 1_000  # the engine's best hits ranked and counted at most (`capped` beyond)
MAX_WORDS = 10  # the query's first words (each one more group of the engine's query)
EXACT, PREFIX, FUZZY = 3, 2, 1
EXCERPT_WORDS = 24  # the words of a PDF's text a result shows around its match


@dataclass(frozen=True)
class Ranked:
    hit: Hit
    weakest: int
    mean: float
    field: str
    text: str
    asked: tuple[str, ...] = ()


def readable_types(ctx: CallContext, wanted: list[str] | None) -> list[str]:
    """The searchable types the key reads; a type found by its contact's name (texts.named_through)
    only where the key reads contacts too: else the name would reach it through the other type."""
    areas = scopes.readable_areas(ctx.scopes)

    def readable(type_name: str) -> bool:
        through = named_through(type_name)
        return ENTITY_TYPES[type_name].area in areas and (not through or ENTITY_TYPES["contact"].area in areas)

    return [t for t in (wanted or searchable_types()) if t in searchable_types() and readable(t)]


def _contacts_reached(ctx: CallContext, hits: list[Hit]) -> list[Hit]:
    """For a key limited to objects, the hits found by contacts' names keep only those whose every
    contact the key reaches (an invoice within its objects may name a supplier outside them; a
    contract there, a party who is not)."""
    through = {hit.id for hit in hits if named_through(hit.type)}
    if not through:
        return hits
    items = fetch_entities([entity_pk(ctx.tenant_id, entity_id) for entity_id in sorted(through)])
    named = {str(item.id): contacts_named(str(item.type), item.data_dict()) for item in items}
    reached = reach.within(ctx, sorted({c for contacts in named.values() for c in contacts}))
    return [hit for hit in hits if hit.id not in through or (named.get(hit.id) and set(named[hit.id]) <= reached)]


def search(
    ctx: CallContext, query: str, *, types: list[str] | None, object_id: str | None, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int, bool]:
    """One page of results, the total and whether counting stopped at CANDIDATES."""
    asked = list(dict.fromkeys(words(query)))[:MAX_WORDS]
    allowed = readable_types(ctx, types)
    hits, capped = engine.current().search_rows(
        ctx.tenant_id, asked, types=allowed, object_id=object_id, cap=CANDIDATES
    )
    if reach.limited(ctx) and hits:
        reached = reach.within(ctx, [hit.id for hit in hits])
        hits = _contacts_reached(ctx, [hit for hit in hits if hit.id in reached])
    # ties in order of id, not by the engine's BM25: its statistics are the whole index's, every
    # tenant's, so another tenant's writes would reorder this tenant's answer (and tell of them)
    ranked = sorted((rank(hit, asked) for hit in hits), key=lambda r: (-r.weakest, -r.mean, r.hit.id))
    page = ranked[offset : offset + limit]
    items = {item.id: item for item in fetch_entities([entity_pk(ctx.tenant_id, r.hit.id) for r in page])}
    through = _contacts_shown(ctx, items) if authors.withholds(ctx) else {}
    results = [_result(ctx, r, items[r.hit.id], through.get(r.hit.id)) for r in page if r.hit.id in items]
    return results, len(ranked), capped


def _contacts_shown(ctx: CallContext, items: dict[Any, Any]) -> dict[str, list[dict[str, Any]]]:
    """For the page's entities found through contacts: those contacts as the key reads them."""
    named = {str(entity_id): contacts_named(str(item.type), item.data_dict()) for entity_id, item in items.items()}
    wanted = sorted({c for contacts in named.values() for c in contacts})
    contacts = {str(c.id): to_wire(ctx, c) for c in fetch_entities([entity_pk(ctx.tenant_id, i) for i in wanted])}
    return {entity_id: [contacts[c] for c in ids if c in contacts] for entity_id, ids in named.items() if ids}


def _result(ctx: CallContext, ranked: Ranked, item: Any, people: list[dict[str, Any]] | None) -> dict[str, Any]:
    """A result named from the entity as the key reads it (to_wire: over MCP, for a key that asks
    for it, other parties' free text as placeholders naming them; an entity found through contacts
    by those contacts), the index's text otherwise."""
    hit, wire = ranked.hit, to_wire(ctx, item)
    name, text = hit.name, ranked.text
    if ranked.field == CONTENT:  # a PDF's text: the words around the match (withheld below: no field shows it)
        text = excerpt(text, list(ranked.asked))
    if authors.withholds(ctx):
        through = named_through(hit.type)
        read = {"contact": people or []} if through else wire  # what the matched field's path is read in
        name = names_of_people(people or []) if through else name_of(hit.type, wire)
        same_field = [t for f, t in hit.fields if f == ranked.field]
        shown = values(read, tuple(ranked.field.split(".")))
        at = same_field.index(text) if text in same_field else 0
        text = shown[at] if at < len(shown) else ""
    return {
        "type": hit.type,
        "id": hit.id,
        "aliases": wire["aliases"],
        "name": name,
        "objectId": hit.object_id,
        "matched": {"field": ranked.field, "text": text},
        "score": round(ranked.weakest + ranked.mean / 10, 3),
    }


def rank(hit: Hit, asked: list[str]) -> Ranked:
    """How well the hit's fields match the query's words (the best field is the one `matched` names)."""
    per_field = [(name, text, words(indexed_text(name, text))) for name, text in hit.fields]
    every = [w for _, _, field_words in per_field for w in field_words]
    scores = [match(word, every) for word in asked] or [0]
    best_field, best_text, best = "", "", -1
    for name, text, field_words in per_field:
        score = sum(match(word, field_words) for word in asked)
        if score > best:
            best_field, best_text, best = name, text, score
    return Ranked(hit, min(scores), sum(scores) / len(scores), best_field, best_text, tuple(asked))


def excerpt(text: str, asked: list[str]) -> str:
    """The words of a long text around the first that matches a word of the query (EXCERPT_WORDS of
    them, "…" where cut): a PDF's text is no result's field to show whole."""
    parts = text.split()
    at = next((i for i, part in enumerate(parts) if any(match(w, words(part)) for w in asked)), 0)
    start = max(0, at - EXCERPT_WORDS // 3)
    shown = " ".join(parts[start : start + EXCERPT_WORDS])
    return ("… " if start else "") + shown + (" …" if start + EXCERPT_WORDS < len(parts) else "")


def match(word: str, among: list[str]) -> int:
    """How `word` of the query matches the words `among`: exactly, as a prefix, one typo away, not."""
    if word in among:
        return EXACT
    if any(w.startswith(word) for w in among):
        return PREFIX
    if len(word) >= FUZZY_MIN and any(one_edit(word, w) for w in among):
        return FUZZY
    return 0
