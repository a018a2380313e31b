"""Entities by the names people call them: a contact by full name or company, an object by its
name, a unit by its number and object, a contract by its parties and unit, a document by its
title, every other type by its main text field; the id stays secondary text (`shown`).

`Names(ctx).look_up(ids)` reads a page's entities in batches (BatchGetItem through the store, at
most MAX_READ ids a call and two rounds more for what a name needs: a contract's parties and
unit, a unit's object), deleted ones included, so that a deleted entity shows its last name,
marked deleted. The keys are built from the person's own tenant (store/entity_reads.entity_pk):
no read reaches another company's data; an id of another tenant is simply not found and shown
as an id. Field labels are the registry's (`schemas.labelled` beside each entity's schema)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from chalicelib import ids
from chalicelib.console.texts import translate
from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES, EntityType, by_prefix
from chalicelib.schemas import COMMON_LABELS, label_of, refs_in, value_text
from chalicelib.store import reach
from chalicelib.store.entity_reads import entity_pk, fetch_entities

MAX_READ = 100  # ids named in one call: one BatchGetItem (a page shows at most this many)
MAIN_FIELDS = (
    "name",
    "title",
    "subject",
    "label",
    "number",
    "invoiceNumber",
    "mandateReference",
    "accountHolder",
    "iban",
    "fileName",
    "phoneNumber",
    "url",
)


@dataclass(frozen=True)
class Named:
    id: str
    type: str  # the entity type's name ("contact")
    name: str  # "" when the entity has none that reads (its id is then what is shown)
    deleted: bool = False
    found: bool = True
    deleted_at: str = ""  # when it was deleted (ISO 8601, UTC), for a deleted one


def etype_of(entity_id: str) -> EntityType | None:
    return by_prefix(ids.prefix_of(entity_id)) if isinstance(entity_id, str) else None


class Names:
    """A page's names: ask with `look_up(ids)` once (a name no other class uses: the IAM analysis
    follows every reached class's methods by name), then read them with `get`/`name`."""

    def __init__(self, ctx: CallContext | None) -> None:
        self.ctx = ctx
        self.known: dict[str, Named] = {}
        self._data: dict[str, tuple[str, dict[str, Any], str]] = {}  # id -> (type, data, deletedAt or "")

    def look_up(self, entity_ids: list[str] | set[str] | tuple[str, ...]) -> Names:
        wanted = [i for i in dict.fromkeys(entity_ids) if i and etype_of(i) is not None][:MAX_READ]
        self._fetch(wanted)
        needed = [ref for i in wanted for ref in self._needs(i)]
        self._fetch(needed[:MAX_READ])  # a contract's parties and unit, a unit's object
        self._fetch([ref for i in needed[:MAX_READ] for ref in self._needs(i)][:MAX_READ])  # a contract's unit's object
        for entity_id in wanted:
            self.known[entity_id] = self._named(entity_id)
        return self

    def _fetch(self, entity_ids: list[str]) -> None:
        todo = [i for i in dict.fromkeys(entity_ids) if i not in self._data and etype_of(i) is not None]
        if not todo or self.ctx is None:
            return
        ctx = self.ctx
        for item in fetch_entities([entity_pk(ctx.tenant_id, i) for i in todo], include_deleted=True):
            entity_id, data = str(item.id), item.data_dict()
            etype = etype_of(entity_id)
            if item.tenantId != ctx.tenant_id or etype is None or item.type != etype.name:
                continue
            if reach.limited(ctx) and not reach.item_within(ctx, etype.name, entity_id, data):
                continue  # out of an object-limited reach: as if it did not exist
            self._data[entity_id] = (etype.name, data, str(item.deletedAt or ""))

    def _needs(self, entity_id: str) -> list[str]:
        type_name, data, _ = self._data.get(entity_id, ("", {}, ""))
        if type_name == "contract":
            parties = [p.get("contactId") for p in data.get("parties") or [] if isinstance(p, dict)]
            return [str(i) for i in [*parties, data.get("unitId")] if i]
        if type_name == "unit" and data.get("objectId"):
            return [str(data["objectId"])]
        return []

    def _named(self, entity_id: str) -> Named:
        etype = etype_of(entity_id)
        if entity_id not in self._data:
            return Named(entity_id, etype.name if etype else "", "", found=False)
        type_name, data, deleted_at = self._data[entity_id]
        return Named(entity_id, type_name, self._name(type_name, data), bool(deleted_at), deleted_at=deleted_at)

    def _ref_name(self, entity_id: Any) -> str:
        if not isinstance(entity_id, str) or entity_id not in self._data:
            return ""
        type_name, data, _ = self._data[entity_id]
        return self._name(type_name, data)

    def _name(self, type_name: str, data: dict[str, Any]) -> str:
        if type_name == "unit":
            return ", ".join(
                part for part in (str(data.get("number") or ""), self._ref_name(data.get("objectId"))) if part
            )
        if type_name == "contract":
            parties = [self._ref_name(p.get("contactId")) for p in data.get("parties") or [] if isinstance(p, dict)]
            unit = self._ref_name(data.get("unitId"))
            return " – ".join(part for part in (", ".join(p for p in parties if p), unit) if part)
        return name_from_data(type_name, data)

    def get(self, entity_id: str) -> Named | None:
        return self.known.get(entity_id)

    def last_references(self, entity_id: str) -> list[str]:
        """The ids a looked-up entity references, by its last data (a deleted one's too)."""
        type_name, data, _ = self._data.get(entity_id, ("", {}, ""))
        return list(dict.fromkeys(refs_of(type_name, data)))

    def name(self, entity_id: str) -> str:
        found = self.known.get(entity_id)
        return found.name if found else ""


