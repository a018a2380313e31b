"""The reference's two tables: every error code (chalicelib/error_codes.py) and every setting and
limit (chalicelib/config.py)."""

from __future__ import annotations

import importlib
import re

from chalicelib import config, error_codes
from generate.reference.operations import GENERATED


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _status(entry: error_codes.ErrorCode) -> str:
    if entry.status is None:
        return "—"
    return ", ".join(str(status) for status in (entry.status, *entry.also))


def errors_page() -> str:
    parts = [
        GENERATED,
        "",
        "# Error codes",
        "",
        "Every `code` the service answers with, in the problem+json body of an error (`type`, `title`, "
        "`status`, `detail`, `code`, `requestId`, and `errors` where arguments are at fault). A code without a "
        "status is never an answer: it is reported in a bulk upload's `failure`. Each operation's page lists "
        "the codes it answers with.",
        "",
        "| code | status | meaning |",
        "|---|---|---|",
    ]
    parts += [
        f'| <span id="{entry.code}"></span>`{entry.code}` | {_status(entry)} | {_cell(entry.meaning)} |'
        for entry in error_codes.TABLE.values()
    ]
    return "\n".join(parts) + "\n"


def _shown_default(setting: config.Setting) -> str:
    """The default as the docs show it: a constant another module supplies (`throttle.DEFAULT_RATE`)
    read from that module, a text as written, the declared default in code, or nothing."""
    if setting.shown:
        constant = re.fullmatch(r"(\w+)\.([A-Z_]+)", setting.shown)
        if constant is None:
            return _cell(setting.shown)
        module, name = constant.groups()
        value = getattr(importlib.import_module(f"chalicelib.{module}"), name)
        return f"`{value}` (`{name}`, chalicelib/{module}.py)"
    return f"`{setting.default}`" if setting.default else "—"


def _number(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def configuration_page() -> str:
    parts = [
        GENERATED,
        "",
        "# Configuration and limits",
        "",
        "## Settings",
        "",
        "The environment variables the service reads (`chalicelib/config.py` is the only module that reads "
        "the environment). The deployment template sets the cloud's values, `.chalice/config.json` each "
        "stage's, `make serve` the local stack's.",
        "",
        "| variable | default | meaning |",
        "|---|---|---|",
    ]
    parts += [f"| `{s.variable}` | {_shown_default(s)} | {_cell(s.meaning)} |" for s in config.SETTINGS.values()]
    parts += [
        "",
        "## Limits",
        "",
        "Fixed in `chalicelib/config.py`; where a setting above changes one, its meaning says so.",
        "",
        "| limit | value | meaning |",
        "|---|---|---|",
    ]
    parts += [
        f"| `{name}` | {_number(getattr(config, name))} | {_cell(meaning)} |" for name, meaning in config.LIMITS.items()
    ]
    return "\n".join(parts) + "\n"
