"""Console pages: webhooks. The list with each webhook's health (its recent success rate), a form
to create or edit one (its events picked from `webhooks.eventTypes`, grouped by entity type), a
webhook's page with its delivery log (filtered by status and event type; per delivery the body
sent and each attempt's status, answer and duration), and the changes: test (ping, logged),
disable/enable, delete and restore, retry or resend a delivery, rotate the signing secret.
Everything is an operation run as the signed-in person; reads need a viewer, changes an admin.

The signing secret is shown once, on the answer to the create or the rotation (as the API shows
it once); the authorization header is write-only: never shown, never echoed back into a form.
A test's outcome is shown from its logged delivery, named by id in the redirect: a hand-typed
address shows no outcome that was never sent."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from markupsafe import Markup

from chalicelib import clock, config
from chalicelib.console import names as naming
from chalicelib.console import times
from chalicelib.console.operations import messages, run
from chalicelib.console.render import render
from chalicelib.console.texts import CATALOGUE, translate
from chalicelib.console.web import Answer, Request, page, redirect
from chalicelib.errors import ApiError

LIST_LIMIT = 25  # a tenant holds at most 25 webhooks (config.MAX_WEBHOOKS): usually one page
LOG_LIMIT = 20  # deliveries per page of the log
CHANGERS = ("admin", "owner")
ID = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")  # what a route's {webhook} accepts, for ?deleted=
DONE = ("enabled", "disabled", "restored", "retried", "edited")
STATUSES = ("pending", "delivered", "failed", "superseded")
PING = "webhook.ping"
TEST_SHOWN_MINUTES = 10  # a test's outcome is shown on its page this long after it was sent
HEALTHY, WARNING = 0.95, 0.5  # success rates from which the badge is "good", "warning" (below: "bad")
# events/targets.py's reasons for refusing a receiver URL -> their text here; any other message
# (a new one, the port rule) is shown as the service words it.
URL_PROBLEMS = {
    "must not contain whitespace or control characters": "webhooks.url.whitespace",
    "is not a valid URL": "webhooks.url.invalid",
    "must be an absolute https URL": "webhooks.url.absolute",
    "credentials in the URL are not allowed; use authorizationHeader": "webhooks.url.credentials",
    "private, link-local, metadata and reserved addresses are not allowed": "webhooks.url.private",
    "must use https": "webhooks.url.https",
    "loopback receivers are only allowed in the local stage": "webhooks.url.loopback",
}
FORM_FIELDS = {
    "name": "webhooks.form.name",
    "url": "webhooks.form.url",
    "events": "webhooks.form.events",
    "authorizationHeader": "webhooks.form.auth",
    "description": "webhooks.form.description",
}


# --- reads -------------------------------------------------------------------------------------


@page("GET", "/webhooks")
def list_webhooks(request: Request) -> Answer:
    offset = _offset(request)
    try:
        found = run(request, "webhooks.list", {"limit": LIST_LIMIT, "offset": offset})
    except ApiError as error:
        return _refused(request, error)
    deleted = request.query.get("deleted", "")
    return render(
        request,
        "webhooks.html",
        webhooks=[{**_summary(request, hook), "health": _health(request, hook["id"])} for hook in found["webhooks"]],
        pagination=found["pagination"],
        deleted=deleted if ID.match(deleted) else None,
        can_change=request.role in CHANGERS,
    )


@page("GET", "/webhooks/new", role="admin")  # before /webhooks/{webhook}, which "new" would match
def new_webhook(request: Request) -> Answer:
    return _form(request, {"name": "", "url": "", "description": "", "events": []})


@page("GET", "/webhooks/{webhook}")
def show_webhook(request: Request) -> Answer:
    webhook_id, offset = request.params["webhook"], _offset(request)
    events = sorted({*(_event_types(request)), PING})
    status = request.query.get("status", "")
    status = status if status in STATUSES else ""
    event = request.query.get("event", "")
    event = event if event in events else ""
    filters = {**({"status": status} if status else {}), **({"eventType": event} if event else {})}
    try:
        hook = run(request, "webhooks.show", {"webhook": webhook_id})["webhook"]
        log = run(
            request,
            "webhooks.deliveries.list",
            {"webhook": webhook_id, "limit": LOG_LIMIT, "offset": offset, **filters},
        )
        notice, errors = _outcome(request, webhook_id)
    except ApiError as error:
        return _refused(request, error)
    query = "&".join(f"{k}={v}" for k, v in (("status", status), ("event", event)) if v)
    return render(
        request,
        "webhooks_detail.html",
        hook=_shown(request, hook),
        events=_subscribed(request, hook.get("events", [])),
        deliveries=_deliveries(request, log["deliveries"]),
        pagination=log["pagination"],
        health=_badge(request, log["health"]),
        filter_status=status,
        filter_event=event,
        statuses=[{"value": v, "label": _word(request, "state", v)} for v in STATUSES],
        event_types=events,
        pager_url=f"/webhooks/{webhook_id}?" + (query + "&" if query else ""),
        overlap_hours=config.WEBHOOK_SECRET_OVERLAP_HOURS,
        notice=notice,
        errors=errors,
        can_change=request.role in CHANGERS,
    )


@page("GET", "/webhooks/{webhook}/edit", role="admin")
def edit_webhook_form(request: Request) -> Answer:
    try:
        hook = run(request, "webhooks.show", {"webhook": request.params["webhook"]})["webhook"]
    except ApiError as error:
        return _refused(request, error)
    values = {
        "name": hook.get("name") or "",
        "url": hook.get("url") or "",
        "description": hook.get("description") or "",
        "events": hook.get("events") or [],
    }
    return _form(request, values, editing=_shown(request, hook))


# --- changes -----------------------------------------------------------------------------------


@page("POST", "/webhooks", role="admin")
def create_webhook(request: Request) -> Answer:
    args: dict[str, Any] = {"name": request.arg("name"), "url": request.arg("url"), "events": request.args("events")}
    for optional in ("authorizationHeader", "description"):
        if request.arg(optional):
            args[optional] = request.arg(optional)
    try:
        hook = run(request, "webhooks.create", args)["webhook"]
    except ApiError as error:
        # the authorization header is write-only: it is not put back into the form
        values = {**args, "description": args.get("description", "")}
        return _form(request, values, error, auth_dropped="authorizationHeader" in args)
    return render(request, "webhooks_created.html", 201, hook=hook)


@page("POST", "/webhooks/{webhook}/edit", role="admin")
def edit_webhook(request: Request) -> Answer:
    webhook_id = request.params["webhook"]
    changes: dict[str, Any] = {
        "id": webhook_id,
        "name": request.arg("name"),
        "url": request.arg("url"),
        "events": request.args("events"),
        "description": request.arg("description") or None,
    }
    # the header is write-only: empty keeps the one set, the box removes it
    if request.arg("removeAuthorization"):
        changes["authorizationHeader"] = None
    elif request.arg("authorizationHeader"):
        changes["authorizationHeader"] = request.arg("authorizationHeader")
    try:
        run(request, "webhooks.update", {"webhook": changes})
    except ApiError as error:
        try:
            hook = run(request, "webhooks.show", {"webhook": webhook_id})["webhook"]
        except ApiError as refused:
            return _refused(request, refused)
        values = {**changes, "description": changes["description"] or ""}
        auth_dropped = bool(changes.get("authorizationHeader"))
        return _form(request, values, error, auth_dropped=auth_dropped, editing=_shown(request, hook))
    return redirect(f"/webhooks/{webhook_id}", done="edited")


@page("POST", "/webhooks/{webhook}/rotate", role="admin")
def rotate_secret(request: Request) -> Answer:
    try:
        rotated = run(request, "webhooks.secret.rotate", {"webhook": request.params["webhook"]})["webhook"]
        hook = run(request, "webhooks.show", {"webhook": rotated["id"]})["webhook"]
    except ApiError as error:
        return _refused(request, error)
    # the new secret is shown once, here (no redirect: it is in no address and no later page)
    return render(
        request,
        "webhooks_rotated.html",
        hook=_shown(request, hook),
        new_secret=rotated["secret"],
        until=_at(request, rotated["previousSecretUntil"]),
    )


@page("POST", "/webhooks/{webhook}/test", role="admin")
def test_webhook(request: Request) -> Answer:
    webhook_id = request.params["webhook"]
    try:
        ping = run(request, "webhooks.test", {"webhook": webhook_id})["ping"]
    except ApiError as error:
        return _refused(request, error)
    # the page shows the outcome of the test's delivery in the log, found by this id: an address
    # typed by hand shows nothing that was not sent
    return redirect(f"/webhooks/{webhook_id}", tested=ping["id"])


@page("POST", "/webhooks/{webhook}/enable", role="admin")
def enable_webhook(request: Request) -> Answer:
    return _set_enabled(request, True)


@page("POST", "/webhooks/{webhook}/disable", role="admin")
def disable_webhook(request: Request) -> Answer:
    return _set_enabled(request, False)


@page("POST", "/webhooks/{webhook}/delete", role="admin")
def delete_webhook(request: Request) -> Answer:
    webhook_id = request.params["webhook"]
    try:
        deleted = run(request, "webhooks.delete", {"webhook": webhook_id})["deleted"]
    except ApiError as error:
        return _refused(request, error)
    # a deleted webhook is invisible to reads: the list offers its restore while the id is known
    return redirect("/webhooks", deleted=deleted["id"])


@page("POST", "/webhooks/{webhook}/restore", role="admin")
def restore_webhook(request: Request) -> Answer:
    try:
        hook = run(request, "webhooks.restore", {"webhook": request.params["webhook"]})["webhook"]
    except ApiError as error:
        return _refused(request, error)
    return redirect(f"/webhooks/{hook['id']}", done="restored")


@page("POST", "/webhooks/{webhook}/retry", role="admin")
def retry_delivery(request: Request) -> Answer:
    webhook_id = request.params["webhook"]
    try:
        run(request, "webhooks.deliveries.retry", {"webhook": webhook_id, "delivery": request.arg("delivery")})
    except ApiError as error:
        return _refused(request, error)
    return redirect(f"/webhooks/{webhook_id}", done="retried")


def _set_enabled(request: Request, enabled: bool) -> Answer:
    webhook_id = request.params["webhook"]
    try:
        run(request, "webhooks.update", {"webhook": {"id": webhook_id, "enabled": enabled}})
    except ApiError as error:
        return _refused(request, error)
    return redirect(f"/webhooks/{webhook_id}", done="enabled" if enabled else "disabled")


# --- the form ----------------------------------------------------------------------------------


def _form(
    request: Request,
    values: dict[str, Any],
    error: ApiError | None = None,
    *,
    auth_dropped: bool = False,
    editing: dict[str, Any] | None = None,
) -> Answer:
    """The create form (or, `editing` a webhook, its edit form), empty or with what was sent and
    why it was refused."""
    try:
        catalogue = run(request, "webhooks.eventTypes")["eventTypes"]
    except ApiError as refused:
        return _refused(request, refused)
    field_errors, errors = _field_errors(request, error) if error else ({}, [])
    if auth_dropped:
        errors.append(_t(request, "webhooks.form.auth_again"))
    chosen = set(values.get("events") or [])
    return render(
        request,
        "webhooks_form.html",
        error.status if error else 200,
        values=values,
        groups=_groups(request, catalogue, chosen),
        all_events="*" in chosen,
        field_errors=field_errors,
        errors=errors,
        editing=editing,
    )


def _field_errors(request: Request, error: ApiError) -> tuple[dict[str, str], list[str]]:
    """A refusal as a message beside each field it names (`url`, `webhook.url`, `events[2]`)
    and a summary naming the field by its label; a refusal without fields: its detail."""
    by_field: dict[str, str] = {}
    for item in error.errors or []:
        field = re.split(r"[.\[]", (item.get("path") or "").removeprefix("webhook."), maxsplit=1)[0]
        if field in FORM_FIELDS and field not in by_field:
            by_field[field] = _field_message(request, field, item.get("message", ""))
    if not by_field:
        return {}, messages(request, error)
    summary = [f"{_t(request, FORM_FIELDS[field])}: {message}" for field, message in by_field.items()]
    return by_field, summary


def _field_message(request: Request, field: str, message: str) -> str:
    if field == "url" and message in URL_PROBLEMS:
        return _t(request, URL_PROBLEMS[message])
    if field == "events" and message.startswith("has 0 item"):
        return _t(request, "webhooks.events.none")
    return message


def _groups(request: Request, catalogue: list[dict[str, Any]], chosen: set[str]) -> list[dict[str, Any]]:
    """The event catalogue as one group (a fieldset) per entity type, ordered by its label."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for event in catalogue:
        groups.setdefault(event["entityType"], []).append(
            {
                "name": event["name"],
                "id": "ev-" + re.sub(r"[^A-Za-z0-9_-]", "-", event["name"]),
                "label": _word(request, "action", event["action"]),
                "checked": event["name"] in chosen,
            }
        )
    shown = [
        {"entity": entity, "label": _word(request, "entity", entity), "events": events}
        for entity, events in groups.items()
    ]
    return sorted(shown, key=lambda group: group["label"].lower())


