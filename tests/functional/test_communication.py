"""Communication through HTTP: call records (Telefonnotizen) and posts (Aushänge)."""

from __future__ import annotations

from typing import Any

from tests.client import Tenant


def make_object(tenant: Tenant, name: str = "Mietshaus Gartenweg 5") -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": name, "type": "rental"}})["object"])


# --- call records -------------------------------------------------------------------------


def test_call_record_references_accept_aliases_and_guard_deletes(tenant: Tenant) -> None:
    obj = make_object(tenant)
    caller = tenant.contact()
    process = tenant.ok("processes.create", {"process": {"title": "Lärm"}, "object": obj["id"]})["process"]
    tenant.alias("haus", obj["id"], "object")
    tenant.alias("mieter", caller["id"], "contact")
    tenant.alias("laerm", process["id"], "process")
    call = tenant.ok(
        "callrecords.create",
        {
            "callRecord": {
                "contactId": "mieter",
                "objectId": "haus",
                "processId": "laerm",
                "startedAt": "2025-02-03T10:00:00+01:00",
            }
        },
    )["callRecord"]
    assert (call["contactId"], call["objectId"], call["processId"]) == (caller["id"], obj["id"], process["id"])
    tenant.alias("anruf-1", call["id"], "callRecord")
    assert tenant.get("callrecords.show", {"callRecord": "anruf-1"})["callRecord"]["id"] == call["id"]
    refused = tenant.command("processes.delete", {"process": process["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"
    assert refused.body["referencedBy"] == [{"type": "callRecord", "id": call["id"], "path": "processId"}]
    detached = tenant.ok("callrecords.update", {"callRecord": {"id": "anruf-1", "processId": None}})["callRecord"]
    assert "processId" not in detached
    tenant.ok("processes.delete", {"process": process["id"]})


def test_call_record_validation(tenant: Tenant) -> None:
    no_start = tenant.command("callrecords.create", {"callRecord": {"subject": "x"}})
    assert no_start.status == 400
    for bad in (
        {"durationSeconds": -1},
        {"direction": "sideways"},
        {"outcome": "busy"},
        {"startedAt": "gestern"},
        {"phoneNumber": "call me"},
    ):
        answer = tenant.command("callrecords.create", {"callRecord": {"startedAt": "2025-02-03T09:15:00Z", **bad}})
        assert answer.status == 400, bad
    call = tenant.ok("callrecords.create", {"callRecord": {"startedAt": "2025-02-03T09:15:00Z"}})["callRecord"]
    cleared = tenant.command("callrecords.update", {"callRecord": {"id": call["id"], "startedAt": None}})
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "callRecord.startedAt"
    missing = tenant.command(
        "callrecords.create",
        {"callRecord": {"startedAt": "2025-02-03T09:15:00Z", "processId": "prc_01K00000000000000000000000"}},
    )
    assert missing.status == 404 and missing.body["errors"][0]["path"] == "callRecord.processId"


# --- posts --------------------------------------------------------------------------------


def test_post_rules(tenant: Tenant) -> None:
    obj = make_object(tenant)
    tenant.alias("haus", obj["id"], "object")
    base = {"objectId": "haus", "title": "Hoffest"}
    assert tenant.command("posts.create", {"post": {"title": "ohne Objekt"}}).status == 400
    backwards = tenant.command(
        "posts.create",
        {"post": {**base, "visibleFrom": "2025-06-01T10:00:00Z", "visibleUntil": "2025-05-31T10:00:00Z"}},
    )
    assert backwards.status == 400 and backwards.body["errors"][0]["path"] == "post.visibleUntil"
    # 10:30+02:00 is 08:30Z: before 09:00Z although the text sorts after it.
    offset = tenant.command(
        "posts.create",
        {"post": {**base, "visibleFrom": "2025-06-01T09:00:00Z", "visibleUntil": "2025-06-01T10:30:00+02:00"}},
    )
    assert offset.status == 400
    ok = tenant.ok(
        "posts.create",
        {"post": {**base, "visibleFrom": "2025-06-01T09:00:00Z", "visibleUntil": "2025-06-01T11:30:00+02:00"}},
    )["post"]
    assert ok["objectId"] == obj["id"]
    assert tenant.command("posts.create", {"post": {**base, "body": "x" * 20001}}).status == 400
    assert tenant.command("posts.update", {"post": {"id": ok["id"], "title": None}}).status == 400
    refused = tenant.command("objects.delete", {"object": obj["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"


def test_posts_need_the_documents_write_scope(tenant: Tenant) -> None:
    obj = make_object(tenant)
    processes_only = tenant.new_key(["read", "write:processes"], agent="p")
    documents = tenant.new_key(["read", "write:documents"], agent="d")
    body = {"post": {"objectId": obj["id"], "title": "Aushang"}}
    assert tenant.command("posts.create", body, key=processes_only).status == 403
    assert tenant.command("posts.create", body, key=documents).status == 200
