"""The tenant's data, read only: objects, units, contracts, contacts, processes and documents,
each as a paged list with a search by name (the `search` query of the API, docs/concepts/search.md:
German as typed, across every entry of the type, within the list's object where it has one) and as a
detail page with every field, links to the entities it references and lists of those that
reference it. Enough to check what an agent did; nothing here changes data (GET only, so the viewer role suffices).
A deleted entity is shown by its last name, marked deleted, with restore.py's button for an
admin or owner: beside a reference to it, and on its own page, which then says since when it is
deleted instead of answering not-found.

One table (TYPES) describes each type, so that one list and one detail template serve all six.
Every read is the type's list or show query, or the `search` query, run as the signed-in person
(`operations.run`); a search's page of entries is then read in one batch (`_records`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup

from chalicelib import entities, ids, registry
from chalicelib.console import names as naming
from chalicelib.console import times
from chalicelib.console.operations import messages, run
from chalicelib.console.pages import restore
from chalicelib.console.render import render
from chalicelib.console.texts import CATALOGUE, translate
from chalicelib.console.web import Answer, Request, page
from chalicelib.errors import ApiError
from chalicelib.schemas import value_text
from chalicelib.store.entities import to_wire
from chalicelib.store.entity_reads import entity_pk, fetch_entities

PAGE_SIZE = 50
MAX_QUERY = 200  # characters of a search that are used (the `search` query's limit)
# The list filters a search keeps: `search` narrows by object; a list filtered by another parent (a
# company's contacts, a unit's contracts) is short and paged, and offers no search.
SEARCHED_FILTERS = {"objectId": "objectId", "object": "objectId"}
CHILD_ROWS = 10  # rows of each child list on a detail page; the rest behind a link to the filtered list
MAX_NAMED = naming.MAX_READ  # referenced entities a detail page names (one batched read, names.py)
DOWNLOADS = ("downloadUrl",)  # a presigned link to the file: offered as a download, not shown as text
NOT_FOUND = (400, 404, 410)  # a show of an unknown, foreign, deleted or malformed id


@dataclass(frozen=True)
class Child:
    plural: str  # the child type
    arg: str  # the argument of its list query that names this entity
    only_if: tuple[str, str] | None = None  # (field, value) of this entity for which the list makes sense


@dataclass(frozen=True)
class DataType:
    plural: str  # the URL segment and the key of the list query's answer
    list_op: str
    show_op: str
    key: str  # the show query's argument and the key of its answer
    name_fields: tuple[str, ...]  # joined for the entity's name
    columns: tuple[str, ...]  # list columns after the name
    filters: tuple[str, ...] = ()  # list query arguments a list page passes on (a child list's "show all")
    children: tuple[Child, ...] = ()


TYPES: dict[str, DataType] = {
    dtype.plural: dtype
    for dtype in (
        DataType(
            "objects",
            "objects",
            "objects.show",
            "object",
            ("name",),
            ("number", "type", "address"),
            children=(
                Child("units", "objectId"),
                Child("contracts", "objectId"),
                Child("processes", "object"),
                Child("documents", "locationId"),
            ),
        ),
        DataType(
            "units",
            "units",
            "units.show",
            "unit",
            ("number",),
            ("type", "floor", "area", "objectId"),
            filters=("objectId",),
            children=(Child("contracts", "unitId"), Child("documents", "locationId")),
        ),
        DataType(
            "contracts",
            "contracts",
            "contracts.show",
            "contract",
            (),  # named by its type and parties (see _name)
            ("unitId", "startDate", "endDate", "objectId"),
            filters=("objectId", "unitId"),
            children=(Child("processes", "contract"), Child("documents", "locationId")),
        ),
        DataType(
            "contacts",
            "contacts",
            "contacts.show",
            "contact",
            ("companyName", "title", "firstName", "lastName"),
            ("personType", "emails", "address"),
            filters=("companyId",),
            children=(Child("contacts", "companyId", only_if=("personType", "legal")),),
        ),
        DataType(
            "processes",
            "processes.list",
            "processes.show",
            "process",
            ("title",),
            ("status", "priority", "category", "dueDate", "objectId"),
            filters=("object", "contract"),
            children=(Child("documents", "locationId"),),
        ),
        DataType(
            "documents",
            "documents.list",
            "documents.show",
            "document",
            ("title",),
            ("documentType", "documentDate", "fileName", "locationId"),
            filters=("locationId",),
        ),
    )
}
FILTER_FIELDS = {"object": "objectId", "contract": "contractId"}  # list arguments named unlike the field


def type_of(entity_id: str) -> DataType | None:
    """The data type of an id (its prefix says it), or None for a type these pages do not show."""
    etype = entities.by_prefix(ids.prefix_of(entity_id))
    return TYPES.get(etype.plural) if etype is not None else None


def path_of(entity_id: str) -> str | None:
    """The console page of an entity by its id (for other pages' links, e.g. the audit trail), or
    None for a type the data pages do not show."""
    dtype = type_of(entity_id)
    return f"/data/{dtype.plural}/{entity_id}" if dtype is not None else None


# --- the pages ---------------------------------------------------------------------------


@page("GET", "/data/{plural}")
def data_list(request: Request) -> Answer:
    dtype = TYPES.get(request.params["plural"])
    if dtype is None:
        return _not_found(request)
    query = request.query.get("q", "").strip()[:MAX_QUERY]
    filters = {name: request.query[name] for name in dtype.filters if request.query.get(name)}
    offset = _offset(request.query.get("offset"))
    searchable = all(name in SEARCHED_FILTERS for name in filters)
    query = query if searchable else ""
    entries: list[dict[str, Any]] = []
    pagination = {"total": 0, "limit": PAGE_SIZE, "offset": offset}
    errors: list[str] = []
    status = 200
    try:
        if query:
            entries, pagination = _searched(request, dtype, query, filters, offset)
        else:
            answer = run(request, dtype.list_op, {**filters, "limit": PAGE_SIZE, "offset": offset})
            entries, pagination = answer[dtype.plural], answer["pagination"]
    except ApiError as error:
        errors, status = messages(request, error), error.status
    return render(
        request,
        "data_list.html",
        status,
        errors=errors,
        **_frame(request, dtype),
        headers=_headers(request, dtype),
        rows=_rows(request, dtype, entries, errors),
        pagination=pagination,
        query=query,
        searchable=searchable,
        filters=[_filter_shown(request, dtype, name, value) for name, value in filters.items()],
        clear_search=_list_url(dtype, filters),
        pager_url=_pager_url(dtype, {**filters, **({"q": query} if query else {})}),
    )


@page("GET", "/data/{plural}/{id}")
def data_detail(request: Request) -> Answer:
    dtype = TYPES.get(request.params["plural"])
    if dtype is None:
        return _not_found(request)
    try:
        record = run(request, dtype.show_op, {dtype.key: request.params["id"]})[dtype.key]
    except ApiError as error:
        if error.status in NOT_FOUND:
            return _deleted(request, dtype) or _not_found(request)
        return render(request, "error.html", error.status, errors=messages(request, error))
    errors: list[str] = []
    refs = _references(dtype, record)
    found = _look_up(request, refs)
    names = _names_of(request, refs, found)
    children = [
        _children(request, child, record["id"], errors)
        for child in dtype.children
        if child.only_if is None or record.get(child.only_if[0]) == child.only_if[1]
    ]
    return render(
        request,
        "data_detail.html",
        errors=errors,
        **_frame(request, dtype),
        name=_name(request, dtype, record, names),
        fields=_with_restores(request, dtype, record, _fields(request, dtype, record, names), found),
        children=children,
        notice=restore.restored_notice(request),
    )


def _deleted(request: Request, dtype: DataType) -> Answer | None:
    """The page of an entity of this type that is deleted: its last name, since when, the restore
    button for a person who may, and what it references (a deleted one with its own button: it
    comes back first). None for any other id, which is then not found: one of another company or
    a malformed one is never read (names.py reads the person's own company only)."""
    entity_id = request.params["id"]
    if type_of(entity_id) is not dtype or not ids.looks_like_id(entity_id) or restore.operation_of(entity_id) is None:
        return None
    names = naming.Names(request.ctx).look_up([entity_id])
    found = names.get(entity_id)
    if found is None or not found.found or not found.deleted:
        return None
    name = found.name or entity_id
    refs = names.last_references(entity_id)
    named = _look_up(request, refs)
    references = [_reference(request, ref, named.get(ref)) for ref in refs]
    return render(
        request,
        "data_deleted.html",
        410,
        **_frame(request, dtype),
        entity_id=entity_id,
        name=name,
        since=times.when(request, found.deleted_at),
        offer=restore.offer(request, entity_id, name, deleted=True),
        references=references,
        blocked=any(reference["deleted"] for reference in references),
        history=f"/activity?{urlencode({'entityId': entity_id})}",
        notice=restore.restored_notice(request),
    )


def _reference(request: Request, entity_id: str, named: naming.Named | None) -> dict[str, Any]:
    """An entity a deleted one references: its type, its name and link, marked when deleted, with
    the restore button for a person who may."""
    dtype = type_of(entity_id)
    deleted = bool(named and named.deleted)
    return {
        "type": translate(request.lang, f"data.one.{dtype.plural}") if dtype else "",
        "text": naming.shown(named, entity_id, deleted_text=translate(request.lang, "common.deleted")),
        "href": path_of(entity_id),
        "deleted": deleted,
        "restore": restore.offer(request, entity_id, named.name if named else "", deleted),
    }


# --- reading ------------------------------------------------------------------------------


def _offset(raw: str | None) -> int:
    try:
        return max(int(raw or 0), 0)
    except ValueError:
        return 0


def _searched(
    request: Request, dtype: DataType, query: str, filters: dict[str, str], offset: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A page of the type's entries that `search` finds (within the list's object), as the list
    query answers them: read in one batch, in the search's order."""
    args: dict[str, Any] = {"query": query, "types": [dtype.key], "limit": PAGE_SIZE, "offset": offset}
    args.update({SEARCHED_FILTERS[name]: value for name, value in filters.items()})
    answer = run(request, "search", args)
    return _records(request, [result["id"] for result in answer["results"]]), answer["pagination"]


def _records(request: Request, entity_ids: list[str]) -> list[dict[str, Any]]:
    """The live entities of these ids as the person's reads show them, in the ids' order (one
    BatchGetItem; what the search found was within the person's reach, and the keys are the
    person's own tenant's)."""
    assert request.ctx is not None, "read for a signed-in person"
    found = fetch_entities([entity_pk(request.ctx.tenant_id, entity_id) for entity_id in entity_ids])
    by_id = {str(item.id): to_wire(request.ctx, item) for item in found if not item.deletedAt}
    return [by_id[entity_id] for entity_id in entity_ids if entity_id in by_id]


def _references(dtype: DataType, record: dict[str, Any]) -> list[str]:
    """Every id the record references (its schema's `x-ref` fields, nested ones too), in order."""
    schema = _schema(dtype)
    found = [ref for name, value in record.items() for _, ref in _refs(schema.get(name, {}), value, name)]
    return list(dict.fromkeys(found))


def _names(request: Request, refs: list[str], errors: list[str]) -> dict[str, str]:
    """The names of referenced entities; a deleted one by its last name, marked deleted."""
    return _names_of(request, refs, _look_up(request, refs))


def _look_up(request: Request, refs: list[str]) -> dict[str, naming.Named]:
    """Referenced entities as names.py finds them (one batched read of the person's own
    company's entities, bounded), deleted ones included."""
    return naming.Names(request.ctx).look_up(refs[:MAX_NAMED]).known


def _names_of(request: Request, refs: list[str], found: dict[str, naming.Named]) -> dict[str, str]:
    deleted = translate(request.lang, "common.deleted")
    return {
        ref: f"{named.name} ({deleted})" if named.deleted else named.name
        for ref in refs
        if (named := found.get(ref)) is not None and named.name
    }


def _children(request: Request, child: Child, parent_id: str, errors: list[str]) -> dict[str, Any]:
    """The first entities of a type whose list query, filtered by this entity, finds them."""
    dtype = TYPES[child.plural]
    rows: list[dict[str, Any]] = []
    total = 0
    try:
        answer = run(request, dtype.list_op, {child.arg: parent_id, "limit": CHILD_ROWS, "offset": 0})
        total = answer["pagination"]["total"]
        rows = _rows(request, dtype, answer[dtype.plural], errors)
    except ApiError as error:
        _add(errors, messages(request, error))
    return {
        "plural": dtype.plural,
        "title": translate(request.lang, f"data.type.{dtype.plural}"),
        "headers": _headers(request, dtype),
        "rows": rows,
        "total": total,
        "all_url": _list_url(dtype, {child.arg: parent_id}) if total > len(rows) else None,
    }


def _add(errors: list[str], more: list[str]) -> None:
    errors.extend(message for message in more if message not in errors)


# --- showing ------------------------------------------------------------------------------


def _frame(request: Request, dtype: DataType) -> dict[str, Any]:
    """What every data page shows around its content: the type tabs and the type's names."""
    tabs = [
        {
            "href": f"/data/{plural}",
            "text": translate(request.lang, f"data.type.{plural}"),
            "current": plural == dtype.plural,
        }
        for plural in TYPES
    ]
    return {
        "plural": dtype.plural,
        "type_title": translate(request.lang, f"data.type.{dtype.plural}"),
        "type_one": translate(request.lang, f"data.one.{dtype.plural}"),
        "tabs": tabs,
    }


def _not_found(request: Request) -> Answer:
    return render(request, "error.html", 404, errors=[translate(request.lang, "data.not_found")])


def _label(request: Request, field: str, type_name: str = "") -> str:
    """A field's label: the registry's (declared beside its schema), else the console's words."""
    label = naming.field_label(type_name, field, request.lang) if type_name else field
    if label != field:
        return label
    key = f"data.field.{field}"
    return translate(request.lang, key) if key in CATALOGUE else field


def _headers(request: Request, dtype: DataType) -> list[str]:
    return [_label(request, "name"), *(_label(request, column, dtype.key) for column in dtype.columns)]


def _name(request: Request, dtype: DataType, record: dict[str, Any], names: dict[str, str]) -> str:
    """How a person calls the entity: its name fields; a contract by its kind and parties."""
    if dtype.plural == "contracts":
        kind = value_text(_schema(dtype).get("type"), record.get("type"), request.lang)
        parties = [names[p["contactId"]] for p in record.get("parties") or [] if p.get("contactId") in names]
        if parties:
            return translate(request.lang, "data.name.contract_parties", type=kind, parties=", ".join(parties))
        return translate(request.lang, "data.name.contract", type=kind, start=record.get("startDate", "?"))
    name = " ".join(str(record[field]) for field in dtype.name_fields if record.get(field))
    return name or str(record.get("id", ""))


def _rows(request: Request, dtype: DataType, entries: list[dict[str, Any]], errors: list[str]) -> list[dict[str, Any]]:
    """A page of entries as table rows, the entities their columns reference (and a contract's
    parties, which name it) by name: one batched read for the page, names.py."""
    refs = [ref for entry in entries for column in dtype.columns for ref in _column_refs(dtype, entry, column)]
    refs += [party["contactId"] for entry in entries for party in _parties(dtype, entry)]
    names = _names(request, list(dict.fromkeys(refs)), errors) if refs else {}
    return [_row(request, dtype, entry, names) for entry in entries]


def _parties(dtype: DataType, entry: dict[str, Any]) -> list[dict[str, Any]]:
    if dtype.plural != "contracts":
        return []
    return [party for party in entry.get("parties") or [] if isinstance(party.get("contactId"), str)]


def _column_refs(dtype: DataType, entry: dict[str, Any], column: str) -> list[str]:
    return [ref for _, ref in _refs(_schema(dtype).get(column, {}), entry.get(column), column)]


def _row(request: Request, dtype: DataType, entry: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    first = _cell_of(_name(request, dtype, entry, names), href=f"/data/{dtype.plural}/{entry['id']}")
    schema = _schema(dtype)
    return {
        "cells": [
            first,
            *(_brief(request, column, entry.get(column), schema.get(column), names) for column in dtype.columns),
        ]
    }


def _cell_of(
    text: str | Markup, *, href: str | None = None, code: bool = False, download: str | None = None
) -> dict[str, Any]:
    """A value as the templates show it (every key present: the templates are strict)."""
    return {"text": text, "href": href, "code": code, "download": download}


def _brief(
    request: Request, field: str, value: Any, spec: dict[str, Any] | None = None, names: dict[str, str] | None = None
) -> dict[str, Any]:
    """A list cell: an address on one line, the first e-mail address, else as in the details."""
    if field == "address" and isinstance(value, dict):
        street = " ".join(str(value[part]) for part in ("street", "houseNumber") if value.get(part))
        town = " ".join(str(value[part]) for part in ("postalCode", "city") if value.get(part))
        return _cell_of(", ".join(part for part in (street, town) if part))
    if field == "emails" and isinstance(value, list) and value:
        primary = next((item for item in value if item.get("primary")), value[0])
        return _cell_of(str(primary.get("address", "")))
    return _cell(request, field, value, names or {}, spec)


def _cell(
    request: Request, field: str, value: Any, names: dict[str, str], spec: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A field's value: a link for a reference (with its name where known), words for an enum or
    a yes/no, a time or date as the person reads it (times.py), a list of words joined, anything
    else nested as labelled text and lists (names.readable), never JSON."""
    spec = spec or {}
    if value is None:
        return _cell_of(translate(request.lang, "common.none"))
    if isinstance(value, str) and spec.get("format") == "date-time":
        return _cell_of(times.when(request, value))
    if isinstance(value, str) and spec.get("format") == "date":
        return _cell_of(times.date_text(value, request.lang))
    if isinstance(value, bool):
        return _cell_of(translate(request.lang, "common.yes" if value else "common.no"))
    if isinstance(value, str) and field.endswith("Id") and ids.looks_like_id(value):
        return _link(value, names)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        words = [value_text(spec.get("items"), item, request.lang) for item in value]
        return _cell_of(", ".join(words) or translate(request.lang, "common.none"))
    if isinstance(value, dict | list):
        shown = naming.readable(value, spec, request.lang, _Known(names), link=_address(request))
        return _cell_of(shown)
    return _cell_of(value_text(spec, value, request.lang))


def _address(request: Request) -> Any:
    """A referenced entity's data page as the browser reaches it (for names.readable's links)."""

    def address(entity_id: str) -> str | None:
        path = path_of(entity_id)
        return request.base + path if path else None

    return address


class _Known(naming.Names):
    """Names already read (the detail page's), for names.readable: no further reads."""

    def __init__(self, known: dict[str, str]) -> None:
        super().__init__(None)
        self.known = {ref: naming.Named(ref, "", name) for ref, name in known.items()}


def _link(entity_id: str, names: dict[str, str]) -> dict[str, Any]:
    """A referenced entity: a link to its page when it is of the six types, else its id."""
    path = path_of(entity_id)
    if path is None:
        return _cell_of(entity_id, code=True)
    name = names.get(entity_id)
    if not name:
        return _cell_of(entity_id, href=path)
    return _cell_of(Markup('{} <span class="muted mono">{}</span>').format(name, entity_id), href=path)


def _with_restores(
    request: Request,
    dtype: DataType,
    record: dict[str, Any],
    fields: list[dict[str, Any]],
    found: dict[str, naming.Named],
) -> list[dict[str, Any]]:
    """Each field with the restore buttons (restore.offer) of the deleted entities it references:
    for an admin or owner, none for anyone else."""
    schema = _schema(dtype)
    shown = []
    for field in fields:
        refs = dict.fromkeys(ref for _, ref in _refs(schema.get(field["name"], {}), record[field["name"]], ""))
        named = [found[ref] for ref in refs if ref in found and found[ref].deleted]
        offers = [restore.offer(request, one.id, one.name, one.deleted) for one in named]
        shown.append({**field, "restores": [offer for offer in offers if offer is not None]})
    return shown


def _fields(request: Request, dtype: DataType, record: dict[str, Any], names: dict[str, str]) -> list[dict[str, Any]]:
    """Every field of the record, in the schema's order: label, value and, for a nested value that
    references entities, links to them."""
    schema = _schema(dtype)
    order = [name for name in schema if name in record] + [name for name in record if name not in schema]
    shown = []
    for name in order:
        value, spec = record[name], schema.get(name, {})
        refs: list[dict[str, Any]] = []
        if name in DOWNLOADS:
            cell = _cell_of(translate(request.lang, "data.download"), download=str(value))
        elif isinstance(value, str) and spec.get("x-ref"):
            cell = _link(value, names)
        else:
            cell = _cell(request, name, value, names, spec)
        shown.append({"label": _label(request, name, dtype.key), "name": name, "value": cell, "refs": refs})
    return shown


def _schema(dtype: DataType) -> dict[str, Any]:
    """The properties of the entity in its show query's answer (the registry's own schema)."""
    result = registry.REGISTRY[dtype.show_op].result or {}
    return dict(result.get("properties", {}).get(dtype.key, {}).get("properties", {}))


def _refs(schema: dict[str, Any], value: Any, path: str) -> list[tuple[str, str]]:
    """(path, id) of each reference in a value, following its schema into objects and arrays."""
    if isinstance(value, str):
        return [(path, value)] if schema.get("x-ref") else []
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        return [ref for name, item in value.items() for ref in _refs(properties.get(name, {}), item, f"{path}.{name}")]
    if isinstance(value, list):
        items = schema.get("items", {})
        return [ref for number, item in enumerate(value) for ref in _refs(items, item, f"{path}[{number}]")]
    return []


def _filter_shown(request: Request, dtype: DataType, name: str, value: str) -> dict[str, Any]:
    return {
        "name": name,
        "raw": value,
        "label": _label(request, FILTER_FIELDS.get(name, name)),
        "value": _link(value, {}),
        "clear": _list_url(dtype, {}),
    }


def _list_url(dtype: DataType, query: dict[str, str]) -> str:
    return f"/data/{dtype.plural}" + (f"?{urlencode(query)}" if query else "")


def _pager_url(dtype: DataType, query: dict[str, str]) -> str:
    """The list's address with its search and filters, ready for the pager's `offset=`."""
    return f"/data/{dtype.plural}?" + (urlencode(query) + "&" if query else "")
