"""JSON text of our values, in one place: DynamoDB's types (Decimal numbers, sets) become JSON's
(integers where they are whole, else the decimal as a string; sorted lists), compact and UTF-8.
The REST answers, MCP results and transforms, and the audit trail's states all go through here."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any


def _decimal(value: Decimal) -> int | str:
    return int(value) if value == value.to_integral_value() else str(value)


def default(value: Any) -> Any:
    """json.dumps' hook for what JSON has no type for."""
    if isinstance(value, set | frozenset):
        return sorted(value)
    if isinstance(value, Decimal):
        return _decimal(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def dumps(body: Any) -> str:
    return json.dumps(body, default=default, ensure_ascii=False, separators=(",", ":"))


def plain(value: Any) -> Any:
    """The same conversion on the value itself (what json.loads(dumps(value)) gives, without the text)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(plain(v) for v in value)
    if isinstance(value, Decimal):
        return _decimal(value)
    return value
