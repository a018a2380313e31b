"""The deployment's resources besides the table: upload bucket, queues, search domain,
alarms, and the wiring of the functions' event sources and environment."""

from __future__ import annotations

from typing import Any


def resources() -> dict[str, Any]:
    return {}


def outputs() -> dict[str, Any]:
    return {}


def parameters() -> dict[str, Any]:
    return {}
