"""The overview: company, plan, trial end (days left), and the requests of the live keys over the
last 30 days (from the per-key request log; admins and owners, who may see keys): the
KEYS_SHOWN most recently used, each count bounded as the request log's total is."""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from chalicelib import clock
from chalicelib.console import times
from chalicelib.console.operations import messages, run
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page
from chalicelib.errors import ApiError

KEYS_READ = 200  # the company's keys read for the table (one list page)
KEYS_SHOWN = 25  # the most recently used live keys shown; each costs one bounded count of its log


@page("GET", "/")
def overview(request: Request) -> Answer:
    tenant: dict[str, Any] = {}
    usage: list[dict[str, Any]] = []
    errors: list[str] = []
    try:
        tenant = run(request, "tenant")["tenant"]
        if request.role in ("owner", "admin"):
            usage = _usage(request)
    except ApiError as error:
        errors = messages(request, error)
    trial = _trial(tenant, request.lang)
    return render(request, "overview.html", tenant=tenant, trial=trial, usage=usage, errors=errors)


def _trial(tenant: dict[str, Any], lang: str) -> dict[str, Any] | None:
    ends = tenant.get("trialEndsAt")
    if not ends:
        return None
    moment = dt.datetime.fromisoformat(ends.replace("Z", "+00:00"))
    left = (moment - clock.now()).total_seconds()
    return {"date": times.date_text(ends[:10], lang), "days": max(math.ceil(left / 86400), 0), "over": left <= 0}


def _usage(request: Request) -> list[dict[str, Any]]:
    keys = run(request, "apikeys.list", {"limit": KEYS_READ, "offset": 0})["apiKeys"]
    now = clock.now_iso()
    live = [key for key in keys if not key["disabled"] and (key["expiresAt"] or now) >= now]
    live.sort(key=lambda key: key["lastUsedAt"] or "", reverse=True)
    rows = []
    for key in live[:KEYS_SHOWN]:
        log = run(request, "apikeys.requests.list", {"apiKey": key["id"], "limit": 1, "offset": 0})
        rows.append(
            {
                "key": key,
                "requests": log["pagination"]["total"],
                "more": log["pagination"].get("capped"),
                "last_used": times.when(request, key["lastUsedAt"], none=translate(request.lang, "common.none")),
            }
        )
    return rows
