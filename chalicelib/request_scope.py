"""One request as a face receives it: what the faces read of an HTTP request (a typed protocol,
which Chalice's request and the local server's satisfy), and the request's scope from its
arrival to its log line: its id, its source address, and the caller once a key was recognised
(the request log records the request under that key, refused or not)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from chalicelib.context import CallContext


class QueryParams(Protocol):
    """A query string's parameters: each name with every value it was given (`getlist`), or its
    last (`items`, as Chalice's MultiDict answers)."""

    def getlist(self, name: str) -> list[str]: ...

    def __iter__(self) -> Iterator[str]: ...

    def items(self) -> Iterable[tuple[str, Any]]: ...


class IncomingRequest(Protocol):
    """What REST, MCP and the console read of a request (API Gateway's proxy event, as Chalice
    hands it over): the method, headers (case-insensitive), query and path parameters, the raw
    body, the request context (request id, source address) and the original event."""

    @property
    def method(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def query_params(self) -> QueryParams | None: ...

    @property
    def uri_params(self) -> dict[str, str] | None: ...

    @property
    def context(self) -> dict[str, Any]: ...

    @property
    def raw_body(self) -> str | bytes: ...

    def to_original_event(self) -> dict[str, Any]: ...


@dataclass
class RequestScope:
    """A request's own facts, handed from the face's entry to whatever answers it: `caller` is set
    once the request's key is recognised (before it is admitted, so a throttled call is logged
    under its key too), and stays None for an anonymous or unauthenticated request."""

    request_id: str
    source_ip: str | None
    caller: CallContext | None = None

    @property
    def tenant_id(self) -> str | None:
        return self.caller.tenant_id if self.caller else None