# --- what the pages show -----------------------------------------------------------------------


def _shown(request: Request, hook: dict[str, Any]) -> dict[str, Any]:
    """A webhook with every field a template reads (the optional ones absent from the wire are
    empty) and its times readable."""
    return {
        "id": hook["id"],
        "name": hook.get("name") or hook["id"],
        "url": hook.get("url", ""),
        "enabled": hook.get("enabled", True),
        "authorizationHeaderSet": bool(hook.get("authorizationHeaderSet")),
        "description": hook.get("description") or "",
        "disabledReason": hook.get("disabledReason") or "",
        "disabledAt": _at(request, hook.get("disabledAt")),
        "createdAt": _at(request, hook.get("createdAt")),
        "updatedAt": _at(request, hook.get("updatedAt")),
        "secretRotatedAt": _at(request, hook.get("secretRotatedAt")),
        "previousSecretUntil": _at(request, hook.get("previousSecretUntil")),
        "overlap": bool(hook.get("previousSecretUntil")) and not _past(hook.get("previousSecretUntil")),
    }


def _past(moment: str | None) -> bool:
    return bool(moment) and clock.parse(moment or "") <= clock.now()


def _summary(request: Request, hook: dict[str, Any]) -> dict[str, Any]:
    events = hook.get("events", [])
    if "*" in events:
        shown = _t(request, "webhooks.detail.all_events")
    elif len(events) == 1:
        shown = _t(request, "webhooks.events_one")
    else:
        shown = _t(request, "webhooks.events_count", count=len(events))
    return {**_shown(request, hook), "events_shown": shown}


