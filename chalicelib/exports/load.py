"""Loading an export's lines into a tenant through the upsert operations (exports/lines.py says what a
line is): each run of lines of one upsert in calls of up to 500 items (`alias` plus the line's
`data`), in order; an entity's further aliases mapped with aliases.upsert; documents and UVI documents
uploaded from the export's file archive (a document over 4 MiB through the bulk path, a presigned
upload) and their alias mapped. Loading again changes nothing: upserts answer `unchanged`, documents
whose alias is known are skipped.

The calls go through a `Caller`: over HTTP with a key (`pmctl import`, ops/importer.py) or in the
service's own process (a sandbox's seed, sandbox/seed.py); either way the operations validate, audit
and send their events. An entity exported without an alias has its id as `alias`, and references to
it are that id: the upserts map such an id from elsewhere like an alias and resolve references through
it. The uploads read an id as an id, so a document's line is loaded here as the upserts would: its
references that are ids mapped in this tenant are sent as the ids they name, and its `alias` (an id
from elsewhere too) is mapped by aliases.upsert, which takes an id of the entry's type that names no
entity of the tenant; a document whose alias (or, its alias being this tenant's own id, whose id)
names a live one is `unchanged`. The entity types' fields are read from the registry (loaded by the
caller) to know which are references."""

from __future__ import annotations

import base64
import gzip
import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Protocol, cast

from chalicelib import config, ids
from chalicelib.entities import ENTITY_TYPES, ref_types
from chalicelib.schemas import map_refs
from chalicelib.uploads.files import MAX_DIRECT_BYTES


class Caller(Protocol):
    """Runs the interface's operations as one key: (status, answer or problem)."""

    timeout: float

    def call(self, kind: str, name: str, body: dict[str, Any] | None = None) -> tuple[int, Any]: ...


MAX_BODY_BYTES = config.MAX_BODY_BYTES * 9 // 10  # a call's items, with room for the JSON around them
UPLOADS = {"document": "documents.upload", "uviDocument": "uvi.upload"}
BULK_WAITS, BULK_WAIT_SECONDS = 600, 0.5  # a bulk upload's registration waited for at most 5 minutes


@dataclass
class Outcome:
    counts: dict[str, int] = field(default_factory=lambda: {"created": 0, "updated": 0, "unchanged": 0, "failed": 0})
    failures: list[dict[str, Any]] = field(default_factory=list)

    def add(self, result: dict[str, Any], line_type: str) -> None:
        self.counts[result["result"]] += 1
        if result["result"] == "failed":
            self.failures.append({"type": line_type, **result})


class ImportRefused(Exception):
    pass


def ok(api: Caller, name: str, body: dict[str, Any]) -> Any:
    """A command that must succeed (the upserts themselves, aliases): else the load stops."""
    status, answer = api.call("command", name, body)
    if status != 200:
        raise ImportRefused(f"{name} answered {status}: {json.dumps(answer)[:500]}")
    return answer


def ok_query(api: Caller, name: str, args: dict[str, Any]) -> Any:
    """A query that must succeed (what the load decides by): else the load stops."""
    status, answer = api.call("query", name, args)
    if status != 200:
        raise ImportRefused(f"{name} answered {status}: {json.dumps(answer)[:500]}")
    return answer


def read_lines(stream: IO[bytes]) -> Iterator[dict[str, Any]]:
    """The export's lines, gzipped or not, one at a time."""
    head = stream.peek(2)[:2] if hasattr(stream, "peek") else b""
    source: IO[bytes] = cast(IO[bytes], gzip.GzipFile(fileobj=stream)) if head == b"\x1f\x8b" else stream
    for raw in source:
        if raw.strip():
            yield json.loads(raw)


