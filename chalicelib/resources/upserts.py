"""Upsert by alias (issue 34): `<list>.upsert` for every entity type with a create command, derived
from that command and the type's update command (declare.py records both), so nothing
about an entity's fields is written here.

Each item is the create's payload, flat (a parent argument such as processes.create's `object` is
its field, `objectId`), plus `alias`, the caller's integration's name for the entity. Items are
taken in order, each on its own: checked against the items' schema (the call itself takes any
object there: registry.ITEMS_CHECKED_ALONE), its references resolved (ids, or aliases, including
those this call created before it), then
- an unknown alias: the entity is created with the alias mapped, in one transaction;
- a known one: the fields sent are compared with the stored ones (after the type's own
  normalisation, `derive`: an IBAN written with spaces is the stored one); none differs:
  `unchanged`, and nothing is written (no audit record, no event); else the update command runs
  with the differing fields and the version read (its guards, immutable fields and checks apply);
- anything refused: `failed` with the refusal's code and errors (paths within `items[i]`), and the
  next item goes on.
An `alias` that is an id of the type names this tenant's entity of that id when there is one (updated or
unchanged by its id); otherwise it is a foreign id (another tenant's, an export's: an entity exported
without an alias carries its id as its alias) and is mapped like any alias, so that a re-import's later
calls resolve references written as that id. Such a mapping serves the upserts only: every other command
reads an id as an id.
The aliases and the entities they name are read in batches first (BatchGetItem), so an unchanged
item costs no call of its own."""

from __future__ import annotations

from typing import Any

from chalicelib import account, clock, config, ids
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import CREATIONS, UPDATINGS, Creation, Updating
from chalicelib.entities import ENTITY_TYPES, EntityType, ref_types, type_of_id
from chalicelib.errors import ApiError, Conflict, Forbidden, Invalid, NotFound, not_found_at
from chalicelib.jsontext import plain
from chalicelib.registry import ITEMS_CHECKED_ALONE, Operation, register
from chalicelib.resources.aliases import ALIAS
from chalicelib.schemas import map_refs
from chalicelib.scopes import SCOPE_READ, SCOPE_WRITE, area_scope, meets
from chalicelib.store import aliases, reach
from chalicelib.store import entities as store
from chalicelib.store.entity_reads import entity_pk, fetch_entities
from chalicelib.validation import find_errors, validate

OUTCOMES = ["created", "updated", "unchanged", "failed"]
# The errors one item reports at most: 500 bad items would otherwise build 50,000 of them (a call's
# validation reports MAX_ERRORS), a second of work to answer with more than anyone reads.
ERRORS_PER_ITEM = 5
# What the caller sent comes back in `alias` and in the errors' words: any string, of any length.
_ECHOED = {"type": "string"}
RESULT = s.obj(
    {
        "alias": {**_ECHOED, "description": "The item's alias (empty when it sent none)."},
        "id": {**s.string("The entity's id (null when an item failed before it had one)."), "nullable": True},
        "result": s.enum("What became of the item.", OUTCOMES),
        "code": {**s.string("Why it failed (an error code)."), "nullable": True},
        "errors": s.array(
            s.obj(
                {
                    "path": {**_ECHOED, "description": "Where, e.g. items[3].objectId."},
                    "message": {**_ECHOED, "description": "What is wrong."},
                },
                required=["path", "message"],
            ),
            f"Why it failed, per field (at most {ERRORS_PER_ITEM}).",
            max_items=ERRORS_PER_ITEM,
        ),
    },
    required=["alias", "id", "result", "errors"],
)


def declare_upserts() -> list[Operation]:
    """One upsert per entity type with a create command that takes aliases (called once every
    resource module has declared its commands)."""
    declared = []
    for type_name, creations in CREATIONS.items():
        etype = ENTITY_TYPES[type_name]
        if etype.aliasable and type_name in UPDATINGS:
            declared.append(register(_operation(etype, creations, UPDATINGS[type_name])))
    return declared