def _subscribed(request: Request, events: list[str]) -> list[dict[str, Any]]:
    """A webhook's events by entity type: [{label, actions: "angelegt, geändert"}]; `*` is all."""
    if "*" in events:
        return [{"label": _t(request, "webhooks.detail.all_events"), "entity": "*", "actions": ""}]
    groups: dict[str, list[str]] = {}
    for name in events:
        entity, _, action = name.rpartition(".")
        groups.setdefault(entity, []).append(_word(request, "action", action))
    rows = [{"label": _word(request, "entity", e), "entity": e, "actions": ", ".join(a)} for e, a in groups.items()]
    return sorted(rows, key=lambda row: row["label"].lower())


def _event_types(request: Request) -> list[str]:
    try:
        return [e["name"] for e in run(request, "webhooks.eventTypes")["eventTypes"]]
    except ApiError:
        return []


def _health(request: Request, webhook_id: str) -> dict[str, Any]:
    """The list's badge of one webhook; an unknown one when its log cannot be read."""
    try:
        found = run(request, "webhooks.deliveries.list", {"webhook": webhook_id, "limit": 1, "offset": 0})
    except ApiError:
        return {"level": "none", "text": _t(request, "webhooks.health.none"), "title": ""}
    return _badge(request, found["health"])


def _badge(request: Request, health: dict[str, Any]) -> dict[str, Any]:
    """A success rate as a badge: its level (good, warning, bad, none), its words and the counts."""
    rate = health.get("successRate")
    if rate is None:
        return {"level": "none", "text": _t(request, "webhooks.health.none"), "title": ""}
    level = "good" if rate >= HEALTHY else "warning" if rate >= WARNING else "bad"
    title = _t(request, "webhooks.health.title", delivered=health["delivered"], window=health["window"])
    return {"level": level, "text": _t(request, f"webhooks.health.{level}", rate=round(rate * 100)), "title": title}


