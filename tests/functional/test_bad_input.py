"""The bad input catalogue: what a careless, broken or hostile client may send, each case
answered with a clear 4xx (application/problem+json with a stable code and a message that
says what was wrong; for MCP an error result carrying the same problem) and nothing written:
list totals, aliases and the audit trail unchanged once the change stream is idle.

Groups: oversized bodies and files, malformed JSON and text, injection strings (stored and
returned verbatim, never interpreted), JMESPath and pipelines over MCP, webhook targets
(SSRF), presigned uploads (forged, replayed, wrong size, unreserved), and API keys.

The test stack sets PM_ALLOW_LOOPBACK_WEBHOOKS=1 (tests/conftest.py), as the local stage
does, so receivers on 127.0.0.1 work: there loopback webhook URLs are accepted, while
metadata, private, shared and reserved addresses are refused all the same. The cases that
need the production setting switch it off for their own calls (the service reads it per call).
moto's S3 does not enforce a presigned POST's policy (key, size, expiry): where real S3
answers 403/400, the local bucket stores the file, so the upload cases check the service's
own line behind S3: nothing is registered beyond what was reserved, refused files are removed."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import urllib.parse
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from chalicelib import keyformat
from chalicelib.events import targets
from tests.client import Answer, Api, Tenant
from tests.eventually import eventually
from tests.mcp_client import MCP_PATH, McpSession
from tests.uploads import batch_progress, multipart, object_exists, pdf, post_file, wait_settled

MiB = 1024 * 1024
PROBLEM = "application/problem+json"

# --- helpers ---------------------------------------------------------------------------

TOTALS = ("contacts", "objects", "processes.list", "documents.list", "webhooks.list", "aliases.list", "audit.list")


# A new tenant's: signing up writes none of these but its own three audit records (the tenant, its
# first key and its owner, the console's first member).
EMPTY = {**dict.fromkeys(TOTALS, 0), "audit.list": 3}
_pool = ThreadPoolExecutor(max_workers=len(TOTALS))


def totals(stack: Any, tenant: Tenant) -> dict[str, int]:
    """What the tenant holds, once the change stream has caught up (audit records included)."""
    assert stack.poller.wait_idle(15)
    counted = _pool.map(lambda name: tenant.get(name, {"limit": 1, "offset": 0})["pagination"]["total"], TOTALS)
    return dict(zip(TOTALS, counted, strict=True))


def refused(answer: Answer, status: int, code: str, *words: str) -> dict[str, Any]:
    """A problem+json answer with this status and code whose detail names `words`; never a trace."""
    assert answer.status == status, (answer.status, answer.raw[:500])
    assert answer.content_type.startswith(PROBLEM), answer.headers
    body = answer.body
    assert isinstance(body, dict) and body["status"] == status and body["code"] == code, body
    assert body["type"] == f"urn:pm:problem:{code}" and body["title"]
    for word in words:
        assert word.lower() in body["detail"].lower(), (word, body["detail"])
    assert b"Traceback" not in answer.raw and b'File "' not in answer.raw
    return dict(body)


def tool_refused(result: Any, status: int, code: str, *words: str) -> dict[str, Any]:
    """An MCP error result carrying the problem REST would answer."""
    assert result.is_error, result.structured_content
    problem = result.structured_content["error"]
    assert problem["status"] == status and problem["code"] == code, problem
    text = result.content[0].text
    for word in words:
        assert word.lower() in text.lower(), (word, text)
    assert "Traceback" not in text
    return dict(problem)


def raw_http(api: Api, head: bytes, body: bytes = b"") -> Answer:
    """One request written byte for byte (repeated headers, folded ones), its answer parsed."""
    host, port = api.base.removeprefix("http://").split(":")
    request = (
        head
        + f"Host: {host}:{port}\r\n".encode()
        + b"Connection: close\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(request)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    head_part, _, payload = received.partition(b"\r\n\r\n")
    lines = head_part.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    try:
        parsed = json.loads(payload) if payload else None
    except ValueError:
        parsed = None
    return Answer(int(lines[0].split()[1]), headers, parsed, payload)


def command_head(name: str, *headers: bytes) -> bytes:
    return (
        f"POST /propertymanagement/v2/command/{name} HTTP/1.1\r\n".encode()
        + b"Content-Type: application/json\r\n"
        + b"".join(h + b"\r\n" for h in headers)
    )


def building(tenant: Tenant, alias: str = "haus") -> dict[str, Any]:
    obj = tenant.ok("objects.create", {"object": {"name": "Lindenstraße 12", "type": "weg"}})["object"]
    tenant.alias(alias, obj["id"], "object")
    return dict(obj)


CONTACT = {"contact": {"personType": "natural", "lastName": "Mustermann"}}


# --- methods, paths and content types the routes do not serve ---------------------------


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/propertymanagement/v2/query/objects", "GET, POST"),
        ("DELETE", "/propertymanagement/v2/command/objects.create", "GET, POST"),
        ("PATCH", "/propertymanagement/v2/query/some.unknown.name", "GET, POST"),
        ("PUT", MCP_PATH, None),
    ],
)
def test_a_method_no_route_lists_answers_405_problem_with_allow(
    tenant: Tenant, method: str, path: str, allowed: str | None
) -> None:
    answer = tenant.api.request(
        method, path, body=b"{}", headers={"Authorization": f"Bearer {tenant.key}", "Content-Type": "application/json"}
    )
    refused(answer, 405, "method_not_allowed", method)
    assert answer.headers["allow"] == (allowed or answer.headers["allow"]) and answer.headers["allow"]


@pytest.mark.parametrize("content_type", ["application/xml", "text/csv", "image/png"])
def test_a_content_type_no_route_accepts_answers_415_problem_and_writes_nothing(
    stack: Any, tenant: Tenant, content_type: str
) -> None:
    answer = tenant.command("contacts.create", raw=b"<contact/>", headers={"Content-Type": content_type})
    refused(answer, 415, "unsupported_media_type", content_type, "application/json")
    assert totals(stack, tenant) == EMPTY


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
def test_a_json_body_labelled_otherwise_answers_415_naming_json_and_writes_nothing(
    stack: Any, tenant: Tenant, content_type: str
) -> None:
    """Issue 52, 5: a body is what its Content-Type says. A JSON body sent as text/plain or
    form-urlencoded (curl's -d without -H) was read as JSON; now it is refused, as the docs said,
    naming the type to send (multipart only for the upload commands)."""
    body = json.dumps({"contact": {"personType": "natural", "lastName": "Formular"}}).encode()
    answer = tenant.command("contacts.create", raw=body, headers={"Content-Type": content_type})
    refused(answer, 415, "unsupported_media_type", content_type.split(";")[0], "Content-Type: application/json")
    assert totals(stack, tenant) == EMPTY
    assert (
        tenant.command("contacts.create", raw=body, headers={"Content-Type": "application/json; charset=utf-8"}).status
        == 200
    )
    bare = tenant.api.request(
        "POST",
        "/propertymanagement/v2/command/objects.create",
        body=body,
        headers={"Authorization": f"Bearer {tenant.key}"},
    )
    refused(bare, 415, "unsupported_media_type", "application/json")  # urllib labels it form-urlencoded itself


def test_a_command_without_a_body_needs_no_content_type(tenant: Tenant) -> None:
    """An empty body says nothing of its type: a command of no required arguments runs."""
    answer = tenant.api.request(
        "POST",
        "/propertymanagement/v2/command/exports.create",
        body=b"",
        headers={"Authorization": f"Bearer {tenant.key}", "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert answer.status == 200, answer.body


@pytest.mark.parametrize(
    "path",
    ["/", "/propertymanagement/v3/query/objects", "/propertymanagement/v2/objects", "/propertymanagement/v2/query/a/b"],
)
def test_a_path_no_route_serves_answers_404_problem_naming_the_routes(tenant: Tenant, path: str) -> None:
    answer = tenant.api.request("GET", path, headers={"Authorization": f"Bearer {tenant.key}"})
    refused(answer, 404, "no_route", f"GET {path}", "/propertymanagement/v2/query/<name>")


# --- oversized bodies and files --------------------------------------------------------


def test_a_command_body_over_one_mebibyte_answers_413_and_writes_nothing(stack: Any, tenant: Tenant) -> None:
    before = EMPTY
    body = json.dumps({"contact": {"personType": "natural", "lastName": "x", "notes": "n" * (MiB + 10)}}).encode()
    refused(tenant.command("contacts.create", raw=body), 413, "payload_too_large", "accepts at most 1048576")
    assert totals(stack, tenant) == before


def test_a_file_over_the_direct_upload_limit_answers_413_naming_the_bulk_path(stack: Any, tenant: Tenant) -> None:
    building(tenant)
    before = totals(stack, tenant)
    content = pdf() + b"0" * (4 * MiB)
    body = {"locationId": "haus", "resource": {"fileName": "gross.pdf", "content": base64.b64encode(content).decode()}}
    refused(tenant.command("documents.upload", body), 413, "payload_too_large", "documents.uploads.create", "4194304")
    assert totals(stack, tenant) == before


def test_a_multipart_upload_with_a_huge_file_part_answers_413_naming_the_bulk_path(stack: Any, tenant: Tenant) -> None:
    building(tenant)
    before = totals(stack, tenant)
    body, content_type = multipart(
        [("locationId", "haus")], "resource", "riesig.pdf", pdf() + b"0" * (7 * MiB), "application/pdf"
    )
    refused(
        tenant.command("documents.upload", raw=body, headers={"Content-Type": content_type}),
        413,
        "payload_too_large",
        "documents.uploads.create",
    )
    assert totals(stack, tenant) == before


def test_a_multipart_text_part_of_five_mebibytes_is_refused_by_its_length_limit(stack: Any, tenant: Tenant) -> None:
    building(tenant)
    before = totals(stack, tenant)
    body, content_type = multipart([("locationId", "h" * (5 * MiB))], "resource", "a.pdf", pdf(), "application/pdf")
    problem = refused(
        tenant.command("documents.upload", raw=body, headers={"Content-Type": content_type}),
        400,
        "validation_failed",
        "5242880 characters",
    )
    assert problem["errors"][0]["path"] == "locationId" and len(json.dumps(problem)) < 4000  # the value is not echoed
    assert totals(stack, tenant) == before


# --- malformed JSON and text -----------------------------------------------------------

DEEP = {
    "array nested 10,000 levels": b'{"contact": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
    "object nested 10,000 levels": b'{"contact": ' + b'{"a": ' * 10_000 + b"1" + b"}" * 10_001,
    "array nested 990 levels (just under the parser's limit)": b'{"contact": ' + b"[" * 990 + b"]" * 990 + b"}",
    "object nested 100 levels": b'{"contact": {"personType": "natural", "lastName": "x", "notes": '
    + b'{"a": ' * 100
    + b"1"
    + b"}" * 102,
}


@pytest.mark.parametrize("body", DEEP.values(), ids=DEEP.keys())
def test_json_nested_too_deeply_is_a_400_not_a_recursion_error(stack: Any, tenant: Tenant, body: bytes) -> None:
    before = EMPTY
    refused(tenant.command("contacts.create", raw=body), 400, "malformed_json", "levels deep")
    assert totals(stack, tenant) == before


NOT_AN_OBJECT = {
    "an array": b"[]",
    "a string": b'"contact"',
    "a number": b"42",
    "null": b"null",
    "an array of objects": b'[{"contact": {}}]',
}


@pytest.mark.parametrize("body", NOT_AN_OBJECT.values(), ids=NOT_AN_OBJECT.keys())
def test_a_json_body_that_is_not_an_object_is_refused(stack: Any, tenant: Tenant, body: bytes) -> None:
    before = EMPTY
    refused(tenant.command("contacts.create", raw=body), 400, "malformed_json", "JSON object")
    assert totals(stack, tenant) == before


BROKEN_TEXT = {
    "invalid UTF-8 bytes": (b'{"contact": {"personType": "natural", "lastName": "M\xfcller \xff\xfe"}}', "utf-8"),
    "a lone UTF-16 surrogate escape": (b'{"contact": {"personType": "natural", "lastName": "a\\ud800b"}}', "surrogate"),
    "a lone low surrogate escape": (b'{"contact": {"personType": "natural", "lastName": "\\udc00"}}', "surrogate"),
    "truncated JSON": (b'{"contact": {"personType": "natural", "lastName": "a', "not valid JSON"),
    "NaN": (b'{"contact": {"personType": "natural", "lastName": "a"}, "x": NaN}', "NaN"),
    "Infinity": (b'{"object": {"name": "a", "type": "weg", "constructionYear": Infinity}}', "Infinity"),
    "1e400": (b'{"object": {"name": "a", "type": "weg", "constructionYear": 1e400}}', "1e400"),
    "an integer of 5,000 digits": (
        b'{"object": {"name": "a", "type": "weg", "constructionYear": ' + b"9" * 5000 + b"}}",
        "digits",
    ),
}


@pytest.mark.parametrize(("body", "word"), BROKEN_TEXT.values(), ids=BROKEN_TEXT.keys())
def test_bodies_that_are_not_valid_json_text_are_refused_as_malformed(
    stack: Any, tenant: Tenant, body: bytes, word: str
) -> None:
    before = EMPTY
    name = "objects.create" if b'"object"' in body else "contacts.create"
    refused(tenant.command(name, raw=body), 400, "malformed_json", word)
    assert totals(stack, tenant) == before


def test_invalid_utf8_in_a_query_string_value_is_a_400_naming_the_argument(tenant: Tenant) -> None:
    for escaped in ("%ff%fe", "M%fcller", "%ed%a0%80"):  # Latin-1, and a UTF-8-encoded surrogate
        answer = tenant.api.request(
            "GET",
            f"/propertymanagement/v2/query/contacts?limit=10&offset=0&companyId={escaped}",
            headers={"Authorization": f"Bearer {tenant.key}"},
        )
        problem = refused(answer, 400, "validation_failed", "UTF-8")
        assert problem["errors"] == [
            {"path": "companyId", "message": "is not valid UTF-8 text (percent-escapes must encode UTF-8)"}
        ]


def test_a_string_of_a_million_characters_is_refused_by_its_max_length(stack: Any, tenant: Tenant) -> None:
    before = EMPTY
    problem = refused(
        tenant.command("contacts.create", {"contact": {"personType": "natural", "lastName": "x" * 1_000_000}}),
        400,
        "validation_failed",
    )
    assert problem["errors"] == [
        {"path": "contact.lastName", "message": "is 1000000 characters long; at most 200 allowed"}
    ]
    assert len(json.dumps(problem)) < 2000
    assert totals(stack, tenant) == before


# --- injection strings: stored and returned verbatim ------------------------------------

INJECTIONS = [
    "'; DROP TABLE x;--",
    '" OR "1"="1',
    "#a = :b",
    "attribute_exists(PK) AND begins_with(SK, :p)",
    '{"$ne": null}',
    "contacts[?lastName=='x'] | [0].id",
    "{{7*7}}",
    "${7*7}",
    "<%= 7*7 %>",
    "<script>alert(1)</script><img src=x onerror=alert(1)>",
    "../../etc/passwd",
    "line one\r\nX-Injected: 1",
    "nul\u0000bell\u0007esc\u001b[31m tab\t del\u007f",
    "\u202eexe.fdp\u202c RTL override",
    "Emoji 😀 👩‍👩‍👧 family, ZWJ, é vs é",
    "%00%0d%0a%27",
    "\\u0000 and \\n written out",
]


def _contact(tenant: Tenant, text: str) -> tuple[Answer, dict[str, str]]:
    return tenant.command("contacts.create", {"contact": {"personType": "natural", "lastName": text, "notes": text}}), {
        "lastName": text,
        "notes": text,
    }


def _object(tenant: Tenant, text: str) -> tuple[Answer, dict[str, str]]:
    return tenant.command("objects.create", {"object": {"name": text, "type": "weg", "notes": text}}), {
        "name": text,
        "notes": text,
    }


def _process(tenant: Tenant, text: str) -> tuple[Answer, dict[str, str]]:
    return tenant.command("processes.create", {"object": "haus", "process": {"title": text, "description": text}}), {
        "title": text,
        "description": text,
    }


def _document(tenant: Tenant, text: str) -> tuple[Answer, dict[str, str]]:
    resource = {"fileName": "scan.pdf", "content": base64.b64encode(pdf()).decode()}
    return tenant.command(
        "documents.upload", {"locationId": "haus", "resource": resource, "document": {"title": text}}
    ), {"title": text}


def _webhook(tenant: Tenant, text: str) -> tuple[Answer, dict[str, str]]:
    body = {
        "name": text,
        "description": text,
        "url": "https://example.org/hooks/pm",
        "events": ["contact.created"],
        "enabled": False,
    }
    return tenant.command("webhooks.create", body), {"name": text, "description": text}


RESOURCES = {
    "contacts": ("contact", _contact),
    "objects": ("object", _object),
    "processes": ("process", _process),
    "documents": ("document", _document),
    "webhooks": ("webhook", _webhook),
}


@pytest.mark.parametrize("resource", RESOURCES)
def test_injection_strings_in_text_fields_come_back_byte_identical(tenant: Tenant, resource: str) -> None:
    building(tenant)
    singular, create = RESOURCES[resource]
    for text in INJECTIONS:
        answer, fields = create(tenant, text)
        if _CONTROL.search(text):  # one-line fields refuse control characters, naming the field
            problem = refused(answer, 400, "validation_failed")
            field = next(iter(fields))
            assert {f"{singular}.{field}", field} & {e["path"] for e in problem["errors"]}, (
                text,
                problem,
            )  # webhooks.create: top level
            continue
        assert answer.status == 200 and answer.content_type == "application/json", (text, answer.body)
        assert json.dumps(text, ensure_ascii=False).encode() in answer.raw  # on the wire exactly as JSON writes it
        entity = answer.body[singular]
        shown = tenant.query(f"{resource}.show", {singular: entity["id"]})
        assert shown.status == 200 and shown.content_type == "application/json"
        for name, value in fields.items():
            assert entity[name] == value and shown.body[singular][name] == value, (resource, name, text)
        assert "x-injected" not in shown.headers


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@pytest.mark.parametrize(
    "text", ["Hausverwaltung\x1b[2J\x1b[H", "Zeile\r\nX-Injected: 1", "tab\there", "csi\u009b31m", "nul\u0000"]
)
def test_control_characters_in_a_one_line_field_are_refused_naming_it(stack: Any, tenant: Tenant, text: str) -> None:
    """An ESC sequence in a name would rewrite an operator's terminal, a line break forge a
    log line: one-line fields refuse them; multi-line text keeps TAB and line breaks."""
    before = totals(stack, tenant)
    problem = refused(
        tenant.command("contacts.create", {"contact": {"personType": "natural", "lastName": text}}),
        400,
        "validation_failed",
    )
    message = "holds a control character (ESC, NUL, TAB, a line break, ...); this field takes one line of text"
    assert problem["errors"] == [{"path": "contact.lastName", "message": message}]
    assert totals(stack, tenant) == before
    body = json.dumps({"companyName": text, "email": "ops@example.org", "agentName": "setup"}).encode()
    signup = tenant.api.request(
        "POST", "/api/platform/v1/command/signup", body=body, headers={"Content-Type": "application/json"}
    )
    assert refused(signup, 400, "validation_failed")["errors"][0]["path"] == "companyName"


def test_multi_line_text_keeps_tabs_and_line_breaks(tenant: Tenant) -> None:
    notes = "Erste Zeile\r\nzweite\tZeile\n"
    created = tenant.ok(
        "contacts.create", {"contact": {"personType": "natural", "lastName": "Mustermann", "notes": notes}}
    )["contact"]
    assert tenant.get("contacts.show", {"contact": created["id"]})["contact"]["notes"] == notes
    refused(
        tenant.command("contacts.update", {"contact": {"id": created["id"], "notes": "bell\x07"}}),
        400,
        "validation_failed",
    )


def _as_alias(text: str, n: int) -> str:
    """An injection string in the shape aliases take (no whitespace or control characters, not starting with $)."""
    alias = _CONTROL.sub("", "".join(text.split()))
    return f"{'x' if alias.startswith('$') else ''}{alias}#{n}"


def test_injection_strings_as_aliases_are_looked_up_literally(tenant: Tenant) -> None:
    contact = tenant.contact()
    aliases = [_as_alias(text, n) for n, text in enumerate(INJECTIONS)]
    for alias in aliases:
        tenant.alias(alias, contact["id"], "contact")
        found = tenant.get("contacts.show", {"contact": alias})  # travels percent-encoded in the query string
        assert found["contact"]["id"] == contact["id"] and alias in found["contact"]["aliases"]
    assert sorted(tenant.get("contacts.show", {"contact": contact["id"]})["contact"]["aliases"]) == sorted(aliases)
    for alias in aliases[:6]:  # an expression fragment matches nothing and no one
        refused(tenant.query("contacts.show", {"contact": alias.rpartition("#")[0]}), 404, "not_found")
    problem = refused(
        tenant.command(
            "aliases.upsert", {"entries": [{"alias": INJECTIONS[0], "id": contact["id"], "type": "contact"}]}
        ),
        400,
        "validation_failed",
    )
    assert problem["errors"][0]["path"] == "entries[0].alias"  # whitespace is no part of an alias


def test_path_traversal_in_a_file_name_is_only_sanitised_metadata(tenant: Tenant) -> None:
    building(tenant)
    names = {
        "../../etc/passwd": "passwd",
        "..\\..\\windows\\system.ini": "system.ini",
        "/etc/shadow\u0000.pdf": "shadow.pdf",
        "....//....//x.pdf": "x.pdf",
        "report\r\nX-Injected: 1.pdf": "reportX-Injected_ 1.pdf",
        "a\r\nContent-Type: text/html.pdf": "html.pdf",  # the last path segment only
        "..": "file",
    }
    for given, stored in names.items():
        resource = {"fileName": given, "content": base64.b64encode(pdf()).decode()}
        doc = tenant.ok("documents.upload", {"locationId": "haus", "resource": resource})["document"]
        assert doc["fileName"] == stored, given
        url = urllib.parse.urlsplit(tenant.get("documents.show", {"document": doc["id"]})["document"]["downloadUrl"])
        assert url.path.endswith(f"/{tenant.id}/documents/{doc['id']}")  # the S3 key is built from ids only


FOLDED_AND_CONTROL = {
    "CRLF folded into the value": b"Idempotency-Key: k1\r\n X-Injected: 1",
    "a NUL byte": b"Idempotency-Key: k1\x00k2",
    "an escape sequence": b"Idempotency-Key: k1\x1b[31m",
}


@pytest.mark.parametrize("header", FOLDED_AND_CONTROL.values(), ids=FOLDED_AND_CONTROL.keys())
def test_an_idempotency_key_with_control_characters_is_refused_and_never_echoed(
    stack: Any, api: Api, tenant: Tenant, header: bytes
) -> None:
    before = EMPTY
    answer = raw_http(
        api,
        command_head("contacts.create", f"Authorization: Bearer {tenant.key}".encode(), header),
        json.dumps(CONTACT).encode(),
    )
    refused(answer, 400, "invalid_idempotency_key", "control characters")
    assert "x-injected" not in answer.headers
    assert totals(stack, tenant) == before


def test_an_idempotency_key_over_255_characters_is_refused(stack: Any, tenant: Tenant) -> None:
    before = EMPTY
    refused(
        tenant.command("contacts.create", CONTACT, headers={"Idempotency-Key": "k" * 256}),
        400,
        "invalid_idempotency_key",
        "255",
    )
    assert totals(stack, tenant) == before


# --- MCP: transforms and pipelines ------------------------------------------------------


@pytest.fixture()
def mcp(api: Api, tenant: Tenant) -> Iterator[McpSession]:
    with McpSession(api.base, tenant.key) as session:
        yield session


def test_a_transform_of_100_kb_is_refused_before_the_tool_runs(stack: Any, tenant: Tenant, mcp: McpSession) -> None:
    before = EMPTY
    result = mcp.execute("objects.create", {"object": {"name": "Nie", "type": "weg"}}, _transform="a" * 100_000)
    tool_refused(result, 400, "validation_failed", "100000 characters", "at most 2000")
    assert totals(stack, tenant) == before


# Over openapi.spec (1.4 MB, hundreds of operations): projections in projections, and
# expressions that double what they hold forty times over.
HEAVY = {
    "eight nested wildcard projections": "*.*.*.*.*.*.*.*",
    "projections of projections of filters": "paths.*.*.parameters[?schema.type=='string'][].schema[?maxLength > `0`]",
    "a hash doubled forty times": "|".join(["{a: @, b: @}"] * 40),
    "a list doubled and flattened thirty times": "paths.*" + " | [@, @][]" * 30,
    "to_string of a doubled value": "|".join(["{a: @, b: @}"] * 30) + " | length(to_string(@))",
    "a comparison of two doubled values": "("
    + "|".join(["{a: @, b: @}"] * 30)
    + ") == ("
    + "|".join(["{b: @, a: @}"] * 30)
    + ")",
    "a string joined to itself forty times": "info.title" + " | join('', [@, @])" * 40,
    "sorting every parameter of every operation": "sort_by(paths.*.*.parameters[][], &name)[].name",
}


@pytest.mark.parametrize("expression", HEAVY.values(), ids=HEAVY.keys())
def test_costly_jmespath_expressions_answer_or_are_refused_within_the_budget(mcp: McpSession, expression: str) -> None:
    """No wall-clock assertion (a loaded machine would fail it): the time is bounded by the
    request's evaluation clock, which tests/unit/test_transform_budget.py holds."""
    assert len(expression) <= 2000
    result = mcp.execute("openapi.spec", {}, _transform=expression)
    if result.is_error:
        code = result.structured_content["error"]["code"]
        assert code in ("transform_too_costly", "result_too_large"), result.structured_content
        assert result.structured_content["error"]["status"] == 400


def test_expressions_nested_too_deeply_are_refused_as_invalid(mcp: McpSession) -> None:
    for expression in ("(" * 900 + "@" + ")" * 900, "[" * 700 + "@" + "]" * 700, "!" * 1900 + "@"):
        tool_refused(mcp.execute("objects", {}, _transform=expression), 400, "invalid_transform", "too deeply")


# Quiet: weighing the 1-MB spec runs on the JMESPath evaluation clock (2 s), which six runs sharing two
# cores once ran out before the size limit spoke (a CI run: transform_too_costly).
@pytest.mark.quiet
def test_a_result_over_one_megabyte_is_refused_with_the_narrowing_hint(mcp: McpSession) -> None:
    tool_refused(
        mcp.execute("openapi.spec", {}),
        400,
        "result_too_large",
        "over the limit of 1000000",
        "limit",
        "JMESPath transform",
    )
    tool_refused(mcp.execute("openapi.spec", {}, _transform="[@, @, @]"), 400, "result_too_large", "JMESPath transform")
    assert mcp.ok("meta.tool.execute", {"name": "openapi.spec", "_transform": "info.title"})[
        "result"
    ]  # narrowed, it answers


def test_a_pipeline_of_300_steps_is_refused_and_runs_none(stack: Any, tenant: Tenant, mcp: McpSession) -> None:
    before = EMPTY
    steps = [
        {"tool": "objects.create", "arguments": {"object": {"name": f"Haus {n}", "type": "weg"}}} for n in range(300)
    ]
    tool_refused(
        mcp.call("meta.pipeline.execute", {"steps": steps}), 400, "validation_failed", "300 item(s)", "at most 25"
    )
    assert totals(stack, tenant) == before


def test_an_expr_naming_no_earlier_result_stops_the_pipeline_before_it_writes(
    stack: Any, tenant: Tenant, mcp: McpSession
) -> None:
    before = EMPTY
    steps = [
        {
            "tool": "objects.create",
            "arguments": {"object": {"name": "Haus", "type": "weg", "notes": {"$expr": "hause.object.id"}}},
            "as": "haus",
        },
        {"tool": "objects.create", "arguments": {"object": {"name": "Nie", "type": "weg"}}},
    ]
    problem = tool_refused(
        mcp.call("meta.pipeline.execute", {"steps": steps}),
        400,
        "unknown_result_name",
        "hause",
        "named so far: none yet",
    )
    assert problem["failedStep"]["index"] == 0 and problem["completedSteps"] == []
    assert problem["errors"][0]["path"] == "steps[0].arguments.object.notes"
    for expression in (
        "length(nothing)",
        "[nothing, `1`]",
        "nothing || `null`",
    ):  # roots inside functions and lists count too
        steps = [
            {
                "tool": "objects.create",
                "arguments": {"object": {"name": "Nie", "type": "weg", "notes": {"$expr": expression}}},
            }
        ]
        tool_refused(mcp.call("meta.pipeline.execute", {"steps": steps}), 400, "unknown_result_name", "nothing")
    assert totals(stack, tenant) == before


def test_an_expr_over_named_results_still_works(tenant: Tenant, mcp: McpSession) -> None:
    steps = [
        {"tool": "objects.create", "arguments": {"object": {"name": "Haus", "type": "weg"}}, "as": "haus"},
        {
            "tool": "objects.update",
            "arguments": {
                "object": {
                    "id": {"$expr": "haus.object.id"},
                    "notes": {"$expr": "join(' ', [haus.object.name, 'Nord'])"},
                }
            },
        },
    ]
    done = mcp.ok("meta.pipeline.execute", {"steps": steps})
    assert done["last"]["object"]["notes"] == "Haus Nord"


# --- webhooks: server-side request forgery ----------------------------------------------

SSRF = {
    "the metadata service over http": "http://169.254.169.254/latest/meta-data",
    "the metadata service over https": "https://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "the metadata service as one decimal number": "https://2852039166/latest/meta-data",
    "the metadata service in hex": "https://0xa9fea9fe/latest/meta-data",
    "the metadata service with a trailing dot": "https://169.254.169.254./latest/meta-data",
    "the metadata service mapped into IPv6": "https://[::ffff:169.254.169.254]/latest/meta-data",
    "the ECS task metadata address": "https://169.254.170.2/v2/credentials",
    "a private 10/8 address": "http://10.0.0.1/",
    "a private 172.16/12 address over https": "https://172.16.5.4/hook",
    "a private 192.168/16 address": "https://192.168.1.1/hook",
    "a carrier-grade NAT address": "https://100.64.0.1/hook",
    "a unique-local IPv6 address": "https://[fd00::1]/hook",
    "a link-local IPv6 address": "https://[fe80::1]/hook",
    "the unspecified address": "https://0.0.0.0/hook",
    "the unspecified IPv6 address": "https://[::]/hook",
    "a multicast address": "https://224.0.0.1/hook",
    "a documentation address": "https://[2001:db8::1]/hook",
    "the metadata service inside a 6to4 address": "https://[2002:a9fe:a9fe::1]/latest/meta-data",
    "a site-local IPv6 address": "https://[fec0::1]/hook",
    "a Teredo address": "https://[2001:0:a9fe:a9fe::1]/hook",
    "the metadata service behind the NAT64 prefix": "https://[64:ff9b::a9fe:a9fe]/latest/meta-data",
    "a local-use NAT64 address": "https://[64:ff9b:1::808:808]/hook",
}
NOT_HTTP = {
    "file://": "file:///etc/passwd",
    "gopher://": "gopher://127.0.0.1:70/_GET",
    "ftp://": "ftp://example.org/x",
    "javascript:": "javascript:alert(1)",
    "dict://": "dict://127.0.0.1:11211/stat",
    "a scheme-relative URL": "//example.org/hook",
    "https without a host": "https:///hook",
}
CREDENTIALS = {
    "user and password": "https://user:secret@example.org/hook",
    "a user only": "https://token@example.org/hook",
}


def _webhook_body(url: str) -> dict[str, Any]:
    return {"name": "Empfänger", "url": url, "events": ["contact.created"], "enabled": False}


@pytest.mark.parametrize("url", SSRF.values(), ids=SSRF.keys())
def test_webhooks_to_metadata_private_and_reserved_addresses_are_refused(stack: Any, tenant: Tenant, url: str) -> None:
    before = EMPTY
    problem = refused(
        tenant.command("webhooks.create", _webhook_body(url)),
        400,
        "invalid_request",
        "private, link-local, metadata and reserved",
    )
    assert problem["errors"][0]["path"] == "webhook.url"
    assert totals(stack, tenant) == before


@pytest.mark.parametrize(
    "url", list(NOT_HTTP.values()) + list(CREDENTIALS.values()), ids=list(NOT_HTTP) + list(CREDENTIALS)
)
def test_webhooks_with_other_schemes_or_credentials_in_the_url_are_refused(
    stack: Any, tenant: Tenant, url: str
) -> None:
    before = EMPTY
    word = "credentials" if "@" in url else "absolute https URL"
    problem = refused(tenant.command("webhooks.create", _webhook_body(url)), 400, "invalid_request", word)
    assert problem["errors"][0]["path"] == "webhook.url"
    assert totals(stack, tenant) == before


LOOPBACK = [
    "http://localhost/",
    "http://127.0.0.1:22",
    "http://[::1]/",
    "https://127.1/",
    "https://2130706433/",
    "https://0x7f000001/",
    "https://0177.0.0.1/",
]
LOOPBACK += ["https://localhost./", "https://admin.localhost/"]


def test_loopback_receivers_pass_only_with_the_local_stage_setting(
    stack: Any, tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    for url in LOOPBACK[:3]:  # the test stack's setting (PM_ALLOW_LOOPBACK_WEBHOOKS=1): test receivers listen there
        created = tenant.ok("webhooks.create", _webhook_body(url))["webhook"]
        tenant.ok("webhooks.delete", {"webhook": created["id"]})
    monkeypatch.setenv("PM_ALLOW_LOOPBACK_WEBHOOKS", "0")  # as deployed
    before = totals(stack, tenant)
    for url in LOOPBACK:
        refused(tenant.command("webhooks.create", _webhook_body(url)), 400, "invalid_request", "loopback")
    assert totals(stack, tenant) == before


def _name_resolving_to_loopback() -> str | None:
    for name in (socket.gethostname(), "localtest.me", "127.0.0.1.nip.io"):
        try:
            addresses = {info[4][0] for info in socket.getaddrinfo(name, None)}
        except OSError:
            continue
        if name != "localhost" and addresses and all(str(a).startswith("127.") for a in addresses):
            return name
    return None


def test_a_name_resolving_to_loopback_is_refused_when_delivering_as_deployed(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = _name_resolving_to_loopback()
    if name is None:
        pytest.skip("no host name resolves to 127.0.0.1 here (offline, no /etc/hosts entry)")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    monkeypatch.setenv("PM_ALLOW_LOOPBACK_WEBHOOKS", "0")
    monkeypatch.setattr(
        targets, "ALLOWED_PORTS", (*targets.ALLOWED_PORTS, listener.getsockname()[1])
    )  # the listener's port counts as 443
    try:
        # Names are not resolved at create (DNS answers change): each delivery resolves and checks.
        hook = tenant.ok("webhooks.create", _webhook_body(f"https://{name}:{listener.getsockname()[1]}/hook"))[
            "webhook"
        ]
        ping = tenant.ok("webhooks.test", {"webhook": hook["id"]})["ping"]
        assert ping["statusCode"] is None and ping["error"] == "blocked_address", ping
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()  # no connection was even opened (the kernel would have queued it)
    finally:
        listener.close()


# --- presigned uploads -------------------------------------------------------------------


def _reserve(tenant: Tenant, content: bytes, count: int = 1) -> tuple[str, list[dict[str, Any]]]:
    request = {"locationId": "haus", "fileName": "scan.pdf", "contentType": "application/pdf", "size": len(content)}
    created = tenant.ok("documents.uploads.create", {"uploads": [request] * count})
    return created["batch"]["id"], created["uploads"]


def _until_removed(key: str, timeout: float = 15) -> bool:
    return eventually(lambda: not object_exists(key), timeout=timeout, message=f"{key} to be removed")


def test_an_upload_forged_into_another_tenants_prefix_registers_nowhere(
    stack: Any, tenant: Tenant, other_tenant: Tenant
) -> None:
    from chalicelib import ids

    building(tenant)
    building(other_tenant)
    before, before_other = totals(stack, tenant), totals(stack, other_tenant)
    content = pdf()
    batch_id, (upload,) = _reserve(tenant, content)
    forged = [
        upload["fields"]["key"].replace(tenant.id, other_tenant.id),  # the same ids under the other tenant
        f"{other_tenant.id}/uploads/{ids.new_id('upb')}/{ids.new_id('doc')}",  # made-up ids there
    ]
    for key in forged:
        post_file(upload, content, fields={**upload["fields"], "key": key})  # S3 refuses (policy); moto stores it
    assert all(_until_removed(key) for key in forged)
    assert batch_progress(tenant, batch_id)["uploads"][0]["status"] == "pending"  # its own reservation untouched
    assert totals(stack, other_tenant) == before_other
    assert totals(stack, tenant)["documents.list"] == before["documents.list"] == 0


def test_an_upload_to_a_key_nobody_reserved_is_removed_and_registers_nothing(stack: Any, tenant: Tenant) -> None:
    from chalicelib import ids

    building(tenant)
    content = pdf()
    batch_id, (upload,) = _reserve(tenant, content)
    before = totals(stack, tenant)
    strays = [
        f"{tenant.id}/uploads/{batch_id}/{ids.new_id('doc')}",  # a real batch, a document it never reserved
        f"{tenant.id}/uploads/{ids.new_id('upb')}/{ids.new_id('doc')}",  # no such batch
    ]
    for key in strays:
        post_file(upload, content, fields={**upload["fields"], "key": key})
    assert all(_until_removed(key) for key in strays)
    progress = batch_progress(tenant, batch_id)
    assert progress["batch"]["counts"]["requested"] == 1 and progress["batch"]["counts"]["registered"] == 0
    assert totals(stack, tenant) == before


@pytest.mark.parametrize("delta", [-1, 1, -100], ids=["one byte short", "one byte more", "a hundred bytes short"])
def test_a_file_whose_size_differs_from_the_declared_size_is_refused_and_removed(
    stack: Any, tenant: Tenant, delta: int
) -> None:
    building(tenant)
    content = pdf() + b"x" * 200
    batch_id, (upload,) = _reserve(tenant, content)
    before = totals(stack, tenant)
    sent = content[:delta] if delta < 0 else content + b"y" * delta
    post_file(upload, sent)  # S3 refuses (content-length-range); moto stores it
    (settled,) = wait_settled(tenant, batch_id)["uploads"]
    assert settled["status"] == "failed" and settled["failure"]["code"] == "size_mismatch", settled
    assert f"declared {len(content)} bytes" in settled["failure"]["reason"]
    assert _until_removed(upload["fields"]["key"])
    refused(tenant.query("documents.show", {"document": upload["documentId"]}), 404, "not_found")
    assert totals(stack, tenant) == before


def test_a_presigned_post_replayed_after_registration_changes_nothing(stack: Any, tenant: Tenant) -> None:
    from chalicelib.uploads import files

    building(tenant)
    first = pdf("erste")
    batch_id, (upload,) = _reserve(tenant, first)
    post_file(upload, first)
    assert wait_settled(tenant, batch_id)["batch"]["counts"]["registered"] == 1
    before = totals(stack, tenant)
    key = upload["fields"]["key"]
    for replay in (pdf("zweit"), first + b"longer", b"<html>x</html>"):  # same size, bigger, another type
        post_file(upload, replay)
        eventually(lambda: len(files.versions(key)) == 1, timeout=15, message=f"one version of {key}")
    shown = tenant.get("documents.show", {"document": upload["documentId"]})["document"]
    assert (
        shown["checksum"] == hashlib.sha256(first).hexdigest() and shown["size"] == len(first) and shown["version"] == 1
    )
    assert totals(stack, tenant) == before
    progress = batch_progress(tenant, batch_id)["batch"]["counts"]
    assert progress["registered"] == progress["requested"] == 1


# --- API keys ------------------------------------------------------------------------------


def _flip_checksum(key: str) -> str:
    last = key[-1]
    return key[:-1] + ("A" if last != "A" else "B")


def _well_formed_unknown() -> str:

    return keyformat.new_secret()


def _logged(tenant: Tenant) -> set[str]:
    """The request ids in the request log of every key of the tenant."""
    found: set[str] = set()
    for key in tenant.get("apikeys.list", {"limit": 1000, "offset": 0})["apiKeys"]:
        entries = tenant.get("apikeys.requests.list", {"apiKey": key["id"], "limit": 1000, "offset": 0})["requests"]
        found |= {entry.get("requestId", "") for entry in entries}
    return found


def _bad_credentials(tenant: Tenant, disabled: str) -> dict[str, tuple[list[bytes], str, str]]:
    """name -> (Authorization header lines, code, a word of the detail)."""
    key = tenant.key
    return {
        "no Authorization header": ([], "missing_key", "Bearer"),
        "a key with a wrong checksum": (
            [f"Authorization: Bearer {_flip_checksum(key)}".encode()],
            "invalid_key",
            "checksum",
        ),
        "a well-formed key nobody issued": (
            [f"Authorization: Bearer {_well_formed_unknown()}".encode()],
            "invalid_key",
            "Unknown",
        ),
        "the key without Bearer": ([f"Authorization: {key}".encode()], "invalid_key", "Bearer"),
        "another scheme": (
            [f"Authorization: Basic {base64.b64encode(key.encode()).decode()}".encode()],
            "invalid_key",
            "Bearer",
        ),
        "Bearer and nothing": ([b"Authorization: Bearer "], "invalid_key", "Bearer"),
        "two Authorization headers, both valid": (
            [f"Authorization: Bearer {key}".encode()] * 2,
            "invalid_key",
            "more than one",
        ),
        "a valid header and an invalid one": (
            [f"Authorization: Bearer {key}".encode(), b"authorization: Bearer pm_test_x"],
            "invalid_key",
            "more than one",
        ),
        "an invalid header and a valid one": (
            [b"Authorization: Bearer pm_test_x", f"Authorization: Bearer {key}".encode()],
            "invalid_key",
            "more than one",
        ),
        "a 10 KB Authorization header": (
            [b"Authorization: Bearer " + b"A" * 10_240],
            "invalid_key",
            "not a valid API key",
        ),
        "a key of a disabled agent": ([f"Authorization: Bearer {disabled}".encode()], "key_disabled", "disabled"),
    }


@pytest.mark.parametrize("channel", ["rest", "mcp"])
def test_bad_credentials_answer_401_and_leave_no_trace_in_any_request_log(
    stack: Any, api: Api, tenant: Tenant, channel: str
) -> None:
    disabled = tenant.new_key(["read", "write"])
    key_id = next(
        k["id"]
        for k in tenant.get("apikeys.list", {"limit": 1000, "offset": 0})["apiKeys"]
        if k["agentName"] != "setup"
    )
    tenant.ok("apikeys.disable", {"apiKey": key_id})
    before = totals(stack, tenant)
    request_ids = []
    for name, (lines, code, word) in _bad_credentials(tenant, disabled).items():
        if channel == "rest":
            answer = raw_http(api, command_head("contacts.create", *lines), json.dumps(CONTACT).encode())
        else:
            head = (
                f"POST {MCP_PATH} HTTP/1.1\r\n".encode()
                + b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            )
            message = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "meta.tool.execute", "arguments": {"name": "contacts.create", "arguments": CONTACT}},
            }
            answer = raw_http(api, head + b"".join(line + b"\r\n" for line in lines), json.dumps(message).encode())
            assert answer.headers.get("www-authenticate", "").startswith("Bearer"), name
        problem = refused(answer, 401, code, word)
        request_ids.append(problem["requestId"])
    assert totals(stack, tenant) == before
    assert not set(request_ids) & _logged(tenant)
