"""HTML from Jinja2 templates (chalicelib/console/templates), autoescaped; each page gets the
translator of its language, the signed-in member, the form token and whether the company is a
sandbox."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from chalicelib import account
from chalicelib.console import texts
from chalicelib.console.web import Answer, Request

TEMPLATES = Path(__file__).parent / "templates"


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a misspelt name fails the page's test, not silently
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env


_DEFAULTS: dict[str, Any] = {"notice": None, "errors": []}


def render(request: Request, template: str, status: int = 200, **values: Any) -> Answer:
    lang = request.lang

    def t(key: str, **fill: Any) -> str:
        if any(isinstance(value, Markup) for value in fill.values()):  # a time or a name: kept as markup
            return texts.translate_markup(lang, key, **fill)
        return texts.translate(lang, key, **fill)

    html = (
        environment()
        .get_template(template)
        .render(
            t=t,
            lang=lang,
            base=request.base,
            request=request,
            member=request.member,
            csrf=request.csrf,
            # every page of a sandbox says so (its banner): the facts are cached, read at most every 10 s
            sandbox=bool(request.ctx and account.tenant_facts(request.ctx.tenant_id).get("sandbox")),
            **{**_DEFAULTS, **values},
        )
    )
    return Answer(status, html)
