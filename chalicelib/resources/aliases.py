"""Aliases: the caller's own names for entities (an integration's external ids)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chalicelib import config, ids
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.errors import Invalid, not_found_at
from chalicelib.registry import operation
from chalicelib.store import aliases as store
from chalicelib.store import entities

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import AliasesListArgs, AliasesResolveArgs, AliasesUpsertArgs

ALIAS = {
    "type": "string",
    "minLength": 1,
    "maxLength": 200,
    "pattern": r"^[^\s$\x00-\x1f\x7f-\x9f][^\s\x00-\x1f\x7f-\x9f]*$",  # no whitespace, no control characters
    "description": "Bare alias (no `$` prefix, no spaces), unique per integration; may not look like an internal id, "
    "unless it is an id of the entry's type from elsewhere (another tenant's, an export's) that names no live entity "
    "of this tenant.",
}
ENTRY = s.obj(
    {
        "alias": ALIAS,
        "id": s.string("Internal id of the entity."),
        "type": s.known_values(s.string("Entity type: contact, object, ... (singular camelCase)."), "aliasableTypes"),
    },
    required=["alias", "id", "type"],
)
ENTRY_OUT = s.obj(
    {"alias": s.string("Bare alias."), "id": s.string("Internal id."), "type": s.string("Entity type.")},
    required=["alias", "id", "type"],
)

SCOPE_NOTE = (
    "Aliases are scoped per tenant and integration: "
    "another integration of the same tenant neither sees nor collides with yours."
)


@operation(
    name="aliases.upsert",
    kind="command",
    summary="Map bare aliases to entities, in one all-or-nothing batch.",
    docs=f"""Each entry maps `alias` to the entity `id` of type `type`. Mapping an alias again to the same entity
changes nothing; an alias that already names another entity is a conflict (409, naming the entry) and
nothing of the batch is written. An entity may carry several aliases. At most {config.MAX_ALIAS_ENTRIES}
entries per call. {SCOPE_NOTE}

An alias may look like an internal id only when it is an id of the entry's `type` from elsewhere (another
tenant's, an export's) that names no live entity of this tenant: as the upserts map such an id, so that a
re-import (`pmctl import`) finds a document exported under its id again. Every other command reads an id as
an id, never as an alias; `aliases.resolve` resolves it.""",
    args=s.obj(
        {"entries": {**s.array(ENTRY, "Alias entries.", max_items=config.MAX_ALIAS_ENTRIES), "minItems": 1}},
        required=["entries"],
    ),
    result=s.obj(
        {"aliases": s.array(ENTRY_OUT, "The entries as stored.", max_items=config.MAX_ALIAS_ENTRIES)},
        required=["aliases"],
    ),
    scope="write:aliases",
    idempotent=True,
    errors=(codes.ALIAS_TAKEN,),
    example={"entries": [{"alias": "crm-4711", "id": "con_01J...", "type": "contact"}]},
)
def upsert(ctx: CallContext, args: AliasesUpsertArgs) -> dict[str, Any]:
    entries = args["entries"]
    seen: dict[str, str] = {}
    for index, entry in enumerate(entries):
        path = f"entries[{index}]"
        etype = ENTITY_TYPES.get(entry["type"])
        if etype is None or not etype.aliasable:
            raise Invalid(
                f"{path}.type: {entry['type']!r} is not an entity type that takes aliases.",
                errors=[{"path": f"{path}.type", "message": "unknown entity type"}],
            )
        if ids.looks_like_id(entry["alias"]) and ids.prefix_of(entry["alias"]) != etype.prefix:
            raise Invalid(
                f"{path}.alias: an alias may look like an id only of a {etype.name} from elsewhere.",
                errors=[{"path": f"{path}.alias", "message": "looks like an id"}],
            )
        if ids.prefix_of(entry["id"]) != etype.prefix:
            raise not_found_at(f"{path}.id", f"{entry['id']} is not the id of a {etype.name}.")
        if seen.setdefault(entry["alias"], entry["id"]) != entry["id"]:
            raise Invalid(
                f"{path}.alias: the batch maps {entry['alias']!r} to two entities.",
                errors=[{"path": f"{path}.alias", "message": "mapped twice in this batch"}],
            )
    _no_own_ids(ctx, entries)
    unique = list({(e["alias"], e["id"]): e for e in entries}.values())
    return {"aliases": store.upsert(ctx, unique)}


def _no_own_ids(ctx: CallContext, entries: Sequence[Mapping[str, Any]]) -> None:
    """An alias in the form of an id names no live entity of this tenant: an id from elsewhere only."""
    shaped = {entry["alias"]: index for index, entry in enumerate(entries) if ids.looks_like_id(entry["alias"])}
    if not shaped:
        return
    own = {item.id for item in entities.fetch_entities([entities.entity_pk(ctx.tenant_id, a) for a in shaped])}
    for alias in sorted(own, key=shaped.__getitem__):
        path = f"entries[{shaped[alias]}]"
        raise Invalid(
            f"{path}.alias: {alias} is the id of an entity of this tenant, not an alias.",
            errors=[{"path": f"{path}.alias", "message": "the id of this tenant's entity"}],
        )


@operation(
    name="aliases.list",
    kind="query",
    summary="List the calling integration's aliases, bare, in alphabetical order.",
    docs="Entries pointing at an entity type this service does not know are left out. For a key limited to "
    "objects, only entries naming entities within them: it reads the first "
    f"{config.ALIAS_REACH_SCAN:,} entries to find them (beyond, `pagination.capped`). {SCOPE_NOTE}",
    args=s.obj(s.paging(), required=["limit", "offset"]),
    result=s.list_result("aliases", ENTRY_OUT),
    scope="read:aliases",
    idempotent=True,
    example={"limit": 100, "offset": 0},
)
def list_aliases(ctx: CallContext, args: AliasesListArgs) -> dict[str, Any]:
    entries, total, capped = store.list_page(ctx, args["limit"], args["offset"])
    return {"pagination": s.pagination(total, args["limit"], args["offset"], capped), "aliases": entries}


@operation(
    name="aliases.resolve",
    kind="query",
    summary="Resolve aliases to ids and ids to aliases.",
    docs=f"""Returns one `{{alias, id, type}}` tuple per successful resolution: for each given alias its entity,
for each given id every alias the calling integration gave it. Inputs that map to nothing (unknown alias,
unknown or deleted entity, for a key limited to objects an entity outside them) are simply left out.
Up to 100 of each per call. {SCOPE_NOTE}""",
    args=s.obj(
        {
            "aliases": s.array(s.string("Bare alias."), "Aliases to resolve (repeat the query key).", max_items=100),
            "ids": s.array(
                s.string("Internal id."), "Ids whose aliases to return (repeat the query key).", max_items=100
            ),
        }
    ),
    result=s.obj({"aliases": s.array(ENTRY_OUT, "Resolved tuples.", max_items=10000)}, required=["aliases"]),
    scope="read:aliases",
    idempotent=True,
    example={"aliases": ["crm-4711"], "ids": ["con_01J..."]},
)
def resolve(ctx: CallContext, args: AliasesResolveArgs) -> dict[str, Any]:
    return {"aliases": store.resolve_many(ctx, args.get("aliases", []), args.get("ids", []))}