def _attempt(request: Request, attempt: dict[str, Any]) -> dict[str, Any]:
    reason = attempt.get("error")
    return {
        "number": attempt["number"],
        "at": _at(request, attempt.get("at")),
        "code": attempt.get("statusCode") or "",
        "reason": _word(request, "reason", reason) if reason else "",
        "ms": round(attempt.get("durationMs") or 0),
        "response": attempt.get("response") or "",
    }


def _pretty(body: str | None) -> str:
    """The JSON body sent, indented for people (as it was, if it is not JSON)."""
    if not body:
        return ""
    try:
        return json.dumps(json.loads(body), indent=2, ensure_ascii=False)
    except ValueError:
        return body


def _entity_of(entry: dict[str, Any]) -> str:
    """The id of the entity a delivery's event is about (its body's data.id; none for a ping)."""
    try:
        body = json.loads(entry.get("requestBody") or "")
    except ValueError:
        return ""
    data = body.get("data") if isinstance(body, dict) else None
    found = data.get("id") if isinstance(data, dict) else None
    return found if isinstance(found, str) and naming.etype_of(found) is not None else ""


def _deliveries(request: Request, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log's page of deliveries, each naming its entity (one batched read for the page)."""
    named = naming.Names(request.ctx).look_up([_entity_of(entry) for entry in entries])
    return [_delivery(request, entry, named) for entry in entries]


def _delivery(request: Request, entry: dict[str, Any], named: naming.Names) -> dict[str, Any]:
    reason = entry.get("lastError")
    entity_id = _entity_of(entry)
    entity = naming.shown(named.get(entity_id), entity_id, deleted_text=_t(request, "common.deleted"))
    return {
        "entity": entity if entity_id else "",
        "id": entry["id"],
        "test": bool(entry.get("test")),
        "body": _pretty(entry.get("requestBody")),
        "attemptLog": [_attempt(request, a) for a in reversed(entry.get("attemptLog") or [])],
        "eventType": entry["eventType"],
        "attempts": entry["attempts"],
        "state": _word(request, "state", entry["status"]),
        "code": entry.get("lastStatusCode") or "",
        "reason": _word(request, "reason", reason) if reason else "",
        "next": _at(request, entry.get("nextAttemptAt")) if entry["status"] == "pending" else "",
        "last": _at(request, entry.get("lastAttemptAt")),
        "created": _at(request, entry.get("createdAt")),
    }


def _outcome(request: Request, webhook_id: str) -> tuple[str | None, list[str]]:
    """The outcome of the change that led here (?done=, or a test's ?tested=<its delivery id>) as a
    notice, or, for a failed test, as an error. A test's outcome is read from its delivery in this
    webhook's log, sent within the last TEST_SHOWN_MINUTES: never from the address, which anyone
    can type."""
    done = request.query.get("done", "")
    if done in DONE:
        return _t(request, f"webhooks.done.{done}"), []
    tested = request.query.get("tested", "")
    if not tested.startswith("evt_") or not ID.match(tested):
        return None, []
    recent = run(
        request, "webhooks.deliveries.list", {"webhook": webhook_id, "eventType": PING, "limit": 20, "offset": 0}
    )
    found = [e for e in recent["deliveries"] if e["id"] == tested and e.get("test") and e.get("attemptLog")]
    if not found or not _recent(found[0]["attemptLog"][-1].get("at")):
        return None, []
    attempt = found[0]["attemptLog"][-1]
    code, reason = str(attempt.get("statusCode") or ""), attempt.get("error")
    if reason:
        said = _word(request, "reason", reason)
        if code:
            return None, [_t(request, "webhooks.tested.failed_code", reason=said, code=code)]
        return None, [_t(request, "webhooks.tested.failed", reason=said)]
    return _t(request, "webhooks.tested.ok", code=code, ms=round(attempt.get("durationMs") or 0)), []


def _recent(moment: str | None) -> bool:
    return bool(moment) and clock.now() - clock.parse(moment or "") < dt.timedelta(minutes=TEST_SHOWN_MINUTES)


def _word(request: Request, kind: str, value: str) -> str:
    """The text of an entity type, action, state or reason; the technical word for a new one."""
    key = f"webhooks.{kind}.{value}"
    return _t(request, key) if key in CATALOGUE else value


def _at(request: Request, moment: str | None) -> Markup:
    """A time as every console page shows it (times.when); empty when there is none."""
    return times.when(request, moment, none="")


def _offset(request: Request) -> int:
    raw = request.query.get("offset", "")
    return min(int(raw), 100_000) if raw.isdigit() else 0


def _refused(request: Request, error: ApiError) -> Answer:
    """An operation's refusal as an error page. Not found is said in our words: the operation's
    detail repeats the id asked for, and a page never names an id that is not the company's."""
    found = [_t(request, "webhooks.not_found")] if error.status == 404 else messages(request, error)
    return render(request, "error.html", error.status, errors=found)


def _t(request: Request, key: str, **fill: Any) -> str:
    return translate(request.lang, key, **fill)
