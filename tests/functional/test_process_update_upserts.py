"""processes.updates.upsert (issue 34): a tenant re-import brings a process's timeline by its own
ids, over HTTP: created, then unchanged when sent again, updated when its text differs, and the
entry is found by its alias."""

from __future__ import annotations

from typing import Any

from tests.client import Tenant


def _upsert(tenant: Tenant, items: list[dict[str, Any]]) -> dict[str, Any]:
    return dict(tenant.ok("processes.updates.upsert", {"items": items}))


def test_process_updates_are_created_then_unchanged_then_updated_by_their_alias(tenant: Tenant) -> None:
    tenant.ok("objects.upsert", {"items": [{"alias": "haus-1", "name": "WEG Musterstraße 12", "type": "weg"}]})
    process = tenant.ok(
        "processes.upsert", {"items": [{"alias": "vorgang-1", "objectId": "haus-1", "title": "Rohrbruch"}]}
    )
    process_id = process["results"][0]["id"]
    note = {
        "alias": "note-1",
        "processId": "vorgang-1",
        "text": "Installateur für Do., 10 Uhr beauftragt.",
        "type": "note",
        "occurredAt": "2025-03-04T09:30:00Z",
    }

    first = _upsert(tenant, [note])
    (created,) = first["results"]
    assert first["counts"] == {"created": 1, "updated": 0, "unchanged": 0, "failed": 0}
    assert created["result"] == "created" and created["alias"] == "note-1" and created["id"].startswith("pru_")

    again = _upsert(tenant, [note])
    assert again["counts"] == {"created": 0, "updated": 0, "unchanged": 1, "failed": 0}
    assert again["results"][0]["id"] == created["id"]

    changed = _upsert(tenant, [{**note, "text": "Termin auf Fr., 8 Uhr verschoben."}])
    assert changed["counts"] == {"created": 0, "updated": 1, "unchanged": 0, "failed": 0}
    assert changed["results"][0]["id"] == created["id"]

    shown = tenant.get("processes.updates.show", {"update": "note-1"})["update"]
    assert shown["id"] == created["id"] and shown["processId"] == process_id
    assert shown["text"] == "Termin auf Fr., 8 Uhr verschoben." and shown["version"] == 2
    assert shown["occurredAt"] == "2025-03-04T09:30:00Z" and shown["aliases"] == ["note-1"]
    listed = tenant.get("processes.updates.list", {"process": "vorgang-1", "limit": 10, "offset": 0})
    assert [u["id"] for u in listed["updates"]] == [created["id"]]


def test_a_process_update_keeps_its_process_and_an_archived_process_refuses_new_entries(tenant: Tenant) -> None:
    tenant.ok("objects.upsert", {"items": [{"alias": "haus-2", "name": "Haus 2", "type": "rental"}]})
    tenant.ok(
        "processes.upsert",
        {
            "items": [
                {"alias": "vorgang-a", "objectId": "haus-2", "title": "Heizung"},
                {"alias": "vorgang-b", "objectId": "haus-2", "title": "Aufzug", "status": "done"},
            ]
        },
    )
    _upsert(tenant, [{"alias": "note-a", "processId": "vorgang-a", "text": "Notiz"}])
    moved = _upsert(tenant, [{"alias": "note-a", "processId": "vorgang-b", "text": "Notiz"}])
    assert moved["counts"]["failed"] == 1 and moved["results"][0]["errors"][0]["path"] == "items[0].processId"

    tenant.ok("processes.update", {"process": {"id": "vorgang-b", "isArchived": True}})
    refused = _upsert(tenant, [{"alias": "note-b", "processId": "vorgang-b", "text": "Nachtrag"}])
    assert refused["counts"]["failed"] == 1 and refused["results"][0]["code"] == "process_archived"
    assert tenant.query("processes.updates.show", {"update": "note-b"}).status == 404
