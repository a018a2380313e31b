"""The catalogue of entity types. Each resource module declares its type once here;
storage keys, indexes, alias checks and (later) event names derive from it."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from chalicelib import ids
from chalicelib.error_codes import ErrorCode
from chalicelib.errors import invalid_at
from chalicelib.schemas import VALUE_LISTS, free_text_paths

# Filter slots: a type may name up to this many indexed filter fields (GSIs gsi2..gsi4).
MAX_FILTERS = 3


@dataclass(frozen=True)
class Period:
    """Two fields that bound a stretch of time: `end` may not lie before `start` (dates, or
    RFC 3339 timestamps compared as instants); either may be missing (open-ended)."""

    start: str
    end: str

    def problem(self, data: dict[str, Any]) -> str | None:
        start, end = data.get(self.start), data.get(self.end)
        if start and end and _instant(end) < _instant(start):
            return f"{self.end} lies before {self.start}"
        return None


def _instant(value: str) -> dt.date | dt.datetime:
    if len(value) == 10:  # a date (the schema's pattern): dates compare as days
        return dt.date.fromisoformat(value)
    moment = dt.datetime.fromisoformat(value.upper())  # validated by the schema; offsets compare correctly
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


@dataclass(frozen=True)
class EntityType:
    name: str  # singular camelCase, as in alias entries and event names: "contact"
    plural: str  # list key of responses: "contacts"
    prefix: str  # id prefix: "con" -> con_01J...
    area: str  # write scope area: write:<area>
    fields: dict[str, Any] = field(default_factory=dict)  # JSON Schema properties of the stored fields
    filters: tuple[str, ...] = ()  # indexed top-level fields, in slot order
    readonly: tuple[str, ...] = ()  # fields the service sets (derive, uploads): shown, filterable, never sent
    # fields unique within the tenant (store/uniques.py), each with the function that makes its
    # comparison key (a mandate reference, compared without regard to case) and the code of the
    # 409 that refuses a value another entity holds
    unique: dict[str, tuple[Callable[[str], str], ErrorCode]] = field(default_factory=dict)
    # The rules of a stored record, declared as data and checked in one place (verify): the fields
    # it always holds (a create must give them, apart from those its parent arguments fill; an
    # update cannot clear them), and the periods whose end may not lie before their start.
    required: tuple[str, ...] = ()
    periods: tuple[Period, ...] = ()
    # further cross-field rules, after those: (record, id or None on create)
    check: Callable[[dict[str, Any], str | None], None] | None = None
    rules_path: str = ""  # the argument the rules' error paths start with, when not the type's name
    # fills fields that follow from others (a contract's objectId from its unit); may read the store
    derive: Callable[[Any, dict[str, Any]], None] | None = None
    # may refuse bringing a deleted one back (a limit on live entities): the restore operation
    # and a revert that restores both ask it
    restore_guard: Callable[[Any], None] | None = None
    aliasable: bool = True
    label_text: str = ""  # how prose names it, when not the split name ("UVI document")

    @property
    def label(self) -> str:
        """'inboundInvoice' -> 'inbound invoice': summaries and docs read as words (search too)."""
        return self.label_text or re.sub(r"(?<=[a-z])(?=[A-Z])", " ", self.name).lower()

    @property
    def plural_label(self) -> str:
        return self.label + "s" if self.label_text else re.sub(r"(?<=[a-z])(?=[A-Z])", " ", self.plural).lower()

    @property
    def a_label(self) -> str:
        return ("an " if self.label[0] in "aeio" else "a ") + self.label

    @property
    def field_schema(self) -> dict[str, Any]:
        return {"type": "object", "properties": self.fields}

    @cached_property
    def text_fields(self) -> tuple[str, ...]:
        """The top-level fields that hold free text (schemas.is_free_text) somewhere inside: the
        store remembers who wrote each (store/authors.py)."""
        return tuple(name for name, schema in self.fields.items() if free_text_paths(schema))

    def verify(self, data: dict[str, Any], entity_id: str | None) -> None:
        """The record's rules, before it is written (create, update, a repointed reference, a
        document's metadata before its upload): required fields, periods, then `check`."""
        at = self.rules_path or self.name
        for name in self.required:
            if data.get(name) in (None, ""):
                raise invalid_at(f"{at}.{name}", f"{self.a_label} needs {name}")
        for period in self.periods:
            problem = period.problem(data)
            if problem:
                raise invalid_at(f"{at}.{period.end}", problem)
        if self.check:
            self.check(data, entity_id)

    def __post_init__(self) -> None:
        if len(self.filters) > MAX_FILTERS:
            raise ValueError(f"{self.name}: at most {MAX_FILTERS} indexed filters")


ENTITY_TYPES: dict[str, EntityType] = {}
_BY_PREFIX: dict[str, EntityType] = {}


def declare(entity_type: EntityType) -> EntityType:
    if entity_type.name in ENTITY_TYPES or entity_type.prefix in _BY_PREFIX:
        raise ValueError(f"entity type {entity_type.name} or prefix {entity_type.prefix} declared twice")
    ENTITY_TYPES[entity_type.name] = entity_type
    _BY_PREFIX[entity_type.prefix] = entity_type
    return entity_type


VALUE_LISTS["entityTypes"] = lambda: sorted(ENTITY_TYPES)
VALUE_LISTS["aliasableTypes"] = lambda: sorted(name for name, etype in ENTITY_TYPES.items() if etype.aliasable)


def by_prefix(prefix: str | None) -> EntityType | None:
    return _BY_PREFIX.get(prefix) if prefix else None


def ref_types(x_ref: str | list[str]) -> list[str]:
    """The entity types a reference may name: `x-ref` is one type or a list of them."""
    return [x_ref] if isinstance(x_ref, str) else list(x_ref)


def type_of_id(entity_id: str, x_ref: str | list[str]) -> EntityType | None:
    """The entity type of an id, if it is one the reference allows."""
    etype = by_prefix(ids.prefix_of(entity_id))
    return etype if etype is not None and etype.name in ref_types(x_ref) else None
