"""The index follows the change stream: events/stream.py hands each batch's entity changes here,
beside the audit, the feed and the webhooks' fan-out. A created, changed or restored entity is
(re)indexed from its state after the change, a deleted one leaves the index; a change handled twice
writes the same row again. An entity found by its contact's name (texts.named_through: signatories,
advisors, responsibilities, contracts) reads those contacts when it is indexed (one BatchGetItem per batch), and
a changed contact re-indexes those naming it (one Query of its reference edges per changed
contact). A document's PDF is found by its text too, kept beside it when its file arrived
(store/file_texts.py: one BatchGetItem per batch). `reindex` rebuilds a tenant's rows from the
table (`pmctl search reindex`), `verify` compares them with it (`pmctl search verify`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from chalicelib.context import CallContext
from chalicelib.entities import ENTITY_TYPES
from chalicelib.entity_search import engine, pdf_text
from chalicelib.entity_search.texts import (
    CONTENT,
    contacts_named,
    name_of,
    named_through,
    names_of_people,
    person_texts,
    searchable_types,
    texts,
)
from chalicelib.store import file_texts, refs
from chalicelib.store.entities import live_entities
from chalicelib.store.entity_reads import entity_pk, fetch_entities


class EntityChange(Protocol):  # what events/changes.Change holds that the index reads
    @property
    def tenant_id(self) -> str: ...
    @property
    def entity_type(self) -> str: ...
    @property
    def entity_id(self) -> str: ...
    @property
    def after(self) -> dict[str, Any] | None: ...
    @property
    def account(self) -> bool: ...


def entry(
    tenant_id: str,
    type_name: str,
    entity_id: str,
    data: dict[str, Any],
    contacts: dict[str, dict[str, Any]],
    file_text: str = "",
) -> engine.Entry:
    """The row of an entity; `contacts` (id -> fields) holds the contacts it is found through, if any;
    `file_text` the words of its file (a document's PDF: CONTENT)."""
    object_id = entity_id if type_name == "object" else data.get("objectId")
    if named_through(type_name):
        people = [contacts[c] for c in contacts_named(type_name, data) if c in contacts]
        fields, name = person_texts(people), names_of_people(people)
    else:
        fields, name = texts(type_name, data), name_of(type_name, data)
    if file_text:
        fields = [*fields, (CONTENT, file_text)]
    return engine.Entry(
        tenant_id=tenant_id,
        type=type_name,
        id=entity_id,
        object_id=str(object_id) if object_id else None,
        name=name,
        fields=tuple(fields),
    )


def entries(tenant_id: str, found: list[tuple[str, str, dict[str, Any]]]) -> list[engine.Entry]:
    """The rows of these (type, id, fields) entities, their contacts read in one batch."""
    wanted = {c for t, _, d in found for c in contacts_named(t, d)}
    contacts = {str(i.id): i.data_dict() for i in fetch_entities([entity_pk(tenant_id, c) for c in sorted(wanted)])}
    with_text = [i for t, i, d in found if pdf_text.kept(t, str(d.get("contentType")))]
    kept = file_texts.texts_of(tenant_id, with_text) if with_text else {}
    return [entry(tenant_id, t, i, d, contacts, kept.get(i, "")) for t, i, d in found]


def _named_by(tenant_id: str, contact_ids: list[str]) -> list[tuple[str, str, dict[str, Any]]]:
    """The live entities found through these contacts (their reference edges, then their items)."""
    ctx = CallContext(tenant_id=tenant_id, key_id="", agent_name="", scopes=frozenset())
    linked = [e["id"] for c in contact_ids for e in refs.inbound(ctx, c) if named_through(e["type"])]
    items = fetch_entities([entity_pk(tenant_id, i) for i in dict.fromkeys(linked)])
    return [(str(item.type), str(item.id), item.data_dict()) for item in items]


def follow(changes: Iterable[EntityChange]) -> None:
    """Apply a batch of the stream's changes to the index, in order (the last state of an entity wins)."""
    latest: dict[tuple[str, str], EntityChange] = {}
    for change in changes:
        if not change.account and change.entity_type in searchable_types():
            latest[(change.tenant_id, change.entity_id)] = change
    if not latest:
        return
    index = engine.current()
    gone: dict[str, list[str]] = {}
    present: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    renamed: dict[str, list[str]] = {}  # contacts changed: what is found through them follows
    for change in latest.values():
        after = change.after
        if after is None or after.get("deletedAt"):
            gone.setdefault(change.tenant_id, []).append(change.entity_id)
            continue
        present.setdefault(change.tenant_id, []).append((change.entity_type, change.entity_id, after.get("data") or {}))
        if change.entity_type == "contact":
            renamed.setdefault(change.tenant_id, []).append(change.entity_id)
    for tenant_id, entity_ids in gone.items():
        index.drop_rows(tenant_id, entity_ids)
    for tenant_id, found in present.items():
        following = {entity_id for _, entity_id, _ in found}
        also = [e for e in _named_by(tenant_id, renamed.get(tenant_id, [])) if e[1] not in following]
        index.put_rows(entries(tenant_id, found + also))


@dataclass(frozen=True)
class Difference:
    """How a tenant's index differs from its table (ids; empty: they agree)."""

    missing: list[str]  # live and searchable, not in the index
    stale: list[str]  # in the index with other text, name or object than the table gives
    extra: list[str]  # in the index, not live in the table (deleted, or never there)

    @property
    def agrees(self) -> bool:
        return not (self.missing or self.stale or self.extra)


def table_entries(ctx: CallContext) -> Iterator[list[engine.Entry]]:
    """The rows the tenant's live entities give, 100 at a time, type by type (the key of `ctx`
    reaching all of them)."""
    for type_name in searchable_types():
        for items in live_entities(ctx, ENTITY_TYPES[type_name]):
            yield entries(ctx.tenant_id, [(type_name, str(item.id), item.data_dict()) for item in items])


def verify(ctx: CallContext) -> Difference:
    """Compare the tenant's rows in the index with what its table gives (`pmctl search verify`)."""
    indexed = {entry.id: entry for entry in engine.current().tenant_rows(ctx.tenant_id)}
    expected = {entry.id: entry for batch in table_entries(ctx) for entry in batch}
    return Difference(
        missing=sorted(expected.keys() - indexed.keys()),
        stale=sorted(i for i in expected.keys() & indexed.keys() if expected[i] != indexed[i]),
        extra=sorted(indexed.keys() - expected.keys()),
    )


def reindex(ctx: CallContext) -> dict[str, int]:
    """Rebuild the tenant's rows from its live entities (the key of `ctx` reaching all of them):
    its rows cleared, then each searchable type's entities indexed 100 at a time. Answers the
    number indexed per type."""
    index = engine.current()
    index.clear_tenant(ctx.tenant_id)
    done = dict.fromkeys(searchable_types(), 0)
    for batch in table_entries(ctx):
        index.put_rows(batch)
        for row in batch:
            done[row.type] += 1
    return done
