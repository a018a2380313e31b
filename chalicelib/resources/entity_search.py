"""`search`: find any entity by what people call it (issue 53; chalicelib/entity_search,
docs/concepts/search.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.entity_search import find
from chalicelib.entity_search.texts import searchable_types
from chalicelib.errors import invalid_at
from chalicelib.registry import operation

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import SearchArgs

s.VALUE_LISTS["searchableTypes"] = searchable_types

RESULT = s.obj(
    {
        "type": s.string("Entity type (contact, object, unit, ...)."),
        "id": s.string("Entity id."),
        "aliases": s.array(s.string("Alias."), "The entity's aliases of the key's integration.", max_items=100),
        "name": s.string("What the entity is called: a contact's name, an object's, a unit's number, a title."),
        "objectId": {
            **s.string("The object it belongs to (an object: itself); null when it has none of its own."),
            "nullable": True,
        },
        "matched": s.obj(
            {
                "field": s.string("The field that matched best, e.g. lastName, emails.address, address.street."),
                "text": s.string("That field's text; of a PDF's text (`content`), the words around the match."),
            },
            required=["field", "text"],
        ),
        "score": {
            "type": "number",
            "description": "Relevance: 3.x exact words, 2.x prefixes, 1.x a typo; higher first.",
        },
    },
    required=["type", "id", "aliases", "name", "objectId", "matched", "score"],
)
DOC = """Find any entity by what people call it: a contact by name, company, e-mail address or phone number;
an object or object address by name, street, postal code or city; a unit by its number; a process or
process update, a document (title, file name, and the text of a PDF's first pages: `matched.field`
`content`, `matched.text` the words around the match), a call record, a post, a bank account info (holder, bank,
label, IBAN) by its words; a signatory, advisor, responsibility or inbound invoice by the name of its
contact (`matched.field` `contact.lastName`, ...).

German as people type it: case, umlauts and ß are folded both ways ("Schaefer" finds "Schäfer",
"Strasse" finds "Straße"), "str." is "straße", a word finds the words it begins ("Linden" finds
"Lindenstraße 12"), a word of five letters or more may hold one typo, and the words may come in any
order (every word must match). Exact words rank above prefixes above typos.

The answer holds only what the key may read: the entity types of its read scopes' areas, and for a
key limited to objects only what lies within them (`pagination.total` counts only those). Deleted
entities are not found. The index follows the change stream: a change is found a moment after its
write. At most the best 1,000 matches are ranked and counted (`pagination.capped`): narrow the query,
`types` or `objectId` to reach others."""


@operation(
    name="search",
    kind="query",
    summary="Find any entity (contacts, objects, units, documents, ...) by name, number, address, e-mail or title.",
    docs=DOC,
    args=s.obj(
        {
            "query": s.string(
                "What to look for: names, numbers, streets, e-mail addresses, words of a title.", minLength=1
            ),
            "types": s.array(
                s.known_values(s.string("Entity type (contact, object, unit, ...).", max_length=50), "searchableTypes"),
                "Only entities of these types.",
                max_items=50,
            ),
            "objectId": s.string(
                "Only entities of this object (its id; an object: itself).", max_length=100, minLength=1
            ),
            **s.paging(100),
        },
        required=["query", "limit", "offset"],
    ),
    result=s.obj(
        {"results": s.array(RESULT, "The matches, best first.", max_items=100), "pagination": s.PAGINATION},
        required=["results", "pagination"],
    ),
    scope="read",
    idempotent=True,
    example={"query": "Lindenstraße", "limit": 10, "offset": 0},
)
def search(ctx: CallContext, args: SearchArgs) -> dict[str, Any]:
    known = searchable_types()
    for index, name in enumerate(args.get("types") or []):
        if name not in known:
            raise invalid_at(f"types[{index}]", f"no searchable entity type {name!r}; one of {', '.join(known)}")
    offset = args["offset"]
    results, total, capped = find.search(
        ctx,
        args["query"],
        types=args.get("types") or None,
        object_id=args.get("objectId"),
        limit=args["limit"],
        offset=offset,
    )
    return {"results": results, "pagination": s.pagination(total, args["limit"], offset, capped)}
