"""A small HTTP client for the tests: a new connection per request (as curl does), JSON
in and out, and helpers for the service's two paths."""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any
    raw: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")


class _Unfollowed(urllib.request.HTTPRedirectHandler):
    """A redirect comes back as it is (its Set-Cookie and Location to read), as the in-process
    transport answers it: followed by urllib, the cookies it sets would be lost on the way."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_NOT_FOLLOWING = urllib.request.build_opener(_Unfollowed)


class Api:
    """The service at `base`. With `gateways` (chalicelib.local.http_server.Gateways) a request
    is answered in this process, without a socket: the same request urllib would send (its
    default headers included) goes to the same code the local HTTP server hands it to. `base`
    still serves what needs the wire (MCP sessions, raw sockets, `make serve`)."""

    def __init__(self, base: str, timeout: float = 30, *, gateways: Any = None, outbox_dir: str | None = None) -> None:
        self.base = base
        self.outbox_dir = outbox_dir  # the service's mail outbox; None: this process's (config.outbox_dir())
        self.timeout = timeout  # seconds per request
        self.gateways = gateways

    def request(
        self, method: str, path: str, *, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> Answer:
        req = urllib.request.Request(self.base + path, data=body, method=method, headers=headers or {})
        if self.gateways is not None:
            status, raw, lowered = self._in_process(req, path)
        else:
            try:
                with _NOT_FOLLOWING.open(req, timeout=self.timeout) as resp:
                    status, raw, hdrs = resp.status, resp.read(), resp.headers
            except urllib.error.HTTPError as err:
                status, raw, hdrs = err.code, err.read(), err.headers
            lowered = {k.lower(): v for k, v in hdrs.items()}
            if hdrs.get_all("Set-Cookie"):
                lowered["set-cookie"] = "\n".join(hdrs.get_all("Set-Cookie"))  # each cookie a line
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return Answer(status, lowered, parsed, raw)

    def _in_process(self, req: urllib.request.Request, path: str) -> tuple[int, bytes, dict[str, str]]:
        sent = dict(req.header_items())
        if req.data is not None:
            sent.setdefault("Content-type", "application/x-www-form-urlencoded")  # as urllib adds it
            sent.setdefault("Content-length", str(len(req.data)))  # type: ignore[arg-type]
        sent = {
            "Accept-Encoding": "identity",
            "Host": req.host,
            "User-Agent": f"Python-urllib/{sys.version_info.major}.{sys.version_info.minor}",
            "Connection": "close",
            **sent,
        }
        body = req.data if isinstance(req.data, bytes) and req.data else None
        status, answered, content = self.gateways.answer(req.get_method(), path, sent, body)
        lowered = {name.lower(): value[-1] if isinstance(value, list) else value for name, value in answered.items()}
        cookies = answered.get("Set-Cookie")
        if cookies:
            lowered["set-cookie"] = "\n".join(cookies) if isinstance(cookies, list) else cookies  # each cookie a line
        if content is not None:
            lowered.setdefault("content-type", "application/json")  # as the local server answers
        raw = content or b""
        lowered["content-length"] = str(len(raw))
        return status, raw, lowered

    def query(
        self,
        name: str,
        params: dict[str, Any] | list[tuple[str, Any]] | None = None,
        *,
        key: str | None = None,
        method: str = "GET",
    ) -> Answer:
        pairs = params.items() if isinstance(params, dict) else (params or [])
        flat: list[tuple[str, str]] = []
        for k, v in pairs:
            for item in v if isinstance(v, list) else [v]:
                flat.append((k, str(item).lower() if isinstance(item, bool) else str(item)))
        qs = ("?" + urllib.parse.urlencode(flat)) if flat else ""
        return self.request(method, f"/propertymanagement/v2/query/{name}{qs}", headers=_auth(key))

    def command(
        self,
        name: str,
        body: Any = None,
        *,
        key: str | None = None,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        data = raw if raw is not None else json.dumps(body if body is not None else {}).encode()
        hdrs = {"Content-Type": "application/json", **_auth(key), **(headers or {})}
        return self.request("POST", f"/propertymanagement/v2/command/{name}", body=data, headers=hdrs)

    def platform(self, name: str, body: dict[str, Any]) -> Answer:
        return self.request(
            "POST",
            f"/api/platform/v1/command/{name}",
            body=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )

    def mailed_code(self, email: str) -> str:
        """The code of the newest mail to `email` in the service's outbox (`outbox_dir`, else
        this process's: the in-process service writes there)."""
        return mailed_code(email, self.outbox_dir)

    def signup(
        self, company: str = "Hausverwaltung Test GmbH", agent: str = "setup", email: str | None = None
    ) -> Tenant:
        """Both steps of a sign-up, the code read from the outbox as a person reads their mail."""
        email = email or f"{uuid.uuid4().hex[:12]}@example.org"
        started = self.platform("signup", {"companyName": company, "email": email, "agentName": agent})
        assert started.status == 200, started.body
        answer = self.platform("signup.confirm", {"email": email, "code": self.mailed_code(email)})
        assert answer.status == 200, answer.body
        return Tenant(self, answer.body["tenant"]["id"], answer.body["apiKey"]["key"], answer.body, email)