def item_schema(etype: EntityType, creations: list[Creation]) -> dict[str, Any]:
    """The create payload's fields and the parents' fields, flat, plus `alias`. A field every
    create requires is required (a type with several creates, one per parent, requires none of
    the parents: the item names one of them)."""
    props: dict[str, Any] = {"alias": {**ALIAS, "description": "Your name for the entity: created when unknown."}}
    required_sets = []
    for creation in creations:
        payload = creation.op.args["properties"][creation.arg]
        props.update(payload["properties"])
        props.update({field: etype.fields[field] for field in creation.parents.values()})
        required_sets.append({*creation.required, *creation.parents.values()})
    required = set.intersection(*required_sets)
    return s.obj(props, required=["alias", *sorted(required)])


def _operation(etype: EntityType, creations: list[Creation], updating: Updating) -> Operation:
    name = creations[0].upsert
    schema = item_schema(etype, creations)
    creates = ", ".join(f"`{c.op.name}`" for c in creations)
    example = {"alias": f"crm-{etype.name}-1", **(creations[0].op.example or {}).get(creations[0].arg, {})}
    example.update({field: "<id or alias>" for field in creations[0].parents.values()})

    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        results = Upsert(ctx, etype, creations, updating, schema, name).run(args["items"])
        counts = {outcome: sum(r["result"] == outcome for r in results) for outcome in OUTCOMES}
        account.charge(ctx, len(args["items"]) - 1)  # weighed_by below
        return {"results": results, "counts": counts}

    return Operation(
        name=name,
        kind="command",
        summary=f"Create or update up to {config.MAX_UPSERT_ITEMS} {etype.plural_label} by your own ids (aliases).",
        docs=f"""Creates or updates {etype.plural_label} by your aliases, up to {config.MAX_UPSERT_ITEMS} per call:
each item is what {creates} takes, flat (a parent argument is its field), plus `alias`. An unknown alias
creates the {etype.label} and maps the alias to it (one transaction); a known one updates only the fields
that differ (as `{updating.op.name}` does, with its rules: a field it cannot change fails the item); when
none differs the item is `unchanged` and nothing is written, audited or sent to webhooks. Comparing reads
the stored {etype.label}: a known alias needs `read:{etype.area}` too (else the item fails `missing_scope`),
and for a key limited to objects an alias or id of a {etype.label} outside them fails `not_found` before any
field is compared, as every read of the key finds nothing there. References may be
ids or aliases, also aliases created by earlier items of the same call. Items run in order, each on its
own: a refused item is `failed` with its code and errors (paths within `items[i]`) and the others go on.
The answer lists every item's outcome in input order, and the counts. With `Idempotency-Key` a repeated
call answers the first answer. Aliases are your integration's (see aliases.upsert).""",
        args=s.obj(
            {
                "items": {
                    **s.array(schema, "The entities, each with its alias.", max_items=config.MAX_UPSERT_ITEMS),
                    "minItems": 1,
                    ITEMS_CHECKED_ALONE: True,
                }
            },
            required=["items"],
        ),
        result=s.obj(
            {
                "results": s.array(RESULT, "Each item's outcome, in input order.", max_items=config.MAX_UPSERT_ITEMS),
                "counts": s.obj({outcome: s.integer(f"Items {outcome}.") for outcome in OUTCOMES}, required=OUTCOMES),
            },
            required=["results", "counts"],
        ),
        handler=handler,
        scope=area_scope(SCOPE_WRITE, etype.area),
        idempotent=True,
        example={"items": [example]},
        upserts=etype.name,
        weighed_by="each item beyond the first counts as one more",
    )


