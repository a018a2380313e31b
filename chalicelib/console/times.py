"""Times as a person reads them, one format everywhere in the console: in the person's time zone
(the browser's, which console.js keeps in the `pm_tz` cookie from
Intl.DateTimeFormat().resolvedOptions().timeZone; Europe/Berlin until it is known or when the
cookie names no zone zoneinfo knows) and the language's format (German 26.11.2026, 13:04;
English 26 Nov 2026, 13:04), with the UTC time on hover:

    <time datetime="2026-11-26T12:04:00Z" title="2026-11-26 12:04:00 UTC">26.11.2026, 13:04</time>

`when(request, timestamp)` is the function the pages call (its answer is markup for the
templates); `local_text` is the same text without the element (for a page's title or a mail)."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from markupsafe import Markup, escape

from chalicelib.console.web import Request

ZONE_COOKIE = "pm_tz"
DEFAULT_ZONE = "Europe/Berlin"
_ZONE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+){0,2}$")  # IANA names only: no paths
MONTHS_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def zone_of(request: Request) -> ZoneInfo:
    """The person's time zone: the browser's where it told us and zoneinfo knows it, else Berlin."""
    return zone_named(request.cookies.get(ZONE_COOKIE, ""))


def zone_named(name: str) -> ZoneInfo:
    if name and len(name) <= 64 and _ZONE_NAME.match(name):
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            pass
    return ZoneInfo(DEFAULT_ZONE)


def parse(timestamp: str | None) -> dt.datetime | None:
    """A stored timestamp (ISO 8601, UTC with Z) as an aware datetime, or None when it is none."""
    if not timestamp:
        return None
    try:
        moment = dt.datetime.fromisoformat(timestamp.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def local_text(moment: dt.datetime, lang: str, zone: ZoneInfo) -> str:
    """26.11.2026, 13:04 (German) or 26 Nov 2026, 13:04 (English), in `zone`."""
    local = moment.astimezone(zone)
    if lang == "de":
        return f"{local:%d.%m.%Y, %H:%M}"
    return f"{local.day} {MONTHS_EN[local.month - 1]} {local.year}, {local:%H:%M}"


def utc_text(moment: dt.datetime) -> str:
    return f"{moment.astimezone(dt.UTC):%Y-%m-%d %H:%M:%S} UTC"


def when(request: Request, timestamp: str | None, *, none: str = "–") -> Markup:
    """A timestamp as the `<time>` element every console page shows; `none` (escaped) without one.
    A text that is no timestamp is shown as it is."""
    moment = parse(timestamp)
    if moment is None:
        return Markup(escape(timestamp or none))
    iso = moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    shown = local_text(moment, request.lang, zone_of(request))
    return Markup('<time datetime="{}" title="{}">{}</time>').format(iso, utc_text(moment), shown)


def date_text(day: str | None, lang: str) -> str:
    """A calendar date (2026-11-26) in the language's format: 26.11.2026 or 26 Nov 2026."""
    try:
        parsed = dt.date.fromisoformat(day or "")
    except ValueError:
        return day or ""
    if lang == "de":
        return f"{parsed:%d.%m.%Y}"
    return f"{parsed.day} {MONTHS_EN[parsed.month - 1]} {parsed.year}"
