"""The order of a tool search above the backends (both rank the candidates, this reorders
the best of them): the backend's score, blended with the best score among the tools of the
same resource (the request matches a resource's tools as a family: "Aushang anzeigen" may
sit nearest to an example of posts.restore, and posts.show should inherit that), then a
bonus when the tool's action is what the request's verbs ask for (half of it for an upsert asked to
create or change one thing: the create or the update is the tool for that, intent.fits) and when its resource is
what the request's nouns name (chalicelib/search/intent.py, nouns.py). Weights tuned on the
development half of tests/search_queries.json."""

from __future__ import annotations

from chalicelib.search import gloss, intent, nouns
from chalicelib.search.backend import Hit

FAMILY_WEIGHT = 0.3
INTENT_WEIGHT = 0.3
ENTITY_WEIGHT = 0.3


def order(query: str, hits: list[Hit]) -> list[Hit]:
    if not hits:
        return hits
    low, high = min(h.score for h in hits), max(h.score for h in hits)
    spread = (high - low) or 1.0
    asked = intent.intents(query)
    if not asked:  # no verb: a read, and a list when the thing named is a plural ("Eingangsrechnungen der WEG")
        asked = {"list"} if nouns.names_many(query) else {"show", "list"}
    elif "show" in asked and nouns.names_many(query):
        asked.add("list")  # "Zustellungen des Webhooks anzeigen": showing many things is a list
    named = nouns.entities(query)
    if "audit" in asked:  # "who changed the lease": the lease is where to look, the audit trail is what is asked
        named = {resource: 0.5 * share for resource, share in named.items()} | {"audit": 1.0}

    family_best: dict[str, float] = {}
    for hit in hits:
        resource = gloss.resource_of(hit.id)
        family_best[resource] = max(family_best.get(resource, low), hit.score)

    def score(hit: Hit) -> float:
        own = (hit.score - low) / spread
        family = (family_best[gloss.resource_of(hit.id)] - low) / spread
        base = (1 - FAMILY_WEIGHT) * own + FAMILY_WEIGHT * family
        serves = intent.tool_intents(hit.id)
        wanted = INTENT_WEIGHT * intent.fits(hit.id, asked)
        # the search finds every entity type: whatever the request names is what it looks for
        entity = max(named.values(), default=0.0) if "search" in serves else named.get(gloss.resource_of(hit.id), 0.0)
        return base + wanted + ENTITY_WEIGHT * entity

    rescored = [Hit(hit.id, round(score(hit), 4)) for hit in hits]
    return sorted(rescored, key=lambda hit: -hit.score)
