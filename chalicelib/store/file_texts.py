"""A file's words for the entity search (entity_search/pdf_text.py), kept beside its entity: an item
of the entity's partition (sort key FILE_TEXT_SK), written in the entity's creating transaction, read
only by the index (entity_search/follow.py), never by a list or a show, so a page of documents costs
what it did. Bookkeeping to the audit and the change stream (store/audit_records.py audited_type)."""

from __future__ import annotations

from chalicelib.store.entities import entity_pk
from chalicelib.store.entity_reads import fetch_many
from chalicelib.store.model import Item

FILE_TEXT_SK = "fileText"
FILE_TEXT_TYPE = "fileText"


def companion(tenant_id: str, entity_id: str, text: str) -> Item:
    """The item holding the text of the entity's file (store.create's `companions`)."""
    return Item(
        entity_pk(tenant_id, entity_id),
        FILE_TEXT_SK,
        type=FILE_TEXT_TYPE,
        tenantId=tenant_id,
        id=entity_id,
        data={"text": text},
    )


def texts_of(tenant_id: str, entity_ids: list[str]) -> dict[str, str]:
    """The kept text of each of these entities' files that has one (one BatchGetItem per 100)."""
    items = fetch_many([(entity_pk(tenant_id, entity_id), FILE_TEXT_SK) for entity_id in entity_ids])
    return {str(item.id): str(item.data_dict().get("text") or "") for item in items}
