"""Restoring a deleted entity from the pages that show it by its last name, marked deleted (the
activity pages and the data pages): for an admin or owner a button (templates/_restore.html),
confirmed in the browser, that runs the type's `<list>.restore` (found in the registry by the
`x-ref` of its one argument: registry.lifecycle_operation) as the signed-in person, so the audit
trail records who restored it; then back to the page it was pressed on, with a notice. The
notice is said only when it is true (the entity is there again): an address typed by hand
announces nothing."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from chalicelib import error_codes as codes
from chalicelib import registry
from chalicelib.console import names as naming
from chalicelib.console.operations import messages, run
from chalicelib.console.render import render
from chalicelib.console.texts import translate
from chalicelib.console.web import Answer, Request, page, redirect
from chalicelib.errors import ApiError

CHANGERS = ("admin", "owner")
BACK = re.compile(r"^/[A-Za-z0-9_/\-]*$")  # a console page to return to (no scheme or host)
LEFT_OUT = ("restored", "done", "stopped", "lang")  # a page's query that is no filter
REFUSALS = {codes.REFERENCE_DELETED.code: "restore.reference_deleted", codes.MERGED.code: "restore.merged"}


def operation_of(entity_id: str) -> tuple[str, str] | None:
    """The restore operation of the entity's type and its argument, None where it has none."""
    etype = naming.etype_of(entity_id)
    return registry.lifecycle_operation(etype.name, "restore") if etype else None


def offer(request: Request, entity_id: str, label: str, deleted: bool) -> dict[str, Any] | None:
    """The restore button of a deleted entity, for a person who may restore it; else None."""
    if request.method != "GET" or not deleted or request.role not in CHANGERS or operation_of(entity_id) is None:
        return None
    what = label or entity_id
    query = {name: value for name, value in request.query.items() if name not in LEFT_OUT}
    return {
        "entityId": entity_id,
        "back": request.path + (f"?{urlencode(query)}" if query else ""),
        "confirm": translate(request.lang, "restore.confirm", name=what),
        "name": what,
    }


def restored_notice(request: Request) -> str | None:
    """After a restore (`restored=<id>`), its notice: only when that entity is there, not deleted."""
    entity_id = request.query.get("restored", "")
    if not entity_id or operation_of(entity_id) is None:
        return None
    found = naming.Names(request.ctx).look_up([entity_id]).get(entity_id)
    if found is None or not found.found or found.deleted:
        return None
    return translate(request.lang, "restore.done", name=found.name or entity_id)


@page("POST", "/activity/restore", role="admin")
def restore(request: Request) -> Answer:
    entity_id = request.arg("entityId")
    back = request.arg("back")
    found = operation_of(entity_id)
    if found is None:
        return render(request, "error.html", 404, errors=[translate(request.lang, "error.not_found")])
    name, argument = found
    try:
        run(request, name, {argument: entity_id})
    except ApiError as error:
        said = [translate(request.lang, REFUSALS[error.code])] if error.code in REFUSALS else messages(request, error)
        return render(request, "error.html", error.status, errors=said)
    path, query = _back(back)
    return redirect(path, **query, restored=entity_id)


def _back(back: str) -> tuple[str, dict[str, str]]:
    """The page to return to, as the form named it: a console path and its filters; else the trail."""
    parts = urlsplit(back)
    if parts.scheme or parts.netloc or not BACK.match(parts.path) or parts.path.startswith("//"):
        return "/activity", {}
    query = {name: value for name, value in parse_qsl(parts.query) if name not in LEFT_OUT and name.isalnum()}
    return parts.path, query