class Upsert:
    """One call's items, in order (module doc)."""

    def __init__(
        self,
        ctx: CallContext,
        etype: EntityType,
        creations: list[Creation],
        updating: Updating,
        schema: dict[str, Any],
        name: str,
    ) -> None:
        self.ctx, self.etype, self.creations, self.updating = ctx, etype, creations, updating
        self.schema, self.name = schema, name
        self.known: dict[str, tuple[str, str]] = {}  # alias -> (id, type): read first, then as created
        self.stored: dict[str, Any] = {}  # entity id -> its item, read first
        self.unreached: set[str] = set()  # aliases and ids of entities outside an object-limited key's objects

    def run(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self._read_ahead(items)
        return [self._one(index, item) for index, item in enumerate(items)]

    def _read_ahead(self, items: list[dict[str, Any]]) -> None:
        """The aliases the items name (their own, and their references') and the entities of
        their own, in batches."""
        names: list[str] = []

        def named(_path: str, _ref: Any, value: str) -> str:
            names.append(value)
            return value

        for item in items:
            if isinstance(item.get("alias"), str):
                names.append(item["alias"])
            map_refs(self.schema, item, "", named)
        self.known = aliases.lookup_many(self.ctx, names, reached_only=False)
        own = {i for i, kind in self.known.values() if kind == self.etype.name}
        by_id = {n for n in names if ids.prefix_of(n) == self.etype.prefix and n not in self.known}
        self.stored = {
            item.id: item for item in fetch_entities([entity_pk(self.ctx.tenant_id, i) for i in own | by_id])
        }
        if reach.limited(self.ctx):  # what lies outside the key's objects is missing to it (_unreached)
            reached = reach.within(self.ctx, [entity_id for entity_id, _ in self.known.values()])
            self.unreached = {alias for alias, (entity_id, _) in self.known.items() if entity_id not in reached}
            self.known = {alias: hit for alias, hit in self.known.items() if alias not in self.unreached}
            self.unreached |= {
                entity_id
                for entity_id, item in self.stored.items()
                if not reach.item_within(self.ctx, self.etype.name, entity_id, item.data_dict())
            }

    def _one(self, index: int, item: dict[str, Any]) -> dict[str, Any]:
        path = f"items[{index}]"
        alias = item["alias"] if isinstance(item.get("alias"), str) else ""  # else the schema refuses it
        entity_id: str | None = None
        try:
            problems = find_errors(f"{self.name}#item", self.schema, item, limit=ERRORS_PER_ITEM)
            if problems:
                raise Invalid(f"{path}: invalid item", code=codes.VALIDATION_FAILED, errors=problems)
            if alias in self.unreached:
                raise _unreached(path, self.etype, alias)
            data = map_refs(self.schema, {k: v for k, v in item.items() if k != "alias"}, path, self._resolve)
            if ids.looks_like_id(alias):
                if ids.prefix_of(alias) != self.etype.prefix:
                    raise Invalid(
                        f"{path}.alias: {alias} is the id of another entity type.",
                        errors=[{"path": "alias", "message": f"an id, not of a {self.etype.name}"}],
                    )
                if alias not in self.known and alias in self.stored:  # this tenant's own entity, by its id
                    entity_id = alias
                    return _outcome(alias, alias, self._update(path, alias, data))
            hit = self.known.get(alias)
            if hit is None:
                created = self._create(path, alias, data)
                return _outcome(alias, created, "created")
            entity_id, kind = hit
            if kind != self.etype.name:
                raise Conflict(
                    f"{path}.alias: {alias!r} names a {kind}.",
                    code=codes.ALIAS_TAKEN,
                    errors=[{"path": "alias", "message": f"names a {kind}, not a {self.etype.name}"}],
                )
            return _outcome(alias, entity_id, self._update(path, entity_id, data))
        except ApiError as refused:
            return {
                "alias": alias,
                "id": entity_id,
                "result": "failed",
                "code": refused.code,
                "errors": _within(path, refused, self._arguments()),
            }

    def _arguments(self) -> tuple[str, ...]:
        """The argument names the create and update commands put before a field's path."""
        return (*{c.arg for c in self.creations}, self.updating.arg)

    def _resolve(self, path: str, x_ref: Any, value: str) -> str:
        """A reference: an id of an allowed type, or an alias (known before, or created earlier in
        this call) of one."""
        allowed = ref_types(x_ref)
        wanted = " or ".join(allowed)
        hit = self.known.get(value)
        if ids.looks_like_id(value):
            if type_of_id(value, x_ref) is None:
                raise not_found_at(path, f"{value} is not the id of a {wanted}.")
            return hit[0] if hit is not None and hit[1] in allowed else value  # a foreign id mapped here

        if hit is None or hit[1] not in allowed:
            raise not_found_at(path, f"No {wanted} with alias {value!r} for this integration.")
        return hit[0]

    def _create(self, path: str, alias: str, data: dict[str, Any]) -> str:
        self._check_parents(path, data)
        entity_id = ids.new_id(self.etype.prefix)
        mapping = aliases.alias_item(self.ctx, alias, entity_id, self.etype.name, clock.now_iso())
        store.create(
            self.ctx,
            self.etype,
            data,
            path=path,
            entity_id=entity_id,
            companions=(mapping,),
            aliases={self.ctx.integration_key: {alias}},
        )
        self.known[alias] = (entity_id, self.etype.name)
        return entity_id

    def _check_parents(self, path: str, data: dict[str, Any]) -> None:
        """A type with a create per parent (a bank account info of a contact, or of an object): the
        item names the parent of exactly one of them (every create stores the same way)."""
        fitting = [c for c in self.creations if all(data.get(f) is not None for f in c.parents.values())]
        if len(fitting) == 1 or len(self.creations) == 1:
            return
        parents = sorted({f for c in self.creations for f in c.parents.values()})
        raise Invalid(
            f"{path}: name exactly one of {', '.join(parents)}.",
            errors=[{"path": field, "message": f"exactly one of {', '.join(parents)}"} for field in parents],
        )

    def _update(self, path: str, entity_id: str, data: dict[str, Any]) -> str:
        """The differing fields updated, after the key showed it may read the entity: comparing
        tells what is stored (issue 51: a match answered `unchanged`, a miss otherwise)."""
        read = area_scope(SCOPE_READ, self.etype.area)
        if not meets(self.ctx.scopes, read):
            raise Forbidden(
                f"{path}: updating by an upsert compares with what is stored, which needs {read}.",
                code=codes.MISSING_SCOPE,
                extra={"requiredScopes": [read]},
            )
        stored = self.stored.get(entity_id)
        if stored is None:  # created earlier in this call, or deleted
            try:
                stored = store.get_item(self.ctx, self.etype, entity_id, path="alias")
            except NotFound:
                raise NotFound(
                    f"{path}.alias names a deleted {self.etype.label} ({entity_id}); restore it first.",
                    errors=[{"path": "alias", "message": f"names the deleted {self.etype.name} {entity_id}"}],
                ) from None
        before = plain(stored.data_dict())
        changed = _differing(self.ctx, self.etype, before, data)
        if not changed:
            return "unchanged"
        payload = self.updating.op.args["properties"][self.updating.arg]["properties"]
        fixed = [name for name in changed if name not in payload]
        if fixed:
            raise Invalid(
                f"{path}: {', '.join(fixed)} cannot change after creation ({self.updating.op.name}).",
                errors=[{"path": name, "message": "cannot change after creation"} for name in fixed],
            )
        args = {self.updating.arg: {"id": entity_id, "version": stored.version, **{k: data[k] for k in changed}}}
        validate(self.updating.op, args)
        self.updating.op.handler(self.ctx, args)
        self.stored[entity_id] = store.get_item(self.ctx, self.etype, entity_id, path="alias")
        return "updated"


def _unreached(path: str, etype: EntityType, alias: str) -> NotFound:
    """An item naming an entity outside the key's objects: missing, as to every read of the key,
    before any field is compared."""
    return NotFound(
        f"{path}.alias: no {etype.label} {alias!r} within this key's objects.",
        errors=[{"path": "alias", "message": f"names no {etype.name} within this key's objects"}],
    )


def _differing(ctx: CallContext, etype: EntityType, before: dict[str, Any], data: dict[str, Any]) -> list[str]:
    """The fields sent whose value differs from the stored one once the type's normalisation
    (`derive`) ran on the would-be state, in the order sent."""
    candidate = store.with_changes(before, data)
    if etype.derive is not None:
        etype.derive(ctx, candidate)
    return [name for name in data if candidate.get(name) != before.get(name)]


def _outcome(alias: str, entity_id: str, result: str) -> dict[str, Any]:
    return {"alias": alias, "id": entity_id, "result": result, "code": None, "errors": []}


def _within(path: str, refused: ApiError, arguments: tuple[str, ...]) -> list[dict[str, str]]:
    """A refusal's errors with their paths within the item: `unit.objectId` (as the create
    command names it) and `objectId` become `items[3].objectId`."""
    found = (refused.errors or [{"path": path, "message": refused.detail}])[:ERRORS_PER_ITEM]
    return [{"path": _item_path(path, str(e.get("path", "")), arguments), "message": e["message"]} for e in found]


def _item_path(path: str, where: str, arguments: tuple[str, ...]) -> str:
    if where.startswith(path) or where in ("", "(arguments)"):
        return where if where.startswith(path) else path
    for argument in arguments:
        if where == argument or where.startswith((f"{argument}.", f"{argument}[")):
            where = where[len(argument) :].lstrip(".")
            break
    return f"{path}.{where}" if where and not where.startswith("[") else f"{path}{where}"