def run(
    api: Caller, lines: Iterator[dict[str, Any]], files: zipfile.ZipFile | None, progress: Callable[[str], None]
) -> Outcome:
    outcome = Outcome()
    batch: list[dict[str, Any]] = []
    size = 0  # the batch's items as the call carries them: each line's data as JSON and its alias
    for line in lines:
        item_size = 0 if line["upsert"] is None else len(json.dumps(line["data"])) + len(line["alias"])
        if batch and (
            line["upsert"] != batch[0]["upsert"]
            or len(batch) >= config.MAX_UPSERT_ITEMS
            or size + item_size > MAX_BODY_BYTES
        ):
            _send(api, batch, outcome, progress)
            batch, size = [], 0
        if line["upsert"] is None:
            _upload(api, line, files, outcome)
        else:
            batch.append(line)
            size += item_size
    if batch:
        _send(api, batch, outcome, progress)
    return outcome


def _send(api: Caller, batch: list[dict[str, Any]], outcome: Outcome, progress: Callable[[str], None]) -> None:
    name = batch[0]["upsert"]
    answer = ok(api, name, {"items": [{**line["data"], "alias": line["alias"]} for line in batch]})
    for line, result in zip(batch, answer["results"], strict=True):
        outcome.add(result, line["type"])
    _map_further_aliases(api, [(line, result["id"]) for line, result in zip(batch, answer["results"], strict=True)])
    progress(f"{name}: {len(batch)} items, {json.dumps(answer['counts'])}")


def _map_further_aliases(api: Caller, done: list[tuple[dict[str, Any], str | None]]) -> None:
    entries = [
        {"alias": alias, "id": entity_id, "type": line["type"]}
        for line, entity_id in done
        if entity_id
        for alias in line.get("aliases") or []
        if alias != line["alias"] and not ids.looks_like_id(alias)
    ]
    for start in range(0, len(entries), config.MAX_ALIAS_ENTRIES):
        ok(api, "aliases.upsert", {"entries": entries[start : start + config.MAX_ALIAS_ENTRIES]})


def _upload(api: Caller, line: dict[str, Any], files: zipfile.ZipFile | None, outcome: Outcome) -> None:
    """A document or UVI document: uploaded with its file unless its alias names one already."""
    kind, alias = line["type"], line["alias"]
    argument = "document" if kind == "document" else "uviDocument"
    references = _references(kind, line["data"])
    mapped = _mapped(api, [alias, *references])
    known = mapped.get(alias)
    if known is not None and known[1] == kind:
        outcome.add({"alias": alias, "id": known[0], "result": "unchanged", "errors": []}, kind)
        return
    if ids.looks_like_id(alias):  # an id of this tenant's own (an export loaded back where it came from)
        shown = "documents.show" if kind == "document" else "uvi.show"
        status, found = api.call("query", shown, {argument: alias})
        if status == 200:
            outcome.add({"alias": alias, "id": found[argument]["id"], "result": "unchanged", "errors": []}, kind)
            return
    if files is None or not line.get("file"):
        reason = "no file archive given (--files)" if files is None else "the export holds no file for it"
        outcome.add({"alias": alias, "id": None, "result": "failed", "code": "no_file", "errors": [reason]}, kind)
        return
    data = _with_mapped_ids(kind, line["data"], mapped)
    content = files.read(line["file"])
    name = data.pop("fileName", None) or line["file"].rsplit("/", 1)[-1]
    content_type, _size = data.pop("contentType", None), data.pop("size", None)
    if kind == "document" and len(content) > MAX_DIRECT_BYTES:
        entity_id = _upload_in_bulk(api, data, name, str(content_type), content)
        if entity_id is None:
            reason = "the bulk upload of its file was not registered"
            outcome.add(
                {"alias": alias, "id": None, "result": "failed", "code": "upload_failed", "errors": [reason]}, kind
            )
            return
    else:
        resource = {"fileName": name, "content": base64.b64encode(content).decode()}
        if kind == "document":
            body = {"locationId": data.pop("locationId"), "resource": resource, "document": data}
        else:
            body = {"data": data, "resource": resource}
        status, answer = api.call("command", UPLOADS[kind], body)
        if status != 200:
            code = answer.get("code") if isinstance(answer, dict) else None
            detail = answer.get("detail") if isinstance(answer, dict) else str(answer)
            outcome.add({"alias": alias, "id": None, "result": "failed", "code": code, "errors": [detail]}, kind)
            return
        entity_id = answer[argument]["id"]
    further = {each for each in line.get("aliases") or [] if not ids.looks_like_id(each)}
    aliases = {alias, *further}  # the alias itself even when an id from elsewhere: found again by the next run
    entries = [{"alias": each, "id": entity_id, "type": kind} for each in sorted(aliases)]
    if entries:
        ok(api, "aliases.upsert", {"entries": entries})
    outcome.add({"alias": alias, "id": entity_id, "result": "created", "errors": []}, kind)


