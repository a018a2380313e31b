"""The local HTTP server of `make serve` (chalicelib/local/http_server.py) over a real socket:
what only the wire decides. It answers only the Host names it is reached by on this machine
(a page of another origin that rebinds its name to 127.0.0.1 must not read the outbox or act
as the developer), and a method it does not know is refused as problem+json with `Allow`,
as the service refuses every other method a route does not list."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from typing import Any

import pytest

from tests.client import Api, Tenant
from tests.mcp_client import MCP_PATH

PROBLEM = "application/problem+json"
INFO = "/propertymanagement/v2/query/info"
COMMAND = "/propertymanagement/v2/command/contacts.create"


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: Any
    raw: bytes


def over_socket(api: Api, method: str, path: str, host: str | None, *headers: str, body: bytes = b"") -> Reply:
    """One request written byte for byte (`host` None: no Host header at all), its answer parsed."""
    address, port = api.base.removeprefix("http://").split(":")
    lines = [f"{method} {path} HTTP/1.1", *([f"Host: {host}"] if host is not None else []), *headers]
    lines += ["Connection: close", f"Content-Length: {len(body)}"]
    with socket.create_connection((address, int(port)), timeout=30) as conn:
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    head, _, payload = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    answered = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        answered[name.strip().lower()] = value.strip()
    try:
        parsed = json.loads(payload) if payload else None
    except ValueError:
        parsed = None
    return Reply(int(status_line.split()[1]), answered, parsed, payload)


def port_of(api: Api) -> str:
    return api.base.rsplit(":", 1)[1]


def assert_problem(reply: Reply, status: int, code: str) -> dict[str, Any]:
    assert reply.status == status, (reply.status, reply.raw[:300])
    assert reply.headers.get("content-type", "").startswith(PROBLEM), reply.headers
    assert isinstance(reply.body, dict) and reply.body["status"] == status and reply.body["code"] == code, reply.body
    assert b"<html" not in reply.raw.lower() and b"Traceback" not in reply.raw
    return reply.body


# --- Host: DNS rebinding --------------------------------------------------------------------


def _routes(tenant: Tenant) -> dict[str, tuple[str, str, tuple[str, ...], bytes]]:
    bearer = f"Authorization: Bearer {tenant.key}"
    mcp_body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
    return {
        "a REST query with the developer's key": ("GET", INFO, (bearer,), b""),
        "a REST command": ("POST", COMMAND, (bearer, "Content-Type: application/json"), b'{"contact": {}}'),
        "the console's sign-in page": ("GET", "/console/signin", (), b""),
        "the local outbox": ("GET", "/console/outbox", (), b""),
        "the platform's version": ("GET", "/api/platform/v1/query/version", (), b""),
        "the MCP endpoint": (
            "POST",
            MCP_PATH,
            (bearer, "Content-Type: application/json", "Accept: application/json, text/event-stream"),
            mcp_body,
        ),
    }


@pytest.mark.parametrize(
    "forged",
    ["rebound.attacker.example:{port}", "rebound.attacker.example", "127.0.0.1.attacker.example:{port}", "", None],
    ids=["a foreign name at the port", "a foreign name alone", "a loopback-looking name", "an empty Host", "no Host"],
)
def test_a_foreign_host_is_refused_with_421_on_every_kind_of_route(
    api: Api, tenant: Tenant, forged: str | None
) -> None:
    host = forged.format(port=port_of(api)) if forged is not None else None
    for label, (method, path, headers, body) in _routes(tenant).items():
        reply = over_socket(api, method, path, host, "Origin: http://rebound.attacker.example", *headers, body=body)
        problem = assert_problem(reply, 421, "misdirected_request")
        assert "host" in problem["detail"].lower(), (label, problem)
        assert b"mail to" not in reply.raw.lower() and tenant.id.encode() not in reply.raw, label


def test_a_second_host_header_is_refused_whichever_comes_first(api: Api, tenant: Tenant) -> None:
    own, foreign = f"127.0.0.1:{port_of(api)}", "rebound.attacker.example"
    for first, second in ((own, foreign), (foreign, own)):
        reply = over_socket(api, "GET", INFO, first, f"Host: {second}", f"Authorization: Bearer {tenant.key}")
        assert_problem(reply, 421, "misdirected_request")


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST", "[::1]"])
def test_the_loopback_names_at_the_port_are_answered(api: Api, tenant: Tenant, name: str) -> None:
    host = f"{name}:{port_of(api)}"
    info = over_socket(api, "GET", INFO, host, f"Authorization: Bearer {tenant.key}")
    assert info.status == 200 and info.body["tenant"]["id"] == tenant.id, info.raw[:300]
    assert over_socket(api, "GET", "/console/outbox", host).status == 200
    assert over_socket(api, "GET", "/console/signin", host).status == 200


# --- methods the server does not know -------------------------------------------------------


@pytest.mark.parametrize("method", ["TRACE", "PROPFIND", "X-ODD_TOKEN.1"])
@pytest.mark.parametrize(
    ("path", "allowed"),
    [
        (INFO, {"GET", "POST"}),
        (COMMAND, {"GET", "POST"}),
        ("/console/signin", None),
        ("/console/outbox", None),
        (MCP_PATH, None),
    ],
)
def test_an_unknown_method_answers_405_problem_with_allow(
    api: Api, tenant: Tenant, method: str, path: str, allowed: set[str] | None
) -> None:
    reply = over_socket(api, method, path, f"127.0.0.1:{port_of(api)}", f"Authorization: Bearer {tenant.key}")
    problem = assert_problem(reply, 405, "method_not_allowed")
    assert method in problem["detail"]
    methods = {m.strip() for m in reply.headers["allow"].split(",") if m.strip()}
    assert methods and method not in methods
    assert methods == (allowed or methods)


def test_an_unknown_method_on_a_path_nothing_serves_answers_the_404_problem_of_any_method(api: Api) -> None:
    host = f"127.0.0.1:{port_of(api)}"
    for method in ("TRACE", "PUT"):
        assert_problem(over_socket(api, method, "/nothing/here", host), 404, "no_route")


# --- framing: an answer leaves in one write -------------------------------------------------


def test_each_answer_on_a_kept_alive_connection_arrives_in_one_piece(api: Api) -> None:
    """Status line, headers and body leave in one write on a socket with Nagle's algorithm off.
    Chalice's handler writes the headers, then the body: on a kept-alive connection the body then
    waited for the client's delayed ACK of the headers, 40 ms an answer for every client that
    keeps its connection (requests' sessions, schemathesis, the MCP SDK), ten times a request's
    own time. Two answers on one connection: each one's first read holds all of it."""
    address, port = api.base.removeprefix("http://").split(":")
    request = f"GET /api/platform/v1/query/version HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    with socket.create_connection((address, int(port)), timeout=30) as conn:
        for _ in range(3):
            conn.sendall(request)
            first = conn.recv(65536)
            head, _, body = first.partition(b"\r\n\r\n")
            lengths = [line.split(b":", 1)[1] for line in head.split(b"\r\n") if b"content-length:" in line.lower()]
            length = int(lengths[0])
            assert head.startswith(b"HTTP/1.1 200") and len(body) == length, first
