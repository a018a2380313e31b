"""API keys (issue 19): the list (and below it the agents connected by OAuth, revoked by
pages/oauth_grants.py), a new key (its secret shown once), a key's page (facts and request log),
disabling, and a guided rotation: a new key for the same agent (same scopes and binding), its secret
shown once, then the old key disabled. Every read and change is an `apikeys.*` operation run as the
signed-in person; every change needs the admin role. A viewer ("sees everything, changes nothing")
reads the list and a key's page without their controls and without the source addresses of its
calls (`read`)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from typing import Any

from chalicelib import clock, registry
from chalicelib import error_codes as codes
from chalicelib.console import names as naming
from chalicelib.console import times
from chalicelib.console.operations import messages, run
from chalicelib.console.pages.connect_config import addresses, snippets
from chalicelib.console.render import render
from chalicelib.console.texts import translate, translate_markup
from chalicelib.console.web import Answer, Request, page, redirect
from chalicelib.errors import ApiError
from chalicelib.resources.apikeys import KEY_ID as KEY_ID_ARG
from chalicelib.scopes import AREAS, SCOPE_ADMIN, SCOPE_DESTRUCTIVE, SCOPE_READ, SCOPE_WRITE
from chalicelib.store import oauth

KEY_ID = re.compile(KEY_ID_ARG["pattern"])  # what the apikeys operations take as a key's id
LIST_LIMIT = 50
GRANT_PAGE = 50  # agents connected by OAuth, per page (every live one is reachable by paging)
LOG_LIMIT = 25
MAIN_SCOPES = (SCOPE_READ, SCOPE_WRITE, SCOPE_DESTRUCTIVE, SCOPE_ADMIN)

# The operation's field errors in plain words: a regular expression or "is not a 'date-time'"
# means little to a property manager.
READABLE = {
    "apiKey.agentName": "keys.error.agent",
    "apiKey.scopes": "keys.error.scopes",
    "apiKey.expiresAt": "keys.error.expiry",
    "apiKey.person": "keys.error.person",
    "apiKey.objects": "keys.error.objects",
}


# --- the list --------------------------------------------------------------------------------


@page("GET", "/keys")
def key_list(request: Request) -> Answer:
    offset = _offset(request)
    keys: list[dict[str, Any]] = []
    pagination = {"total": 0, "limit": LIST_LIMIT, "offset": offset}
    errors: list[str] = []
    try:
        found = read(request, "apikeys.list", {"limit": LIST_LIMIT, "offset": offset})
        named = bound_names(request, found["apiKeys"])
        keys, pagination = [view(request, key, named) for key in found["apiKeys"]], found["pagination"]
    except ApiError as error:
        errors = messages(request, error)
    assert request.ctx is not None
    grants_offset = _offset(request, "grantsOffset")
    page, total = oauth.grant_page(request.ctx.tenant_id, GRANT_PAGE, grants_offset)
    grants = [
        {
            **grant,
            "approved": times.when(request, grant.get("createdAt")),
            "lastRenewed": times.when(request, grant.get("lastUsedAt"), none=""),
        }
        for grant in page
    ]
    done = "revoked" if request.query.get("done") == "revoked" else ""
    return render(
        request,
        "keys.html",
        keys=keys,
        pagination=pagination,
        errors=errors,
        grants=grants,
        grants_pagination={"total": total, "limit": GRANT_PAGE, "offset": grants_offset},
        done=done,
        readonly=_readonly(request),
    )


# --- a new key -------------------------------------------------------------------------------


@page("GET", "/keys/new", role="admin")
def new_key_form(request: Request) -> Answer:
    form = {
        "agentName": "",
        "binding": "company",
        "person": "",
        "scopes": [],
        "expiry": "",
        "untrustedText": "show",
        "objects": "",
    }
    return _form(request, form)


@page("POST", "/keys", role="admin")
def create_key(request: Request) -> Answer:
    form: dict[str, Any] = {
        "agentName": request.arg("agentName"),
        "binding": "person" if request.arg("binding") == "person" else "company",
        "person": request.arg("person"),
        "scopes": request.args("scopes"),
        "expiry": request.arg("expiry"),
        "untrustedText": "omit" if request.arg("untrustedText") == "omit" else "show",
        "objects": request.arg("objects"),
    }
    if form["binding"] == "person" and not form["person"]:
        return _form(request, form, 400, [translate(request.lang, "keys.error.person_missing")])
    spec: dict[str, Any] = {
        "agentName": form["agentName"],
        "scopes": form["scopes"],
        "untrustedText": form["untrustedText"],
    }
    if form["binding"] == "person":
        spec["person"] = form["person"]
    if form["expiry"]:
        spec["expiresAt"] = _expiry(form["expiry"])
    objects = _objects(form["objects"])
    if objects:
        spec["objects"] = objects
    try:
        created = run(request, "apikeys.create", {"apiKey": spec})["apiKey"]
    except ApiError as error:
        return _form(request, form, error.status, _readable(request, error, objects))
    return _secret_page(request, created, None)


def _secret_page(request: Request, created: dict[str, Any], old: dict[str, Any] | None) -> Answer:
    """The one page that holds a new key's secret: shown once, and filled into the agents'
    configuration snippets (the connect page, which has no secret, shows a placeholder)."""
    return render(
        request, "keys_secret.html", key=created, old=old, snippets=snippets(created["key"], addresses()["mcp"])
    )


def _objects(text: str) -> list[str]:
    """The objects field: ids or aliases, one per line or separated by commas (or spaces)."""
    return [entry for entry in re.split(r"[\s,;]+", text) if entry]


def _form(request: Request, form: dict[str, Any], status: int = 200, errors: list[str] | None = None) -> Answer:
    return render(request, "keys_new.html", status, form=form, areas=AREAS, main=MAIN_SCOPES, errors=errors or [])


def _expiry(day: str) -> str:
    """A chosen day -> its start in UTC; anything else goes on as typed, for the operation to refuse."""
    try:
        return dt.date.fromisoformat(day).isoformat() + "T00:00:00Z"
    except ValueError:
        return day


OBJECT_PATH = re.compile(r"^apiKey\.objects\[(\d+)\]$")


def _readable(request: Request, error: ApiError, objects: list[str] | None = None) -> list[str]:
    unknown = [OBJECT_PATH.match(item.get("path", "")) for item in error.errors or []]
    if objects and unknown and all(unknown):  # an object the tenant does not have: name the entry as typed
        entries = [objects[int(found.group(1))] for found in unknown if found and int(found.group(1)) < len(objects)]
        return [translate(request.lang, "keys.error.object", entry=entry) for entry in entries]
    if error.code == codes.AGENT_HAS_KEYS.code:
        return [translate(request.lang, "keys.error.agent_has_keys")]
    if error.code == codes.KEY_LIMIT_REACHED.code:
        return [translate(request.lang, "keys.error.key_limit_reached", cap=error.extra.get("maxLiveKeys", "?"))]
    paths = [item.get("path", "") for item in error.errors or []]
    if paths and all(path in READABLE for path in paths):
        return list(dict.fromkeys(translate(request.lang, READABLE[path]) for path in paths))
    return messages(request, error)


# --- a key's page ----------------------------------------------------------------------------


@page("GET", "/keys/{key}")
def key_detail(request: Request) -> Answer:
    key = _lookup(request)
    if isinstance(key, Answer):
        return key
    offset = _offset(request)
    log: list[dict[str, Any]] = []
    pagination = {"total": 0, "limit": LOG_LIMIT, "offset": offset}
    errors: list[str] = []
    try:
        found = read(request, "apikeys.requests.list", {"apiKey": key["id"], "limit": LOG_LIMIT, "offset": offset})
        log = [{**entry, "at": times.when(request, entry.get("at"))} for entry in found["requests"]]
        pagination = found["pagination"]
        if _readonly(request):
            log = [{name: value for name, value in entry.items() if name != "sourceIp"} for entry in log]
    except ApiError as error:
        errors = messages(request, error)
    done = request.query.get("done")
    notice = translate(request.lang, f"keys.done.{done}") if done in ("disabled", "rotated") else None
    return render(
        request,
        "keys_detail.html",
        key=key,
        log=log,
        pagination=pagination,
        notice=notice,
        errors=errors,
        readonly=_readonly(request),
    )


@page("POST", "/keys/{key}/disable", role="admin")
def disable_key(request: Request) -> Answer:
    key_id = request.params["key"]
    if not KEY_ID.match(key_id):
        return _not_found(request)
    try:
        run(request, "apikeys.disable", {"apiKey": key_id})
    except ApiError as error:
        return render(request, "error.html", error.status, errors=messages(request, error))
    # The rotation's last step comes back to the new key, the agent's key from now on.
    successor = request.arg("rotatedTo")
    if KEY_ID.match(successor):
        return redirect(f"/keys/{successor}", done="rotated")
    return redirect(f"/keys/{key_id}", done="disabled")


# --- rotation --------------------------------------------------------------------------------


@page("GET", "/keys/{key}/rotate", role="admin")
def rotate_form(request: Request) -> Answer:
    key = _lookup(request)
    if isinstance(key, Answer):
        return key
    return render(request, "keys_rotate.html", key=key)


@page("POST", "/keys/{key}/rotate", role="admin")
def rotate(request: Request) -> Answer:
    """Step 1: the new key, with the old one's agent, scopes, binding and untrusted-text choice (a
    second live key of an agent is the rotation the store allows)."""
    old = _lookup(request)
    if isinstance(old, Answer):
        return old
    spec: dict[str, Any] = {
        "agentName": old["agentName"],
        "scopes": old["scopes"],
        "untrustedText": old["untrustedText"],
    }
    if old["binding"].get("contactId"):
        spec["person"] = old["binding"]["contactId"]
    if old.get("objects") is not None:  # the new key reaches what the old one did, no further
        spec["objects"] = old["objects"]
    try:
        created = run(request, "apikeys.create", {"apiKey": spec})["apiKey"]
    except ApiError as error:
        return render(request, "keys_rotate.html", error.status, key=old, errors=_readable(request, error))
    return _secret_page(request, created, old)


# --- helpers ---------------------------------------------------------------------------------


def _readonly(request: Request) -> bool:
    return request.member is not None and request.member["role"] == "viewer"


def read(request: Request, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """An `apikeys` query for the page. They need `admin`, which a viewer's session does not hold
    (a viewer's operations run with `read`); the role promises a viewer sees everything, so for a
    viewer these queries, and queries only, run with `admin` added. Every change stays an admin
    route run with the person's own scopes, and a viewer's pages drop the calls' source
    addresses (the last one and the request log's)."""
    if not _readonly(request):
        return run(request, name, args)
    assert registry.REGISTRY[name].kind == "query" and name.startswith("apikeys."), name
    assert request.ctx is not None
    reader = replace(request, ctx=replace(request.ctx, scopes=request.ctx.scopes | {SCOPE_ADMIN}))
    return run(reader, name, args)


def _lookup(request: Request) -> dict[str, Any] | Answer:
    """The key the path names, else the page that says why not."""
    try:
        key = find_key(request, request.params["key"])
    except ApiError as error:
        return render(request, "error.html", error.status, errors=messages(request, error))
    return key if key is not None else _not_found(request)


def find_key(request: Request, key_id: str) -> dict[str, Any] | None:
    """The key (apikeys.show), or None where there is none of this tenant by that id."""
    if not KEY_ID.match(key_id):
        return None
    try:
        found = read(request, "apikeys.show", {"apiKey": key_id})["apiKey"]
        key = view(request, found, bound_names(request, [found]))
        return {**key, "lastUsedIp": None} if _readonly(request) else key
    except ApiError as error:
        if error.status == 404:
            return None
        raise


def bound_names(request: Request, keys: list[dict[str, Any]]) -> naming.Names:
    """The names of the contacts the keys are bound to (one batched read, names.py)."""
    bound = [str(key["binding"]["contactId"]) for key in keys if (key.get("binding") or {}).get("contactId")]
    return naming.Names(request.ctx).look_up(bound)


def view(request: Request, key: dict[str, Any], named: naming.Names | None = None) -> dict[str, Any]:
    """The key's facts as a person reads them: state, scope names, the bound person by name (from
    `named`, bound_names), times as every page shows them (times.when; also for the keys a
    removed person created: pages/member_keys.py)."""
    now = clock.now_iso()
    if key.get("disabled"):
        state = "disabled"
    elif key.get("expiresAt") and key["expiresAt"] <= now:
        state = "expired"
    else:
        state = "active"
    scopes = sorted(key["scopes"], key=_scope_rank)
    contact = key["binding"].get("contactId")
    binding = (
        translate_markup(
            request.lang,
            "keys.binding.person",
            contact=naming.shown(
                named.get(contact) if named else None, contact, deleted_text=translate(request.lang, "common.deleted")
            ),
        )
        if contact
        else translate(request.lang, "keys.binding.company")
    )
    return {
        **key,
        "state": state,
        "bindingText": binding,
        "scopeNames": [_scope_name(request.lang, scope) for scope in scopes],
        "scopeHelp": [_scope_help(request.lang, scope) for scope in scopes],
        "created": times.when(request, key.get("createdAt")),
        "lastUsed": times.when(request, key.get("lastUsedAt"), none=""),
        "expires": times.when(request, key.get("expiresAt"), none=""),
    }


def _scope_rank(scope: str) -> tuple[int, str]:
    """As the form lists them: read, its areas, write, its areas, destructive, admin."""
    wide, _, area = scope.partition(":")
    order = (SCOPE_READ, "read:", SCOPE_WRITE, "write:", SCOPE_DESTRUCTIVE, SCOPE_ADMIN)
    return order.index(wide + ":" if area else scope), scope


def _scope_name(lang: str, scope: str) -> str:
    wide, _, area = scope.partition(":")
    if area:
        return translate(lang, f"keys.scope.area.{wide}", area=translate(lang, f"keys.area.{area}"))
    return translate(lang, f"keys.scope.{scope}")


def _scope_help(lang: str, scope: str) -> str:
    wide, _, area = scope.partition(":")
    if area:
        return translate(lang, f"keys.scope.area.{wide}.help", area=translate(lang, f"keys.area.{area}"))
    return translate(lang, f"keys.scope.{scope}.help")


def _offset(request: Request, name: str = "offset") -> int:
    value = request.query.get(name, "0")
    return min(int(value), 10**6) if value.isdigit() else 0


def _not_found(request: Request) -> Answer:
    return render(request, "error.html", 404, errors=[translate(request.lang, "keys.error.not_found")])