def _schema(kind: str) -> dict[str, Any]:
    etype = ENTITY_TYPES.get(kind)
    if etype is None:
        raise ImportRefused(f"the entity type {kind!r} is unknown here (is the registry loaded?)")
    return {"type": "object", "properties": etype.fields}


def _references(kind: str, data: dict[str, Any]) -> list[str]:
    """The line's references written as ids (of entities exported without an alias)."""
    found: list[str] = []

    def collect(_path: str, _ref: Any, value: str) -> str:
        if ids.looks_like_id(value):
            found.append(value)
        return value

    map_refs(_schema(kind), data, "", collect)
    return found


def _mapped(api: Caller, names: list[str]) -> dict[str, tuple[str, str]]:
    """alias -> (id, type) of those of `names` mapped in the tenant for the caller's integration."""
    answer = ok_query(api, "aliases.resolve", {"aliases": list(dict.fromkeys(names))})
    return {entry["alias"]: (entry["id"], entry["type"]) for entry in answer["aliases"]}


def _with_mapped_ids(kind: str, data: dict[str, Any], mapped: dict[str, tuple[str, str]]) -> dict[str, Any]:
    """The line's data with each reference that is an id mapped here as an alias sent as the id it names."""

    def swap(_path: str, x_ref: Any, value: str) -> str:
        hit = mapped.get(value) if ids.looks_like_id(value) else None
        return hit[0] if hit is not None and hit[1] in ref_types(x_ref) else value

    return dict(map_refs(_schema(kind), data, "", swap))


def _upload_in_bulk(api: Caller, data: dict[str, Any], name: str, content_type: str, content: bytes) -> str | None:
    """A document over the direct upload's 4 MiB: a presigned upload (documents.uploads.create), the
    file POSTed to S3, then waited for until the service registered it; its id (None if refused)."""
    request = {"locationId": data.pop("locationId"), "fileName": name, "contentType": content_type}
    created = ok(api, "documents.uploads.create", {"uploads": [{**request, "size": len(content), "document": data}]})
    (upload,) = created["uploads"]
    body, form_type = _form(upload["fields"], upload["fileName"], content, content_type)
    posted = urllib.request.Request(upload["url"], data=body, method="POST", headers={"Content-Type": form_type})
    with urllib.request.urlopen(posted, timeout=api.timeout):
        pass
    progress = {"batch": created["batch"]["id"], "limit": 10, "offset": 0}
    for _ in range(BULK_WAITS):
        status, answer = api.call("query", "documents.uploads.progress", progress)
        (state,) = answer["uploads"] if status == 200 else [{"status": "pending"}]
        if state["status"] == "registered":
            return str(upload["documentId"])
        if state["status"] == "failed":
            return None
        time.sleep(BULK_WAIT_SECONDS)
    return None


def _form(fields: dict[str, str], file_name: str, content: bytes, content_type: str) -> tuple[bytes, str]:
    """A multipart form as a browser posts it to a presigned S3 upload: the fields, then the file."""
    boundary = "----pmimport" + uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file_name}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n"
    ).encode()
    return b"".join(
        parts
    ) + head + content + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"
