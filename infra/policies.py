"""Least-privilege IAM: one policy per Lambda function, exactly the actions and resources its
code uses, referencing the template's resources (no literal ARNs). Filled in by the
deployment issue's IAM work; `resources()` returns the merge-template fragment."""

from __future__ import annotations

from typing import Any


def resources() -> dict[str, Any]:
    return {}
