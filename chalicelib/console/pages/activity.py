"""Agent activity (issue 19): the audit trail by agent, key, entity, entity type, operation and
time range, each change as a field-by-field diff; reverting one change, or everything a filter
matches after a preview (audit.revert with dryRun) and a confirmation.

Reads are audit.list and audit.show (viewer); reverts are audit.revert (admin; its scopes are
write and destructive, which admins and owners hold). audit.list answers oldest first: the
trail shows the newest first (a count, then the page from the end), filtered by entity type by
audit.list itself.

The account's own records (keys, integrations, the team, the tenant) need `admin`
(events/audit.py): owners and admins see them, viewers do not, and the type filter offers a
viewer none of them. The trail keeps no member's address; the page names the team's people
(a member record, a change made in the console) by their current name or address, which the
team page shows every member anyway."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup

from chalicelib import clock, registry
from chalicelib.console import names as naming
from chalicelib.console import times
from chalicelib.console.operations import messages, run
from chalicelib.console.pages import data, restore
from chalicelib.console.render import render
from chalicelib.console.texts import CATALOGUE, translate
from chalicelib.console.web import Answer, Request, page, redirect
from chalicelib.entities import ENTITY_TYPES
from chalicelib.errors import ApiError
from chalicelib.events import audit
from chalicelib.events.changes import ACCOUNT_TYPES  # audited, never reverted
from chalicelib.resources.audit import FILTERS as AUDIT_FILTERS
from chalicelib.store import members

FILTERS = tuple(AUDIT_FILTERS)  # audit.list's filters, and audit.revert's `filter`
PAGE_SIZE = 50
LIST_DIFF_FIELDS = 5  # fields a row of the trail shows; the detail shows all
LIST_VALUE_CHARS = 80
DONE_ACTIONS = ("updated", "deleted", "restored", "none")
KEYS_READ = 200  # keys read to find an agent's (one apikeys.list page)
MAX_STOPPED = 20  # keys one "stop the agent" disables at most (one apikeys.disable each)


class BadFilter(ValueError):
    """A filter value a person typed that no operation would take (a time we cannot read)."""


# -- the trail ---------------------------------------------------------------------------


@page("GET", "/activity")
def trail(request: Request) -> Answer:
    form = {name: request.query.get(name, "").strip() for name in (*FILTERS, "entityType")}
    offset = _offset(request.query.get("offset", ""))
    records: list[dict[str, Any]] = []
    pagination = {"total": 0, "limit": PAGE_SIZE, "offset": offset}
    capped, errors, status = False, [], 200
    zone = times.zone_of(request)
    try:
        filters = _filters(form, zone)
        listed = {**filters, "entityType": form["entityType"]} if form["entityType"] else filters
        records, pagination["total"], capped = _newest(request, listed, PAGE_SIZE, offset)
    except BadFilter as bad:
        errors, status = [translate(request.lang, "activity.bad_time", value=str(bad))], 400
    except ApiError as error:
        errors, status = messages(request, error), error.status
    revertible = {name: form[name] for name in FILTERS if form[name]}
    people = _people(request, records)
    named = _names(request, records)
    return render(
        request,
        "activity.html",
        status,
        form=form,
        rows=[_row(request, record, brief=True, people=people, named=named) for record in records],
        pagination=pagination,
        page_url=_page_url({name: value for name, value in form.items() if value}),
        capped=capped,
        type_options=_type_options(request),
        operations=sorted(name for name, op in registry.REGISTRY.items() if op.kind == "command"),
        preview_url=_url("/activity/revert", revertible) if revertible and _may_revert(request) else "",
        stop=_stop_offer(request, form) if not errors else None,
        notice=_stopped_notice(request) or restore.restored_notice(request),
        errors=errors,
    )


def _newest(request: Request, filters: dict[str, str], limit: int, offset: int) -> tuple[list[Any], int, bool]:
    """The records `offset` to `offset + limit` counted from the newest, newest first, the total
    and whether counting stopped early (audit.list's `capped`). Two reads: the count, the page."""
    head = run(request, "audit.list", {**filters, "limit": 1, "offset": 0})["pagination"]
    total = head["total"]
    end = max(total - offset, 0)
    start = max(end - limit, 0)
    if end == start:
        return [], total, bool(head.get("capped"))
    found = run(request, "audit.list", {**filters, "limit": end - start, "offset": start})["auditRecords"]
    return list(reversed(found)), total, bool(head.get("capped"))


# -- stopping an agent ---------------------------------------------------------------------


def _agent_keys(request: Request, agent_name: str, key_id: str) -> list[dict[str, Any]]:
    """The live keys of the agent the trail is filtered by: the key of `key_id`, else every key
    whose agent is `agent_name` (one page of apikeys.list, which needs admin: a viewer gets none)."""
    if not _may_revert(request) or not (agent_name or key_id):
        return []
    keys = run(request, "apikeys.list", {"limit": KEYS_READ, "offset": 0})["apiKeys"]
    if key_id:
        return [key for key in keys if key["id"] == key_id and not key["disabled"]]
    return [key for key in keys if key["agentName"] == agent_name and not key["disabled"]][:MAX_STOPPED]


def _stop_offer(request: Request, form: dict[str, str]) -> dict[str, Any] | None:
    """The "stop this agent" button of a trail filtered by an agent or a key with live keys."""
    try:
        found = _agent_keys(request, form["agentName"], form["keyId"])
    except ApiError:
        return None
    if not found:
        return None
    agent = form["agentName"] or found[0]["agentName"]
    return {
        "agent": agent,
        "keys": [key["id"] for key in found],
        "agentName": form["agentName"],
        "keyId": form["keyId"],
    }


def _stopped_notice(request: Request) -> str | None:
    """After a stop (`stopped=1`), said only when it is true: the agent filtered by has keys and
    none of them is live any more (a hand-typed address announces nothing)."""
    if request.query.get("stopped") != "1" or not _may_revert(request):
        return None
    agent_name, key_id = request.query.get("agentName", "").strip(), request.query.get("keyId", "").strip()
    try:
        if not (agent_name or key_id) or _agent_keys(request, agent_name, key_id):
            return None
        keys = run(request, "apikeys.list", {"limit": KEYS_READ, "offset": 0})["apiKeys"]
    except ApiError:
        return None
    if not any(key["id"] == key_id or (not key_id and key["agentName"] == agent_name) for key in keys):
        return None
    return translate(request.lang, "activity.stop.done", agent=agent_name or key_id)


@page("POST", "/activity/stop", role="admin")
def stop_agent(request: Request) -> Answer:
    """Disables the live keys of the agent the trail was filtered by, each through apikeys.disable
    run as the signed-in admin (audited as theirs); back to the trail with a notice."""
    agent_name, key_id = request.arg("agentName").strip(), request.arg("keyId").strip()
    try:
        for key in _agent_keys(request, agent_name, key_id):
            run(request, "apikeys.disable", {"apiKey": key["id"]})
    except ApiError as error:
        return render(request, "error.html", error.status, errors=messages(request, error))
    query = {name: value for name, value in (("agentName", agent_name), ("keyId", key_id)) if value}
    return redirect("/activity", **query, stopped="1")


# -- undoing everything a filter matches -------------------------------------------------


def _revert_filters(request: Request, form: dict[str, str]) -> dict[str, str] | Answer:
    """The filter of a range revert, or the page that says what is wrong with it (a revert never
    runs without a filter: it would cover everything in the company)."""
    try:
        filters = _filters(form, times.zone_of(request))
    except BadFilter as bad:
        return _preview_page(request, {}, None, 400, [translate(request.lang, "activity.bad_time", value=str(bad))])
    if not filters:
        return _preview_page(request, {}, None, 400, [translate(request.lang, "activity.revert_needs_filter")])
    return filters


@page("GET", "/activity/revert", role="admin")  # before /activity/{record}, which would match too
def preview(request: Request) -> Answer:
    """What reverting everything the filter matches would set back and skip: a dry run. Without
    an end of the range, the preview pins it to now, so that the confirmation reverts no change
    the preview did not show."""
    filters = _revert_filters(request, {name: request.query.get(name, "").strip() for name in FILTERS})
    if isinstance(filters, Answer):
        return filters
    filters.setdefault("to", clock.now_iso())
    try:
        answer = run(request, "audit.revert", {"filter": filters, "dryRun": True})
    except ApiError as error:
        return _preview_page(request, filters, None, error.status, refusal(request, error))
    return _preview_page(request, filters, answer, 200, [])


@page("POST", "/activity/revert", role="admin")
def revert_range(request: Request) -> Answer:
    """The confirmation: the preview's filter (its hidden fields), without dryRun. The answer is
    shown at once, not after a redirect: which entities were set back and which skipped is this
    request's result and nowhere else (the trail shows the writes, not what was skipped)."""
    started = clock.now()
    filters = _revert_filters(request, {name: request.arg(name) for name in FILTERS})
    if isinstance(filters, Answer):
        return filters
    try:
        answer = run(request, "audit.revert", {"filter": filters})
    except ApiError as error:
        return _preview_page(request, filters, None, error.status, refusal(request, error))
    assert request.member is not None
    trail_url = _url(
        "/activity",
        {
            "keyId": request.member["id"],
            "operation": "audit.revert",
            "from": _field_time(started, times.zone_of(request)),
        },
    )
    named = _outcome_names(request, answer)
    return render(
        request,
        "activity_reverted.html",
        summary=_summary(request, filters),
        reverted=[_outcome(request, item, named) for item in answer["reverted"]],
        skipped=[_outcome(request, item, named) for item in answer["skipped"]],
        trail_url=trail_url,
    )


# -- one change --------------------------------------------------------------------------


@page("GET", "/activity/{record}")
def detail(request: Request) -> Answer:
    return _detail(request, _done_notice(request) or restore.restored_notice(request), [], 200)


@page("POST", "/activity/{record}/revert", role="admin")
def revert_one(request: Request) -> Answer:
    record_id = request.params["record"]
    try:
        answer = run(request, "audit.revert", {"auditRecord": record_id})
    except ApiError as error:
        return _detail(request, None, refusal(request, error), error.status)
    done = answer["reverted"][0]["action"] if answer["reverted"] else "none"
    return redirect(f"/activity/{record_id}", done=done)


def _detail(request: Request, notice: str | None, errors: list[str], status: int) -> Answer:
    try:
        record = run(request, "audit.show", {"auditRecord": request.params["record"]})["auditRecord"]
    except ApiError as error:
        return render(request, "error.html", error.status, errors=messages(request, error))
    return render(
        request,
        "activity_detail.html",
        status,
        row=_row(request, record, brief=False, people=_people(request, [record]), named=_names(request, [record])),
        revertible=record["entityType"] not in ACCOUNT_TYPES and _may_revert(request),
        history_url=_url("/activity", {"entityId": record["entityId"]}),
        notice=notice,
        errors=errors,
    )


def refusal(request: Request, error: ApiError) -> list[str]:
    """An undo's refusal in the page's language: the operation's text is English and speaks to
    integrators (`send force`); the codes an undo meets have words of their own here."""
    key = f"activity.refused.{error.code}"
    return [translate(request.lang, key)] if key in CATALOGUE else messages(request, error)


def _done_notice(request: Request) -> str | None:
    done = request.query.get("done", "")
    if done not in DONE_ACTIONS:
        return None
    return translate(request.lang, "activity.reverted_one", what=translate(request.lang, f"activity.outcome.{done}"))


# -- what the pages show -----------------------------------------------------------------


def _people(request: Request, records: list[dict[str, Any]]) -> dict[str, str]:
    """The team's people these records name (a member's record, a change made in the console):
    member id -> their name, else their address, as the team page shows them now. The trail
    itself keeps no address; a person no longer in the team is named by id only."""
    named = {r["entityId"] for r in records if r["entityType"] == members.TYPE} | {
        (r.get("actor") or {}).get("keyId") for r in records if r.get("channel") == "console"
    }
    if not named - {None}:
        return {}
    assert request.ctx is not None
    team = (members.wire(item) for item in members.of_tenant(request.ctx.tenant_id))
    return {m["id"]: m["name"] or m["email"] for m in team if m["id"] in named}


def _names(request: Request, records: list[dict[str, Any]]) -> naming.Names:
    """The names of the records' entities and of the entities their changes reference: one
    batched read (names.py) for the page."""
    wanted: list[str] = []
    for record in records:
        wanted.append(record["entityId"])
        for side in ("before", "after"):
            wanted += naming.refs_of(record["entityType"], (record.get(side) or {}).get("data"))
    return naming.Names(request.ctx).look_up(wanted)


def _row(
    request: Request, record: dict[str, Any], *, brief: bool, people: dict[str, str], named: naming.Names
) -> dict[str, Any]:
    """A record as the templates show it: time, actor, entity (with its name and link), the diff
    with the fields' labels and the values as text a person reads."""
    changes = labelled_diff(request, record, named)
    shown = changes[:LIST_DIFF_FIELDS] if brief else changes
    if brief:
        shown = [{**c, "before": _cut(c["before"]), "after": _cut(c["after"])} for c in shown]
    actor = record.get("actor") or {}
    person = people.get(actor.get("keyId") or "") if record.get("channel") == "console" else None
    return {
        "record": record,
        "at": times.when(request, record["at"]),
        "agent": person or actor.get("agentName") or "",
        # A person in the console acts with their member id where an agent has its key id.
        "key_label": translate(
            request.lang,
            "activity.member" if record.get("channel") == "console" else "activity.key",
            id=actor.get("keyId") or "",
        ),
        "action": translate(request.lang, f"activity.action.{record['action']}"),
        "entity": _entity(request, record["entityType"], record["entityId"], people, named, record),
        "changes": shown,
        "more": len(changes) - len(shown),
        "url": f"/activity/{record['id']}",
        "agent_url": _url("/activity", {"agentName": actor["agentName"]}) if actor.get("agentName") else "",
        "key_url": _url("/activity", {"keyId": actor["keyId"]}) if actor.get("keyId") else "",
    }


def diff(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Field by field, what the change did: each field whose value differs between before and
    after, its old and new value as text (None where it had none), and a deletion or restore
    as the change of `deletedAt`."""
    before, after = record.get("before") or {}, record.get("after") or {}
    old, new = before.get("data") or {}, after.get("data") or {}
    rows = [
        {"field": name, "before": _value(old.get(name)), "after": _value(new.get(name))}
        for name in sorted(set(old) | set(new))
        if old.get(name) != new.get(name)
    ]
    if before and after and before.get("deletedAt") != after.get("deletedAt"):
        rows.append(
            {"field": "deletedAt", "before": _value(before.get("deletedAt")), "after": _value(after.get("deletedAt"))}
        )
    return rows


def _value(value: Any) -> str | None:
    """Text as it is; numbers, booleans and nested values as compact JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def labelled_diff(request: Request, record: dict[str, Any], named: naming.Names) -> list[dict[str, Any]]:
    """`diff` as people read it: each field by its label in the page's language (the registry's,
    "Nachname" for lastName), its values as text, lists and names (names.readable), never JSON."""
    etype = ENTITY_TYPES.get(record["entityType"])
    fields = etype.fields if etype else {}
    before, after = record.get("before") or {}, record.get("after") or {}
    old, new = before.get("data") or {}, after.get("data") or {}
    rows = []
    for change in diff(record):
        name = change["field"]
        label = naming.field_label(record["entityType"], name, request.lang)
        if name == "deletedAt":
            values = [_moment(request, side.get("deletedAt")) for side in (before, after)]
        elif etype is None:
            values = [change["before"], change["after"]]
            values = [Markup("{}").format(v) if v is not None else None for v in values]
        else:
            values = [
                naming.readable(side[name], fields.get(name), request.lang, named)
                if side.get(name) is not None
                else None
                for side in (old, new)
            ]
        rows.append({"field": name, "label": label, "before": values[0], "after": values[1]})
    return rows


def _moment(request: Request, timestamp: str | None) -> Markup | None:
    return times.when(request, timestamp) if timestamp else None


def _cut(value: Markup | None) -> Markup | None:
    return None if value is None else naming.brief(value, LIST_VALUE_CHARS)


def _entity(
    request: Request,
    type_name: str,
    entity_id: str,
    people: dict[str, str] | None = None,
    named: naming.Names | None = None,
    record: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An entity as a person calls it (names.py: its current name, its last one when deleted;
    else the name its record's data gives, for a type that is no stored entity), with the data
    pages' address of it for the types they show; a member's is the team page (and their current
    name or address)."""
    shown: dict[str, Any] = {"type": _type_label(request, type_name), "id": entity_id, "deleted": False}
    shown["restore"] = None  # restore.offer's button, for a deleted entity
    if type_name == members.TYPE:
        return {**shown, "url": "/members", "label": (people or {}).get(entity_id, "")}
    found = named.get(entity_id) if named else None
    label = found.name if found else ""
    if not label and record is not None:
        fields = (record.get("after") or {}).get("data") or (record.get("before") or {}).get("data") or {}
        label = naming.name_from_data(type_name, fields) if isinstance(fields, dict) else ""
    deleted = bool(found and found.deleted)
    offer = restore.offer(request, entity_id, label, deleted)
    return {**shown, "url": data.path_of(entity_id) or "", "label": label, "deleted": deleted, "restore": offer}


def _outcome_names(request: Request, answer: dict[str, Any] | None) -> naming.Names:
    items = [*(answer or {}).get("reverted", []), *(answer or {}).get("skipped", [])]
    return naming.Names(request.ctx).look_up([item["entityId"] for item in items])


def _outcome(request: Request, item: dict[str, Any], named: naming.Names) -> dict[str, Any]:
    """One entity of a revert's answer (or preview): what happens to it, or why it is skipped.
    The operation's reason is English; known codes get the page's words."""
    code = item.get("code", "")
    reason_key = f"activity.skip.{code}"
    return {
        "entity": _entity(request, item["entityType"], item["entityId"], named=named),
        "changes": len(item["auditRecords"]),
        "history": _url("/activity", {"entityId": item["entityId"]}),
        "action": translate(request.lang, f"activity.outcome.{item['action']}") if item.get("action") else "",
        "reason": translate(request.lang, reason_key) if reason_key in CATALOGUE else item.get("reason", code),
    }


def _preview_page(
    request: Request, filters: dict[str, str], answer: dict[str, Any] | None, status: int, errors: list[str]
) -> Answer:
    named = _outcome_names(request, answer)
    reverted = [_outcome(request, item, named) for item in (answer or {}).get("reverted", [])]
    return render(
        request,
        "activity_revert.html",
        status,
        filters=filters,
        summary=_summary(request, filters),
        previewed=answer is not None,
        reverted=reverted,
        skipped=[_outcome(request, item, named) for item in (answer or {}).get("skipped", [])],
        changes=sum(item["changes"] for item in reverted),
        back_url=_url(
            "/activity",
            {name: _field_value(name, value, times.zone_of(request)) for name, value in filters.items()},
        ),
        errors=errors,
    )


def _summary(request: Request, filters: dict[str, str]) -> list[tuple[str, Markup | str]]:
    """The filter of a revert, as a person reads it."""
    return [
        (
            translate(request.lang, f"activity.filter.{name}"),
            times.when(request, value) if name in ("from", "to") else value,
        )
        for name, value in ((name, filters.get(name, "")) for name in FILTERS)
        if value
    ]


def _type_label(request: Request, type_name: str) -> str:
    key = f"activity.type.{type_name}"
    return translate(request.lang, key) if key in CATALOGUE else type_name


def _type_options(request: Request) -> list[tuple[str, str]]:
    assert request.ctx is not None  # the account's types only for those who may see their records
    names = [name for name in (*ENTITY_TYPES, *ACCOUNT_TYPES) if audit.may_see_type(request.ctx, name)]
    return sorted(((name, _type_label(request, name)) for name in names), key=lambda option: option[1].lower())


def _may_revert(request: Request) -> bool:
    return request.role in ("admin", "owner")


# -- filters and times -------------------------------------------------------------------


def _filters(form: dict[str, str], zone: Any) -> dict[str, str]:
    """audit.list's filters from what was typed: the empty ones left out (an empty value is no
    filter, and the operation refuses it), the times as UTC timestamps."""
    found = {name: form[name] for name in FILTERS if form.get(name)}
    if "from" in found:
        found["from"] = _timestamp(found["from"], end=False, zone=zone)
    if "to" in found:
        found["to"] = _timestamp(found["to"], end=True, zone=zone)
    return found


def _timestamp(typed: str, *, end: bool, zone: Any = dt.UTC) -> str:
    """A time from the form (the browser's `2026-01-15T09:30` or with seconds, read in the
    person's time zone, times.py) or a link (ISO with Z) as the operation takes it. An end
    means all of what it names: a day without a time the whole day, a time without seconds the
    whole minute (`to 09:30` includes 09:30:40), without fractions the whole second."""
    text = typed.strip().replace(" ", "T")
    try:
        moment = dt.datetime.fromisoformat(text.removesuffix("Z").removesuffix("z"))
    except ValueError:
        raise BadFilter(typed) from None
    if moment.tzinfo is None:  # a link's "...Z" is UTC; a typed time the person's
        moment = moment.replace(tzinfo=dt.UTC if text[-1:] in ("Z", "z") else zone)
    moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
    time_part = text.partition("T")[2]
    if end and not time_part:  # a day: all of it
        moment += dt.timedelta(days=1, microseconds=-1000)
    elif end and "." not in time_part:
        whole_minute = time_part.count(":") < 2
        moment += dt.timedelta(seconds=59 if whole_minute else 0, microseconds=999_000)
    return clock.iso(moment.replace(tzinfo=dt.UTC))


def _field_time(moment: dt.datetime, zone: Any) -> str:
    """A time as a datetime-local field shows it (the person's time zone, whole seconds)."""
    return moment.astimezone(zone).strftime("%Y-%m-%dT%H:%M:%S")


def _field_value(name: str, value: str, zone: Any) -> str:
    """A filter's value as the trail's form field takes it back."""
    if name not in ("from", "to"):
        return value
    return _field_time(dt.datetime.fromisoformat(value.replace("Z", "+00:00")), zone)


def _offset(text: str) -> int:
    return int(text) if text.isdigit() and len(text) < 9 else 0


def _page_url(query: dict[str, str]) -> str:
    """The trail's address for the pager, which appends `offset=`."""
    return "/activity?" + "".join(f"{urlencode({name: value})}&" for name, value in query.items() if name != "offset")


def _url(path: str, query: dict[str, str]) -> str:
    return path + ("?" + urlencode(query) if query else "")