def mailed_code(email: str, outbox_dir: str | None = None) -> str:
    from chalicelib import mail
    from chalicelib.store.mailed_codes import code_in

    messages = mail.outbox(to=email, limit=1, folder=outbox_dir)
    assert messages, f"no mail to {email} in the outbox"
    found = code_in(messages[0].subject + "\n" + messages[0].text)
    assert found, messages[0]
    return found


def _auth(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


@dataclass
class Tenant:
    api: Api
    id: str
    key: str
    signup_answer: dict[str, Any]
    email: str = ""  # the owner's address (console sign-in)

    def query(self, name: str, params: Any = None, **kw: Any) -> Answer:
        kw.setdefault("key", self.key)
        return self.api.query(name, params, **kw)

    def command(self, name: str, body: Any = None, **kw: Any) -> Answer:
        kw.setdefault("key", self.key)
        return self.api.command(name, body, **kw)

    def ok(self, name: str, body: Any = None, **kw: Any) -> Any:
        """Run a command (or a query, with kind='query') and insist on 200."""
        kind = kw.pop("kind", "command")
        answer = self.query(name, body, **kw) if kind == "query" else self.command(name, body, **kw)
        assert answer.status == 200, (name, answer.status, answer.body)
        return answer.body

    def get(self, name: str, params: Any = None, **kw: Any) -> Any:
        return self.ok(name, params, kind="query", **kw)

    def new_key(self, scopes: list[str], agent: str | None = None, **extra: Any) -> str:
        """A key for `agent` (a fresh agent name when none is given: an agent holds one key)."""
        body = self.ok(
            "apikeys.create",
            {"apiKey": {"agentName": agent or f"agent-{uuid.uuid4().hex[:8]}", "scopes": scopes, **extra}},
        )
        return str(body["apiKey"]["key"])

    def alias(self, name: str, entity_id: str, kind: str) -> str:
        """Give an entity an alias of this tenant's own keys; answers the alias."""
        self.ok("aliases.upsert", {"entries": [{"alias": name, "id": entity_id, "type": kind}]})
        return name

    def contact(self, **fields: Any) -> dict[str, Any]:
        payload = {"personType": "natural", "lastName": "Mustermann", **fields}
        return dict(self.ok("contacts.create", {"contact": payload})["contact"])


def inside_one_window(window: float, needed: float) -> None:
    """Rate limits count per fixed window (chalicelib/store/rates.py): a check that needs
    `needed` seconds within one window starts in a fresh window if the current one ends sooner."""
    left = window - time.time() % window
    if left < needed:
        time.sleep(left + 0.05)  # the current rate window must pass: nothing to poll for, the window is the clock's


@contextmanager
def from_source(ip: str) -> Iterator[None]:
    """The in-process requests of the block come from `ip` (API Gateway's `sourceIp`, which
    chalice's local gateway fixes at 127.0.0.1): for the limits that count per source address."""
    from chalice.local import LambdaEventConverter

    before = LambdaEventConverter.LOCAL_SOURCE_IP
    LambdaEventConverter.LOCAL_SOURCE_IP = ip
    try:
        yield
    finally:
        LambdaEventConverter.LOCAL_SOURCE_IP = before
