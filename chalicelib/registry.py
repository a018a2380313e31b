"""Every operation of the service, declared once.

REST routes (app.py), argument validation (validation.py), scope checks (auth.py), the
per-key OpenAPI document (openapi.py) and, later, the MCP tool catalogue and the docs
search all read this table; nothing about an operation is written anywhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, Literal

from chalicelib import paths
from chalicelib.context import CallContext
from chalicelib.error_codes import ErrorCode
from chalicelib.errors import Invalid
from chalicelib.scopes import AREA_SCOPES, SCOPE_ADMIN, SCOPE_DESTRUCTIVE, SCOPE_READ, SCOPE_WRITE

Kind = Literal["query", "command"]
Surface = Literal["v2", "platform"]
# A handler's arguments are validated against the operation's schema before it runs; it annotates
# them with the operation's TypedDict (chalicelib/arg_types.py, generated from that schema), so
# mypy checks its reads. Any here: a handler taking a TypedDict is no Callable of dict[str, Any].
Handler = Callable[[CallContext, Any], dict[str, Any]]
# Marks an array argument whose items the handler checks one by one (an upsert's `items`): the
# call's validation and reference resolution take any object there, so one bad item fails alone.
ITEMS_CHECKED_ALONE = "x-items-checked-alone"

# An error an operation documents: an entry of error_codes.py, rendered with its status and
# meaning; or (entry, this operation's own words for it) where the operation says more.
DocumentedError = ErrorCode | tuple[ErrorCode, str]


@dataclass(frozen=True)
class Operation:
    name: str
    kind: Kind
    summary: str
    docs: str  # Markdown: fields, example, errors (the scope line is added from `scope`)
    args: dict[str, Any]  # JSON Schema of the arguments (type object)
    result: dict[str, Any]  # JSON Schema of the 200 answer
    handler: Handler
    # "read:<area>" (a query of one area), "read" (a query of no area: any read scope meets it),
    # "write:<area>", "write" (every area: audit.revert) or "admin"
    scope: str
    destructive: bool = False  # also needs the `destructive` scope
    idempotent: bool = False
    surface: Surface = "v2"
    authenticated: bool = True
    example: dict[str, Any] | None = None  # example arguments, shown in the docs
    errors: tuple[DocumentedError, ...] = ()  # operation-specific errors for the docs (codes.ALIAS_TAKEN, ...)
    accepts_files: bool = False  # takes a file: multipart/form-data too, and a larger body
    # Dotted paths of the answer that carry a secret (`apiKey.key`): shown in this answer only,
    # never stored, so an Idempotency-Key replay answers without them (store/idempotency.py).
    secrets: tuple[str, ...] = ()
    # Why a key limited to objects may not run it (its answer or effect would reach beyond its
    # objects, and no filter narrows it yet): 403 `outside_key_objects` with these words. Empty:
    # open to such keys, the store's reach (store/reach.py) narrowing what they see and change.
    refused_to_object_keys: str = ""
    # The entity type an upsert (`<list>.upsert`) creates and updates: an export writes that type's
    # lines for it, its items' schema being what a line's `data` holds (exports/lines.py).
    upserts: str | None = None
    # What a call counts as against the rate limits: `weight` calls when it is admitted (a heavy
    # operation: an export), and, in `weighed_by`'s words, what its work adds after it ran (the
    # handler charges it: account.charge). Both are in the reference's Access section.
    weight: int = 1
    weighed_by: str = ""
    # Arguments kept for a release under an older name: (old name, current name) pairs. The old
    # name is declared in `args` too, marked deprecated (`deprecated` below: the OpenAPI document
    # and the reference say so), and the call takes it for the current one (current_names, before
    # validation), so the handler reads the current name only. The docs say until when.
    renamed_args: tuple[tuple[str, str], ...] = ()

    @property
    def read_only(self) -> bool:
        return self.kind == "query"

    @property
    def method(self) -> str:
        return "GET" if self.kind == "query" else "POST"

    @property
    def path(self) -> str:
        return f"{paths.SURFACES[self.surface]}/{self.kind}/{self.name}"

    @property
    def required_scopes(self) -> tuple[str, ...]:
        return (self.scope, SCOPE_DESTRUCTIVE) if self.destructive else (self.scope,)

    @cached_property
    def items_checked_alone(self) -> str | None:
        """The array argument marked ITEMS_CHECKED_ALONE (an upsert's `items`), if any: the
        operation answers a refused item in its answer, not with a 4xx."""
        props = self.args.get("properties", {})
        return next((name for name, schema in props.items() if schema.get(ITEMS_CHECKED_ALONE)), None)

    @cached_property
    def checked_args(self) -> dict[str, Any]:
        """The arguments' schema as the call checks it (validation.py, resolve.py): `args`, with
        the items of the array marked ITEMS_CHECKED_ALONE taken as any object (the handler checks
        each against the items' schema, which `args` keeps for the docs)."""
        name = self.items_checked_alone
        if name is None:
            return self.args
        props = self.args["properties"]
        return {**self.args, "properties": {**props, name: {**props[name], "items": {"type": "object"}}}}

    @property
    def paged(self) -> bool:
        """Paged by limit and offset (a list); a feed pages by cursor (`after`/`next`) instead."""
        return "offset" in self.args.get("properties", {})

    def current_names(self, args: dict[str, Any]) -> dict[str, Any]:
        """The arguments with each deprecated name (`renamed_args`) turned into its current one;
        both given with different values is 400."""
        if not any(old in args for old, _ in self.renamed_args):
            return args
        renamed = dict(args)
        for old, new in self.renamed_args:
            if old not in renamed:
                continue
            value = renamed.pop(old)
            if new in renamed and renamed[new] != value:
                raise Invalid(
                    f"`{old}` is the deprecated name of `{new}`; send `{new}` alone.",
                    errors=[{"path": old, "message": f"the deprecated name of {new}, with another value"}],
                )
            renamed[new] = value
        return renamed

    def weight_line(self) -> str:
        """The reference's words for what a call counts as (empty for one call)."""
        if self.weight == 1 and not self.weighed_by:
            return ""
        counted = f"Counts as {self.weight} calls against the rate limits" if self.weight > 1 else "Counts as one call"
        return counted + (f"; {self.weighed_by}." if self.weighed_by else ".")

    def scope_line(self) -> str:
        if not self.authenticated:
            return "No key needed."
        if self.scope == SCOPE_READ:
            return "Scope: any read scope (`read` or one `read:<area>`)."
        return "Scope: " + " + ".join(f"`{s}`" for s in self.required_scopes)


def deprecated(schema: dict[str, Any], why: str) -> dict[str, Any]:
    """An argument (of `renamed_args`) or a field kept for a release beside what replaces it (`why`
    says what and until when): `deprecated` as JSON Schema and OpenAPI 3 mark it, and its description
    begins by saying so (the reference shows it)."""
    described = schema.get("description", "")
    return {**schema, "deprecated": True, "description": f"Deprecated: {why}" + (f" {described}" if described else "")}


REGISTRY: dict[str, Operation] = {}


def register(op: Operation) -> Operation:
    if op.name in REGISTRY:
        raise ValueError(f"operation {op.name} declared twice")
    if op.kind == "query" and op.destructive:
        raise ValueError(f"{op.name}: a query cannot be destructive")
    if op.scope not in (SCOPE_READ, SCOPE_ADMIN, SCOPE_WRITE, *AREA_SCOPES):
        raise ValueError(f"{op.name}: unknown scope {op.scope}")
    REGISTRY[op.name] = op
    return op


def operation(**facts: Any) -> Callable[[Handler], Handler]:
    """Decorator form of register(): the handler is the decorated function."""

    def wrap(handler: Handler) -> Handler:
        register(Operation(handler=handler, **facts))
        return handler

    return wrap


def find(name: str, surface: Surface = "v2") -> Operation | None:
    op = REGISTRY.get(name)
    return op if op and op.surface == surface else None


def domain_operations() -> list[Operation]:
    """Every operation that is a domain tool (MCP, the tool search): the v2 operations that
    need a key, by name."""
    return sorted((op for op in REGISTRY.values() if op.surface == "v2" and op.authenticated), key=lambda op: op.name)


def lifecycle_operation(entity_type: str, verb: str) -> tuple[str, str] | None:
    """The `<list>.delete` or `<list>.restore` (`verb`) of an entity type and its one argument,
    found by that argument's `x-ref` (None: the type has none). The sandbox reset and the
    console's restore button use it."""
    return _lifecycle_operation(entity_type, verb, len(REGISTRY))


@cache
def _lifecycle_operation(entity_type: str, verb: str, _registered: int) -> tuple[str, str] | None:
    # keyed by the registry's size too: an answer found before every resource registered is not kept
    for op in REGISTRY.values():
        required = op.args.get("required") or []
        if op.name.endswith("." + verb) and len(required) == 1:
            if op.args["properties"][required[0]].get("x-ref") == entity_type:
                return op.name, required[0]
    return None