def name_from_data(type_name: str, data: dict[str, Any]) -> str:
    """The name of an entity from its own fields (no reads): a contact's full name or company,
    else the first main text field the type has. "" when none is filled."""
    if type_name == "contact":
        if data.get("personType") == "legal" and data.get("companyName"):
            return str(data["companyName"])
        full = " ".join(str(data[f]) for f in ("title", "firstName", "lastName") if data.get(f))
        return full or str(data.get("companyName") or "")
    if type_name == "document":
        return str(data.get("title") or data.get("fileName") or "")
    for field in MAIN_FIELDS:
        if isinstance(data.get(field), str | int) and str(data[field]).strip():
            return str(data[field])
    return ""


def field_label(type_name: str, path: str, lang: str) -> str:
    """A field's label in the page's language ("Nachname" for contact.lastName): the registry's
    label of the field (a nested one by its path, `address.city`), the common fields' (id,
    version, deletedAt, ...), else the field's name as the API spells it."""
    etype = ENTITY_TYPES.get(type_name)
    schema: dict[str, Any] | None = {"properties": etype.fields} if etype else None
    parts = [part for part in path.replace("[]", "").split(".") if part]
    labels = []
    for part in parts:
        if schema is None:
            break
        if schema.get("type") == "array":
            schema = schema.get("items") or {}
        schema = (schema.get("properties") or {}).get(part)
        found = label_of(schema, lang) if schema else None
        if found:
            labels.append(found)
    if len(labels) == len(parts) and labels:
        return " › ".join(labels)
    common = COMMON_LABELS.get(path)
    if common:
        return common[0] if lang == "de" else common[1]
    return path


def shown(named: Named | None, entity_id: str, *, deleted_text: str) -> Markup:
    """An entity for a page: its name, then its id as secondary text; marked when deleted."""
    name = named.name if named else ""
    mark = Markup(' <span class="badge">{}</span>').format(deleted_text) if named and named.deleted else Markup("")
    if not name:
        return Markup('<span class="mono">{}</span>{}').format(entity_id, mark)
    return Markup('<span>{}</span> <span class="muted mono">{}</span>{}').format(name, entity_id, mark)


# --- values as text a person reads (activity diffs, data pages) -------------------------------


def refs_of(type_name: str, data: dict[str, Any] | None) -> list[str]:
    """Every id `data` of an entity of this type references (its schema's x-ref fields)."""
    etype = ENTITY_TYPES.get(type_name)
    if etype is None or not data:
        return []
    return [str(value) for _, _, value in refs_in(etype.field_schema, data, "")]


def readable(
    value: Any,
    schema: dict[str, Any] | None,
    lang: str,
    names: Names,
    *,
    link: Callable[[str], str | None] | None = None,
) -> Markup:
    """A field's value for people: text as it is, yes/no, an enum value in words (its schema's,
    schemas.value_text: "Natürliche Person" for `natural`), a reference by its name (id as
    secondary text), a list as a list, an object as its labelled fields; never JSON. `link` gives a reference's address
    (the data pages'), where it has one."""
    spec = schema or {}
    if value is None:
        return Markup("")
    if isinstance(value, bool):
        return Markup("{}").format(translate(lang, "common.yes" if value else "common.no"))
    if isinstance(value, str) and spec.get("x-ref"):
        entity = shown(names.get(value), value, deleted_text=translate(lang, "common.deleted"))
        href = link(value) if link else None
        return Markup('<a href="{}">{}</a>').format(href, entity) if href else entity
    if isinstance(value, list):
        items = spec.get("items") or {}
        parts = [readable(item, items, lang, names, link=link) for item in value]
        if not parts:
            return Markup("–")
        return Markup('<ul class="value-list">{}</ul>').format(
            Markup("").join(Markup("<li>{}</li>").format(part) for part in parts)
        )
    if isinstance(value, dict):
        props = spec.get("properties") or {}
        parts = []
        for key, item in value.items():
            if item is None or item == "" or item == []:
                continue
            sub = props.get(key) or {}
            label = label_of(sub, lang) or key
            parts.append(
                Markup('<span class="value-part">{}: {}</span>').format(
                    label, readable(item, sub, lang, names, link=link)
                )
            )
        return Markup("; ").join(parts) if parts else Markup("–")
    return Markup("{}").format(value_text(spec, value, lang))


def brief(markup: Markup, limit: int) -> Markup:
    """A value shortened for a list row: its text (tags dropped) cut to `limit` characters."""
    text = markup.striptags()
    if len(text) <= limit:
        return markup
    return Markup("{}").format(text[: limit - 1] + "…")
