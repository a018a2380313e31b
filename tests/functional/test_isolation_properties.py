"""Isolation as properties: two tenants, and two integrations of one tenant, do random things
(hypothesis draws the data and the operation sequences); whatever one does, every view of the
other stays its own and unchanged.

Tenants (A acts, B watches): B's every list query of the registry, every show with A's ids and
aliases, aliases.list/resolve with A's aliases and ids, the audit trail, webhook deliveries, MCP
(meta.tool.execute, meta.pipeline.execute, meta.tools.search) and upload batches. No answer B gets
carries an id A was ever shown (every id-shaped token in A's answers, A's tenant id among them), and
B's snapshot of everything it can list or show is the same after A's sequence as before. A's steps
include attacks: an operation with a reference argument given B's id or alias (404, or for a
list filter: nothing found), also walked through once in full.

Integrations (I1, I2 and the tenant's own keys on one tenant): the entities are the tenant's and
shared (each caller sees every one, with the same data); aliases are per (tenant, integration):
each caller lists, resolves and sees on entities exactly its own, and another's answer 404.

Each caller keeps a model of what it did (entities, its aliases), and the answers are checked
against it as the steps run. Examples per property, besides one fixed: the Hypothesis profile's
(HYPOTHESIS_PROFILE, tests/profiles.py: 1 drawn on `dev`, 3 on `ci`, 30 on `nightly`); `ci` and
`nightly` draw new sequences each run (a failure prints the seed: `pytest --hypothesis-seed=<seed>`
repeats it), without an example database. Marked `fuzz`: not part of `make test`."""

from __future__ import annotations

import base64
import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from chalicelib import relative_time
from chalicelib.entities import ENTITY_TYPES, by_prefix, ref_types
from chalicelib.events.audit import decode_cursor as audit_cursor
from chalicelib.events.changes import ACCOUNT_TYPES
from chalicelib.ids import looks_like_id, prefix_of
from chalicelib.registry import REGISTRY, Operation
from chalicelib.resources import load_all
from chalicelib.resources.aliases import ALIAS as ALIAS_SCHEMA
from chalicelib.schemas import MULTI_LINE, ONE_LINE, map_refs, refs_in
from tests.client import Answer, Api, Tenant
from tests.eventually import eventually
from tests.functional.test_pmctl import onboard
from tests.mcp_client import McpSession
from tests.profiles import PROFILE
from tests.receiver import Receiver
from tests.uploads import pdf, post_file
from tests.world import OWN_TESTS, World, created_type, is_create

load_all()

pytestmark = pytest.mark.fuzz
PROPERTY = settings(
    max_examples=PROFILE.properties,  # HYPOTHESIS_PROFILE (tests/profiles.py): 3 on ci, 30 on nightly
    deadline=None,
    derandomize=PROFILE.derandomize,  # only dev's draw is fixed: ci's and nightly's test new sequences each run
    database=None,
    print_blob=True,
    # no shrinking: each example is dozens of HTTP calls, and a failure prints its steps as drawn
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --- the catalogue, read from the registry ------------------------------------------------

V2 = {name: op for name, op in REGISTRY.items() if op.surface == "v2"}
TOKEN = re.compile(r"(?<![0-9A-Za-z])[a-z]{2,5}_[0-9A-HJKMNP-TV-Z]{26}(?![0-9A-Za-z])")  # an internal id (ids.py)
VOLATILE = {"downloadUrl", "downloadUrlExpiresAt", "lastUsedAt"}  # presigned links and key use times change per read
NOT_FREE_TEXT = {"documentType", "category"}  # plain strings the service checks against a list
INTEGRATION_SCOPES = ["read", "write", "destructive"]


def _single_ref(op: Operation) -> tuple[str, str] | None:
    """(argument, entity type) of an operation whose one required argument is a reference."""
    required = op.args.get("required") or []
    if len(required) != 1:
        return None
    x_ref = op.args["properties"][required[0]].get("x-ref")
    return (required[0], x_ref) if isinstance(x_ref, str) else None


def _free_text(schema: dict[str, Any]) -> bool:
    """Text a person writes: no list, format or reference, no pattern but the control-character rule."""
    plain = schema.get("pattern") in (None, ONE_LINE, MULTI_LINE)
    return (
        schema.get("type") == "string"
        and plain
        and not {"enum", "format", "x-ref"} & set(schema)
        and schema.get("maxLength", 0) >= 100
    )


CREATES = sorted(op.name for op in V2.values() if is_create(op) and op.name not in OWN_TESTS | {"webhooks.create"})
CREATED = {name: str(created_type(V2[name])) for name in CREATES}
CREATOR = {etype: name for name, etype in reversed(list(CREATED.items()))}
SHOW: dict[str, tuple[str, str]] = {}
DELETE: dict[str, tuple[str, str]] = {}
RESTORE: dict[str, tuple[str, str]] = {}
UPDATE: dict[str, tuple[str, str, list[str]]] = {}
TEXTS: dict[str, tuple[str, list[str]]] = {}  # create -> (payload argument, text fields its example fills)
for _op in V2.values():
    _found = _single_ref(_op)
    if _found and _op.kind == "query" and not _op.paged:
        SHOW.setdefault(_found[1], (_op.name, _found[0]))
    elif _found and _op.destructive and _op.name.endswith((".delete", ".revoke")):
        DELETE[_found[1]] = (_op.name, _found[0])
    elif _found and _op.destructive and _op.name.endswith(".restore"):
        RESTORE[_found[1]] = (_op.name, _found[0])
for _name in CREATES:
    _example = V2[_name].example or {}
    _payload = next(a for a, v in _example.items() if isinstance(v, dict) and a != "resource")
    _props = V2[_name].args["properties"][_payload]["properties"]
    TEXTS[_name] = (
        _payload,
        [
            k
            for k, v in _example[_payload].items()
            if isinstance(v, str) and k in _props and _free_text(_props[k]) and k not in NOT_FREE_TEXT
        ],
    )
for _op in V2.values():
    if _op.kind == "command" and _op.name.endswith(".update") and len(_op.args.get("required", [])) == 1:
        _arg = _op.args["required"][0]
        _etype = _op.args["properties"][_arg].get("properties", {}).get("id", {}).get("x-ref")
        if _etype in CREATOR:
            _fields = TEXTS[CREATOR[_etype]][1]
            UPDATE[_etype] = (_op.name, _arg, [f for f in _fields if f in _op.args["properties"][_arg]["properties"]])
LISTS = sorted(op.name for op in V2.values() if op.kind == "query" and "pagination" in op.result.get("properties", {}))


def _words(name: str) -> dict[str, Any]:
    """The required text a list takes besides its references (search's `query`): a letter every
    tenant's names hold, so the list shows what the tenant has."""
    props, required = V2[name].args["properties"], V2[name].args.get("required", [])
    return {arg: "e" for arg in required if props[arg].get("type") == "string" and not props[arg].get("x-ref")}


def _page(name: str, wanted: int) -> dict[str, Any]:
    """limit and offset for a page of at most `wanted`, within the list's own maximum."""
    limit = V2[name].args["properties"]["limit"]
    return {"limit": min(wanted, int(limit.get("maximum", wanted))), "offset": 0}


def _list_key(name: str) -> str:
    return next(k for k in V2[name].result["properties"] if k not in ("pagination", "batch"))


PLURAL = {etype.plural: name for name, etype in ENTITY_TYPES.items()}
# entity types with a list of all of them (no parent argument)
LISTED = {
    PLURAL.get(_list_key(name)) for name in LISTS if not set(V2[name].args.get("required", [])) - {"limit", "offset"}
} - {None}


# An attack: (operation, path of the argument that gets the other tenant's id, what it takes).
# Every reference argument of every operation (x-ref, from the operation's own example), and the
# arguments that take ids of things that are no entity (audit records, keys, batches, events).
ATTACKS: list[tuple[str, str, tuple[str, ...]]] = sorted(
    {
        (op.name, path, tuple(ref_types(x_ref)))
        for op in V2.values()
        for path, x_ref, _ in refs_in(op.args, op.example or {}, "")
    }
    | {
        ("aliases.upsert", "entries[0].id", ("entity",)),
        ("audit.show", "auditRecord", ("aud",)),
        ("audit.revert", "auditRecord", ("aud",)),
        ("audit.revert", "filter.keyId", ("key",)),
        ("audit.revert", "filter.entityId", ("entity",)),
        ("audit.list", "entityId", ("entity",)),
        ("audit.list", "keyId", ("key",)),
        ("apikeys.requests.list", "apiKey", ("key",)),
        ("apikeys.show", "apiKey", ("key",)),
        ("apikeys.disable", "apiKey", ("key",)),
        ("documents.uploads.progress", "batch", ("batch",)),
        ("webhooks.deliveries.retry", "delivery", ("evt",)),
    }
)


# What the runs did, printed at the end of the module with PM_PROPERTY_STATS=1 (and -s).
STATS: Counter[str] = Counter()


def set_path(value: dict[str, Any], path: str, new: Any) -> None:
    parts = [int(p) if p.isdigit() else p for p in re.findall(r"[^.\[\]]+", path)]
    target: Any = value
    for part in parts[:-1]:
        target = target[part]
    target[parts[-1]] = new


def strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


# --- callers and their models -------------------------------------------------------------


class Skip(Exception):
    """A step that cannot run in the current state (nothing to pick); it is left out."""


@dataclass
class Entity:
    type: str
    live: bool = True


@dataclass
class Actor:
    """One caller (a tenant's own key or an integration's) and what it believes: the entities
    (shared by the callers of one tenant), its own aliases, its upload batches and webhooks.
    Every answer it gets is scanned: it may not carry an id of `foreign` that the request did
    not send itself."""

    api: Api
    tenant_id: str
    key: str
    name: str
    entities: dict[str, Entity] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)  # alias -> entity id
    batches: list[str] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)
    key_id: str = ""
    seen: set[str] = field(default_factory=set)  # ids its answers carried
    foreign: set[str] = field(default_factory=set)  # ids it must never be shown
    others: list[Actor] = field(default_factory=list)  # callers whose aliases it must not see
    target: Actor | None = None  # the other tenant, whose ids its attacks use
    peers: list[Actor] = field(default_factory=list)  # callers of the same tenant (a merge moves their aliases)
    settle: Any = None
    admin: bool = True  # the tenant's own signup key; an integration's key has no admin scope
    calls: int = 0

    def __post_init__(self) -> None:
        self.seen.add(self.tenant_id)
        self.peers = self.peers or [self]

    # --- HTTP ---

    def call(self, name: str, args: dict[str, Any], *expect: int) -> Answer:
        answer = (
            self.api.query(name, args, key=self.key)
            if V2[name].kind == "query"
            else self.api.command(name, args, key=self.key)
        )
        self.calls += 1
        STATS["http calls"] += 1
        self.scan(answer.raw.decode("utf-8", "replace"), json.dumps(args))
        if expect:
            assert answer.status in expect, (self.name, name, args, answer.status, answer.body)
        return answer

    def scan(self, text: str, request: str = "") -> None:
        tokens, sent = set(TOKEN.findall(text)), set(TOKEN.findall(request))
        leaked = (tokens & self.foreign) - sent
        assert not leaked, f"{self.name} was shown ids of another: {sorted(leaked)} in {text[:600]}"
        self.seen |= tokens - sent

    def learn_key(self) -> None:
        self.key_id = self.call("info", {}, 200).body["key"]["id"]

    # --- the model ---

    def live(self, types: list[str] | None = None) -> list[str]:
        return [i for i, e in self.entities.items() if e.live and (types is None or e.type in types)]

    def own_aliases(self, entity_id: str) -> list[str]:
        return sorted(a for a, i in self.aliases.items() if i == entity_id)

    def ref(self, entity_id: str, n: int) -> str:
        names = self.own_aliases(entity_id)
        return names[n % len(names)] if names and n % 3 else entity_id

    @staticmethod
    def pick(choices: list[str], n: int) -> str:
        if not choices:
            raise Skip
        return choices[n % len(choices)]

    def choose(self, wanted: Any, n: int, count: int = 1) -> str:
        """One of the entities `wanted` accepts; contacts are made first when there are too few
        (a step that needs an entity then still does what it says)."""
        for _ in range(count + 2):  # bounded: contacts that never qualify must not loop for ever
            if len([i for i in self.entities if wanted(i)]) >= count:
                break
            if self.create("contacts.create", ["Neu", "Kontakt", "-"], n, None) is None:
                raise Skip
        return self.pick([i for i in self.entities if wanted(i)], n)

    def ensure(self, types: list[str], n: int) -> str:
        """A live entity of the first of the types, made when there is none."""
        if types[0] == "webhook":
            return self.pick(self.hooks, n)
        found = self.live(types[:1])
        if found:
            return self.pick(found, n)
        made = self.create(CREATOR[types[0]], ["Anna", "Haus", "Notiz"], n, None)
        if made is None:
            raise Skip
        return made

    def fill(self, op: Operation, n: int) -> dict[str, Any]:
        def one(path: str, x_ref: Any, value: str) -> str:
            return self.ref(self.ensure(ref_types(x_ref), n), n)

        filled: dict[str, Any] = map_refs(op.args, relative_time.resolve(op.example or {}), "", one)
        return filled

    # --- steps ---

    def run(self, step: tuple[Any, ...]) -> None:
        try:
            getattr(self, "do_" + step[0])(*step[1:])
            STATS[f"step {step[0]}"] += 1
        except Skip:
            STATS[f"step {step[0]} (nothing to pick)"] += 1

    def create(self, name: str, texts: list[str], n: int, alias: str | None) -> str | None:
        op = V2[name]
        args = self.fill(op, n)
        payload, fields = TEXTS[name]
        for i, text_field in enumerate(fields):
            args[payload][text_field] = texts[i % len(texts)]
        if "resource" in args:
            args["resource"]["content"] = base64.b64encode(pdf()).decode()
        # 409: a unique value or a one-of-a-kind link taken, never by the first of its type (whatever
        # another tenant or integration holds: uniqueness is per tenant)
        first = not any(e.type == CREATED[name] for e in self.entities.values())
        answer = self.call(name, args, *((200,) if first else (200, 409)))
        if answer.status != 200:
            return None
        (entity,) = [v for v in answer.body.values() if isinstance(v, dict) and "id" in v]
        assert prefix_of(entity["id"]) == ENTITY_TYPES[CREATED[name]].prefix and entity["aliases"] == []
        self.entities[entity["id"]] = Entity(CREATED[name])
        if alias is not None and ENTITY_TYPES[CREATED[name]].aliasable:  # a type declared aliasable=False takes none
            self.do_alias(len(self.entities) - 1, alias, entity["id"])
        return str(entity["id"])

    def do_create(self, name: str, texts: list[str], n: int, alias: str | None) -> None:
        self.create(name, texts, n, alias)

    def do_update(self, n: int, text: str) -> None:
        entity_id = self.choose(
            lambda i: self.entities[i].live and UPDATE.get(self.entities[i].type, ("", "", []))[2], n
        )
        name, arg, fields = UPDATE[self.entities[entity_id].type]
        changed = self.call(name, {arg: {"id": self.ref(entity_id, n), fields[n % len(fields)]: text}}, 200).body[arg]
        assert changed["id"] == entity_id and changed["aliases"] == self.own_aliases(entity_id)

    def do_alias(self, n: int, alias: str, entity_id: str | None = None) -> None:
        entity_id = entity_id or self.choose(
            lambda i: self.entities[i].live and ENTITY_TYPES[self.entities[i].type].aliasable, n
        )
        entry = {"alias": alias, "id": entity_id, "type": self.entities[entity_id].type}
        answer = self.call("aliases.upsert", {"entries": [entry]}, 200, 409)
        assert (answer.status == 409) == (self.aliases.get(alias, entity_id) != entity_id), (
            self.name,
            entry,
            answer.body,
        )
        if answer.status == 200:
            self.aliases[alias] = entity_id

    def do_delete(self, n: int) -> None:
        entity_id = self.choose(lambda i: self.entities[i].live and self.entities[i].type in DELETE, n)
        name, arg = DELETE[self.entities[entity_id].type]
        if self.call(name, {arg: self.ref(entity_id, n)}, 200, 409).status == 200:  # 409: still referenced
            self.entities[entity_id].live = False

    def do_restore(self, n: int) -> None:
        if not [e for e in self.entities.values() if not e.live]:  # nothing deleted yet: delete a new contact first
            made = self.create("contacts.create", ["Weg", "Kontakt", "-"], n, None)
            self.call("contacts.delete", {"contact": made}, 200)
            self.entities[str(made)].live = False
        entity_id = self.pick([i for i, e in self.entities.items() if not e.live and e.type in RESTORE], n)
        name, arg = RESTORE[self.entities[entity_id].type]
        if (
            self.call(name, {arg: entity_id}, 200, 409).status == 200
        ):  # 409: what it refers to is gone, or a unique value is taken
            self.entities[entity_id].live = True

    def do_merge(self, n: int, m: int) -> None:
        source = self.choose(lambda i: self.entities[i].live and self.entities[i].type == "contact", n, count=2)
        target = self.pick([c for c in self.live(["contact"]) if c != source], m)
        answer = self.call(
            "contacts.merge", {"sourceContact": self.ref(source, n), "targetContact": self.ref(target, m)}, 200, 409
        )
        if answer.status != 200:
            return
        # the caller learns what moved of its own aliases, never how many other integrations had
        assert answer.body["merge"]["movedAliases"] == len(self.own_aliases(source)), answer.body
        self.entities[source].live = False
        for peer in self.peers:
            peer.aliases.update({a: target for a, i in peer.aliases.items() if i == source})
        assert answer.body["contact"]["aliases"] == self.own_aliases(target)

    def do_list(self, name: str, n: int) -> None:
        op = V2[name]
        if op.scope == "admin" and not self.admin:
            self.call(
                name,
                {"limit": 10, "offset": 0, **({"apiKey": self.key_id} if name == "apikeys.requests.list" else {})},
                403,
            )
            return
        args: dict[str, Any] = {"limit": 1000, "offset": 0} if "limit" in op.args["properties"] else {}
        for arg in op.args.get("required", []):
            x_ref = op.args["properties"][arg].get("x-ref")
            if x_ref:
                args[arg] = self.ref(self.ensure(ref_types(x_ref), n), n)
            elif arg == "apiKey":
                args[arg] = self.key_id
            elif arg == "batch":
                args[arg] = self.pick(self.batches, n)
        body = self.call(name, args, 200).body
        self.check_listed(name, args, body)

    def check_listed(self, name: str, args: dict[str, Any], body: dict[str, Any]) -> None:
        """An unfiltered list of entities holds exactly the live ones, each with the caller's aliases."""
        etype = PLURAL.get(_list_key(name))
        if etype is None or etype == "webhook" or set(args) - {"limit", "offset"}:
            return
        listed = body[_list_key(name)]
        assert {e["id"] for e in listed} == set(self.live([etype])), (self.name, name)
        for entity in listed:
            assert entity["aliases"] == self.own_aliases(entity["id"]), (self.name, name, entity)

    def do_show(self, n: int) -> dict[str, Any] | None:
        entity_id = self.choose(lambda i: True, n)
        return self.show(entity_id, self.ref(entity_id, n))

    def show(self, entity_id: str, ref: str) -> dict[str, Any] | None:
        name, arg = SHOW[self.entities[entity_id].type]
        live = self.entities[entity_id].live
        answer = self.call(name, {arg: ref if live else entity_id}, 200 if live else 404)
        if not live:
            return None
        shown = dict(answer.body[arg])
        assert shown["id"] == entity_id and shown["aliases"] == self.own_aliases(entity_id), (self.name, shown)
        return shown

    def do_resolve(self, n: int) -> None:
        names = sorted({a for actor in (self, *self.others) for a in actor.aliases})
        entity_ids = sorted({i for actor in (self, *self.others) for i in actor.entities})
        self.resolve(names[n % 7 :: 2][:100] or names[:100], entity_ids[n % 5 :: 2][:100])

    def resolve(self, names: list[str], entity_ids: list[str]) -> None:
        """aliases.resolve answers exactly the caller's own mappings of live entities."""
        answer = self.call("aliases.resolve", {"aliases": names, "ids": entity_ids}, 200).body["aliases"]
        live = set(self.live())
        expected = {(a, self.aliases[a]) for a in names if a in self.aliases and self.aliases[a] in live}
        expected |= {(a, i) for i in entity_ids if i in live for a in self.own_aliases(i)}
        assert {(e["alias"], e["id"]) for e in answer} == expected, (self.name, names, entity_ids, answer)
        assert all(e["type"] == self.entities[e["id"]].type for e in answer)

    def do_upload(self, n: int, text: str) -> None:
        """A presigned bulk upload of one PDF, waited for until it is registered."""
        location, content = self.ensure(["object"], n), pdf()
        request = {
            "locationId": location,
            "fileName": "scan.pdf",
            "contentType": "application/pdf",
            "size": len(content),
            "document": {"title": text},
        }
        created = self.call("documents.uploads.create", {"uploads": [request]}, 200).body
        batch, upload = created["batch"]["id"], created["uploads"][0]
        assert post_file(upload, content) in (200, 204)

        def registered() -> bool:
            counts = self.call("documents.uploads.progress", {"batch": batch, "limit": 10, "offset": 0}, 200).body[
                "batch"
            ]["counts"]
            assert counts["registered"] == 1, counts
            return True

        eventually(registered, timeout=30, message=f"{self.name}: the upload of batch {batch} to register")
        self.batches.append(batch)
        self.entities[upload["documentId"]] = Entity("document")

    def do_revert(self, n: int) -> None:
        """Roll back everything done to one of its entities (the audit trail comes from the stream)."""
        entity_id = self.choose(lambda i: True, n)
        self.settle()
        body = self.call("audit.revert", {"filter": {"entityId": entity_id}, "force": True}, 200).body
        for done in body["reverted"]:
            assert done["entityId"] == entity_id
            if done["action"] in ("deleted", "restored"):
                self.entities[entity_id].live = done["action"] == "restored"

    def do_attack(self, n: int, m: int) -> None:
        assert self.target is not None
        self.attack(ATTACKS[n % len(ATTACKS)], n, m)

    def attack(self, attack: tuple[str, str, tuple[str, ...]], n: int, m: int) -> None:
        """One operation with one argument naming the other tenant's thing: 404, or (for a
        filter of a list, a rollback by filter) an answer that finds nothing."""
        name, path, kinds = attack
        other = self.target
        assert other is not None
        op = V2[name]
        args = self.fill(op, n)
        value: str
        if kinds in (("aud",), ("evt",), ("batch",)):
            value = self.pick(
                sorted(t for t in other.seen if t.startswith(kinds[0] + "_")) if kinds[0] != "batch" else other.batches,
                m,
            )
        elif kinds == ("key",):
            value = other.key_id
        elif kinds == ("entity",):
            value = self.pick(
                [i for i, e in other.entities.items() if name != "aliases.upsert" or ENTITY_TYPES[e.type].aliasable], m
            )
        else:
            candidates = [i for i, e in other.entities.items() if e.type in kinds] + [
                h for h in other.hooks if "webhook" in kinds
            ]
            value = self.pick(candidates, m)
            usable = [a for a, i in other.aliases.items() if i == value and a not in self.aliases]
            if usable and m % 2:
                value = usable[m % len(usable)]  # the other's alias: not ours, so it names nothing here
        if name == "aliases.upsert":
            args = {"entries": [{"alias": f"stolen-{m}", "id": value, "type": other.entities[value].type}]}
        elif name == "audit.list":
            args = {"limit": 100, "offset": 0, path: value}
        elif name == "audit.revert":
            args = (
                {"auditRecord": value}
                if path == "auditRecord"
                else {"filter": {path.split(".")[1]: value}, "force": True}
            )
        else:
            set_path(args, path, value)
        answer = self.call(name, args)
        if answer.status == 200 and name in LISTS:  # a filter by an id that names nothing here finds nothing
            assert answer.body["pagination"]["total"] == 0 and answer.body[_list_key(name)] == [], answer.body
        elif answer.status == 200 and name == "audit.revert" and "filter" in args:
            assert answer.body == {"reverted": [], "skipped": []}, answer.body
        elif answer.status == 200 and op.items_checked_alone:  # an upsert: each item refused on its own
            assert all(r["result"] == "failed" and r["code"] == "not_found" for r in answer.body["results"]), (
                answer.body
            )
        else:
            assert answer.status == 404, (self.name, name, args, answer.status, answer.body)

    # --- views ---

    def snapshot(self) -> dict[str, Any]:
        """Everything the caller can list (every list query of the registry, per parent where
        one is required) and show (each of its entities, deleted ones too)."""
        shot: dict[str, Any] = {}
        for name in LISTS:
            op = V2[name]
            base: dict[str, Any] = _page(name, 1000) if "limit" in op.args["properties"] else {}
            base |= _words(name)
            if name == "apikeys.requests.list":  # the key's request log, newest first: long, and only scanned
                base["limit"] = 50
            variants: list[dict[str, Any]] = [base]
            for arg in op.args.get("required", []):
                x_ref = op.args["properties"][arg].get("x-ref")
                if x_ref or arg in ("apiKey", "batch"):  # one call per parent
                    values = self.live(ref_types(x_ref)) + (self.hooks if x_ref == "webhook" else []) if x_ref else []
                    values += [self.key_id] if arg == "apiKey" else self.batches if arg == "batch" else []
                    variants = [{**v, arg: value} for v in variants for value in values]
            for args in variants:
                answer = self.call(name, args, 200)
                if name != "apikeys.requests.list":  # the request log grows with every call, these too
                    shot[f"{name} {json.dumps(args, sort_keys=True)}"] = strip(answer.body)
        for entity_id, entity in self.entities.items():
            if entity.live and entity.type in LISTED:  # shown above, as a show would show it (less the download link)
                continue
            name, arg = SHOW[entity.type]
            answer = self.call(name, {arg: entity_id}, 200 if entity.live else 404)
            shot[f"{name} {entity_id}"] = strip(answer.body) if answer.status == 200 else answer.status
        for name in ("tenant", "info"):
            self.call(name, {}, 200)
        return shot

    def wait_for_deliveries(self, timeout: float = 30.0) -> None:
        """Until none of its webhooks has a delivery pending."""
        waiting = list(self.hooks)  # a webhook found with nothing pending is not asked again

        def none_pending() -> bool:
            for hook in list(waiting):
                log = self.call("webhooks.deliveries.list", {"webhook": hook, "limit": 1000, "offset": 0}, 200).body[
                    "deliveries"
                ]
                pending = [d for d in log if d["status"] != "delivered"]
                assert not pending, f"{self.name}: deliveries still pending: {pending[:3]}"
                waiting.remove(hook)
            return True

        eventually(none_pending, timeout=timeout, message=f"{self.name}'s webhook deliveries")


def all_event_types(actor: Actor) -> list[str]:
    return [t["name"] for t in actor.call("webhooks.eventTypes", {}, 200).body["eventTypes"]]


def hook_for(actor: Actor, receiver: Receiver, events: list[str]) -> str:
    hook = actor.call(
        "webhooks.create", {"name": f"{actor.name} receiver", "url": receiver.url, "events": events}, 200
    ).body["webhook"]
    actor.hooks.append(hook["id"])
    return str(hook["id"])


def settle(stack: Any, actors: list[Actor]) -> None:
    """Every change so far audited and its webhook deliveries made."""
    assert stack.poller.wait_idle(15), "the stream poller did not catch up"
    for actor in actors:
        actor.wait_for_deliveries()


# --- strategies -----------------------------------------------------------------------------

N = st.integers(min_value=0, max_value=1 << 16)
TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc",)), min_size=1, max_size=20
)  # one-line fields refuse control characters
# Some fixed names, so that two callers often pick the same alias (each must keep its own).
SHARED_ALIASES = ["crm-4711", "world-contact", "world-object", "Objekt/Ä-1", "ext:1#2"]
ALIAS = st.one_of(st.sampled_from(SHARED_ALIASES), st.from_regex(ALIAS_SCHEMA["pattern"], fullmatch=True)).filter(
    lambda a: not looks_like_id(a)
)
CREATE = st.tuples(
    st.just("create"), st.sampled_from(CREATES), st.lists(TEXT, min_size=3, max_size=3), N, st.none() | ALIAS
)
CHANGES = [
    CREATE,
    CREATE,
    CREATE,
    st.tuples(st.just("update"), N, TEXT),
    st.tuples(st.just("alias"), N, ALIAS),
    st.tuples(st.just("alias"), N, ALIAS),
    st.tuples(st.just("delete"), N),
    st.tuples(st.just("restore"), N),
]
READS = [
    st.tuples(st.just("list"), st.sampled_from(LISTS), N),
    st.tuples(st.just("show"), N),
    st.tuples(st.just("resolve"), N),
]
RARE = [st.tuples(st.just("merge"), N, N), st.tuples(st.just("upload"), N, TEXT), st.tuples(st.just("revert"), N)]
ATTACK = st.tuples(st.just("attack"), N, N)
B_STEP = st.one_of(*CHANGES)
A_STEP = st.one_of(*CHANGES, *READS, *RARE, ATTACK, ATTACK)
INTEGRATION_STEP = st.tuples(st.sampled_from([0, 0, 0, 1, 2]), st.one_of(*CHANGES, *READS, RARE[0]))


# --- tenants --------------------------------------------------------------------------------


class RecordingWorld(World):
    """tests/world.py's one-of-everything, remembered in the caller's model; the world's webhook
    is the caller's own (to a receiver), made before the world so it sees all of it."""

    def __init__(self, tenant: Tenant, actor: Actor) -> None:
        super().__init__(tenant)
        self.actor = actor

    def create(self, op: Operation) -> str:
        if op.name == "webhooks.create":
            return self.actor.hooks[0]
        entity_id = super().create(op)
        etype = by_prefix(prefix_of(entity_id))
        assert etype is not None
        self.actor.entities[entity_id] = Entity(etype.name)
        return entity_id

    def add(self, type_name: str, entity_id: str) -> None:
        if type_name == "webhook":  # the caller's receiver hook: kept apart from the entities, never deleted
            self.ids.setdefault(type_name, entity_id)
            return
        if type_name not in self.ids and ENTITY_TYPES[type_name].aliasable:
            self.actor.aliases[f"world-{type_name}"] = entity_id
        super().add(type_name, entity_id)


@dataclass
class Bystander:
    actor: Actor
    receiver: Receiver
    mcp: McpSession
    tools: Any  # meta.tools.search's answer before anything happened


@pytest.fixture(scope="module")
def bystander(api: Api, stack: Any) -> Iterator[Bystander]:
    """Tenant B: one of every entity (aliased), a webhook for every event type, an MCP session."""
    tenant = api.signup(company="Unbeteiligte Verwaltung GmbH")
    actor = Actor(api, tenant.id, tenant.key, "B", settle=lambda: settle(stack, []))
    actor.learn_key()
    receiver = Receiver().start()
    hook_for(actor, receiver, all_event_types(actor))
    RecordingWorld(tenant, actor).build()
    actor.do_upload(0, "Beleg")
    with McpSession(api.base, tenant.key) as mcp:
        yield Bystander(actor, receiver, mcp, mcp.ok("meta.tools.search", {"query": "contact", "limit": 10}))
    receiver.stop()
    if os.environ.get("PM_PROPERTY_STATS"):
        print("\nisolation properties:", ", ".join(f"{k}: {v}" for k, v in sorted(STATS.items())))


@PROPERTY
@given(b_steps=st.lists(B_STEP, max_size=4), a_steps=st.lists(A_STEP, min_size=6, max_size=20))
@example(  # always run besides the drawn ones: the same alias names as B, an upload, a merge, a rollback, attacks
    b_steps=[("create", "contacts.create", ["Bea", "Bütikofer", "B"], 0, "crm-4711")],
    a_steps=[
        ("create", "contacts.create", ["Anna", "Ågren", "A"], 0, "crm-4711"),
        ("create", "units.create", ["1. OG links", "", ""], 1, "world-object"),
        ("create", "contracts.create", ["", "", ""], 2, "world-contract"),
        ("upload", 0, "Scan 𝄞"),
        ("merge", 0, 1),
        ("attack", 3, 1),
        ("attack", 40, 0),
        ("update", 1, "geändert"),
        ("delete", 0),
        ("restore", 0),
        ("revert", 2),
        ("resolve", 1),
        ("list", "audit.list", 0),
    ],
)
@pytest.mark.slow
def test_a_tenant_never_reveals_or_changes_another_tenants_data(
    api: Api, stack: Any, bystander: Bystander, b_steps: list[tuple[Any, ...]], a_steps: list[tuple[Any, ...]]
) -> None:
    STATS["tenant examples"] += 1
    b = bystander.actor
    for step in b_steps:
        b.run(step)
    settle(stack, [b])
    before = b.snapshot()

    tenant = api.signup(company="Handelnde Verwaltung AG")
    a = Actor(
        api, tenant.id, tenant.key, "A", foreign=set(b.seen), others=[b], target=b, settle=lambda: settle(stack, [])
    )
    a.learn_key()
    receiver = Receiver().start()
    try:
        hook_for(a, receiver, ["*"])
        for step in a_steps:
            a.run(step)
        settle(stack, [a, b])

        b.foreign = set(a.seen)  # from now on every answer B gets is scanned for them
        after = b.snapshot()
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        assert not changed, f"B's view changed: {changed[:5]}"
        b_cannot_reach(b, a, after)
        b_cannot_reach_through_mcp(bystander, a)
        for actor, got in ((b, bystander.receiver), (a, receiver)):
            events = [r.event for r in got.delivered()]
            for request in got.delivered():
                actor.scan(request.body.decode())
            assert {e["tenantId"] for e in events} <= {actor.tenant_id}
            assert {e["data"]["id"] for e in events} <= set(actor.entities) | set(actor.hooks)
        created = {e["data"]["id"] for e in (r.event for r in receiver.delivered()) if e["type"].endswith(".created")}
        assert set(a.entities) <= created  # A's own receiver got A's events: the check above is not vacuous
    finally:
        receiver.stop()


def b_cannot_reach(b: Actor, a: Actor, snapshot: dict[str, Any]) -> None:
    """B with A's ids and aliases: every show 404, every filter finds nothing, aliases name B's own."""
    for entity_id, entity in a.entities.items():
        name, arg = SHOW[entity.type]
        b.call(name, {arg: entity_id}, 404)
    for alias, entity_id in a.aliases.items():
        name, arg = SHOW[a.entities[entity_id].type]
        mine = b.aliases.get(alias)
        answer = b.call(
            name,
            {arg: alias},
            200 if mine and b.entities[mine].live and b.entities[mine].type == a.entities[entity_id].type else 404,
        )
        assert answer.status == 404 or answer.body[arg]["id"] == mine
    b.resolve(sorted(a.aliases)[:100], sorted(a.entities)[:100])
    for name in LISTS:  # A's ids in every reference filter of every list
        props = V2[name].args["properties"]
        for arg, schema in props.items():
            theirs = [i for i, e in a.entities.items() if e.type in ref_types(schema.get("x-ref", []))]
            if not theirs:
                continue
            args: dict[str, Any] = _page(name, 10) if "limit" in props else {}
            args |= _words(name)
            args[arg] = theirs[0]
            for other in V2[name].args.get("required", []):
                if other != arg and props[other].get("x-ref"):
                    args[other] = b.ensure(ref_types(props[other]["x-ref"]), 0)
            answer = b.call(name, args, 200, 404)
            assert answer.status == 404 or answer.body["pagination"]["total"] == 0, (name, args, answer.body)
    (trail,) = [v["auditRecords"] for k, v in snapshot.items() if k.startswith("audit.list ")]
    # besides its entities, B's trail holds its own account's records (sign-up, keys)
    assert {r["entityId"] for r in trail if r["entityType"] not in ACCOUNT_TYPES} <= set(b.entities) | set(b.hooks)
    assert {r["entityId"] for r in trail if r["entityType"] == "tenant"} <= {b.tenant_id}
    assert {r["tenantId"] for r in trail} <= {b.tenant_id}
    for record in sorted(t for t in a.seen if t.startswith("aud_"))[:5]:
        b.call("audit.show", {"auditRecord": record}, 404)
    for batch in a.batches:  # presigned uploads: the batch and its documents (with their download links) stay A's
        b.call("documents.uploads.progress", {"batch": batch, "limit": 10, "offset": 0}, 404)
    b.call("apikeys.requests.list", {"apiKey": a.key_id, "limit": 10, "offset": 0}, 404)
    b.call("webhooks.show", {"webhook": a.hooks[0]}, 404)
    b.call("webhooks.deliveries.list", {"webhook": a.hooks[0], "limit": 10, "offset": 0}, 404)


def b_cannot_reach_through_mcp(bystander: Bystander, a: Actor) -> None:
    """The same through MCP: a tool run or a pipeline step with A's ids fails with 404."""
    b, mcp = bystander.actor, bystander.mcp

    def run(tool: str, arguments: dict[str, Any]) -> Any:
        result = mcp.call(tool, arguments)
        b.scan(json.dumps(result.structured_content), json.dumps(arguments))
        return result

    targets = {e.type: i for i, e in a.entities.items()}  # one of each type A has
    for etype, entity_id in sorted(targets.items())[:4]:
        name, arg = SHOW[etype]
        result = run("meta.tool.execute", {"name": name, "arguments": {arg: entity_id}})
        assert result.is_error and result.structured_content["error"]["status"] == 404, result.structured_content
    for etype, entity_id in sorted(targets.items())[:2]:
        changes: list[tuple[str, dict[str, Any]]] = (
            [(UPDATE[etype][0], {UPDATE[etype][1]: {"id": entity_id, "version": 1}})] if etype in UPDATE else []
        )
        changes += [(DELETE[etype][0], {DELETE[etype][1]: entity_id})] if etype in DELETE else []
        for name, arguments in changes:
            result = run("meta.tool.execute", {"name": name, "arguments": arguments})
            assert result.is_error and result.structured_content["error"]["status"] in (400, 404), (
                result.structured_content
            )
    for etype, entity_id in sorted(targets.items())[:2]:
        name, arg = SHOW[etype]
        steps = [
            {"tool": "contacts", "arguments": {"limit": 1000, "offset": 0}, "as": "mine"},
            {"tool": name, "arguments": {arg: {"$expr": f"'{entity_id}'"}}, "as": "theirs"},
        ]
        result = run("meta.pipeline.execute", {"steps": steps})
        assert result.is_error and result.structured_content["error"]["failedStep"] == {
            "index": 1,
            "tool": name,
            "status": 404,
        }
    if a.aliases:
        resolved = run(
            "meta.pipeline.execute",
            {"steps": [{"tool": "aliases.resolve", "arguments": {"aliases": sorted(a.aliases)[:100]}}]},
        )
        assert {e["id"] for e in resolved.structured_content["last"]["aliases"]} <= set(b.entities)
    assert mcp.ok("meta.tools.search", {"query": "contact", "limit": 10}) == bystander.tools


@pytest.mark.slow
def test_every_reference_argument_refuses_the_other_tenants_ids(api: Api, stack: Any, bystander: Bystander) -> None:
    """Not drawn but walked: every attack of ATTACKS once by id and once by alias (where the
    argument takes one), and B's Idempotency-Key replayed by A; B's view is the same afterwards."""
    b = bystander.actor
    body = {"contact": {"personType": "natural", "lastName": "Doppelt"}}
    theirs = b.api.command("contacts.create", body, key=b.key, headers={"Idempotency-Key": "isolation-1"})
    assert theirs.status == 200
    b.entities[theirs.body["contact"]["id"]] = Entity("contact")
    settle(stack, [b])
    before = b.snapshot()

    tenant = api.signup(company="Neugierige Verwaltung KG")
    a = Actor(
        api, tenant.id, tenant.key, "A", foreign=set(b.seen), others=[b], target=b, settle=lambda: settle(stack, [])
    )
    a.learn_key()
    idle_hook = {"name": "A", "url": "https://a.example.org/hook", "events": ["contact.created"], "enabled": False}
    a.hooks.append(a.call("webhooks.create", idle_hook, 200).body["webhook"]["id"])
    mine = api.command(
        "contacts.create", body, key=a.key, headers={"Idempotency-Key": "isolation-1"}
    )  # runs afresh for A
    a.scan(mine.raw.decode())
    assert mine.status == 200 and mine.body["contact"]["id"] != theirs.body["contact"]["id"]
    skipped = []
    for attack in ATTACKS:
        for m in (0, 1):
            try:
                a.attack(attack, 0, m)
                STATS["attacks walked"] += 1
            except Skip:
                skipped.append(attack)
    assert not skipped, skipped
    settle(stack, [b])
    b.foreign = set(a.seen)
    assert b.snapshot() == before


# --- integrations of one tenant -------------------------------------------------------------


@PROPERTY
@given(steps=st.lists(INTEGRATION_STEP, min_size=6, max_size=20))
@example(  # always run: one alias name in every alias space, and a merge of a contact others have aliased
    steps=[
        (0, ("create", "contacts.create", ["Erste", "Ä", ""], 0, "crm-4711")),
        (1, ("create", "contacts.create", ["Zweite", "ö", ""], 0, "crm-4711")),
        (2, ("alias", 0, "crm-4711")),
        (1, ("alias", 0, "ext-1")),
        (0, ("merge", 0, 0)),
        (1, ("resolve", 0)),
        (2, ("show", 0)),
        (0, ("list", "contacts", 0)),
    ]
)
@pytest.mark.slow
def test_integrations_of_one_tenant_share_entities_but_never_aliases(
    api: Api, stack: Any, steps: list[tuple[int, tuple[Any, ...]]]
) -> None:
    STATS["integration examples"] += 1
    tenant = api.signup(company="Zwei Integrationen GmbH")
    first, second = onboard(tenant, allowed=INTEGRATION_SCOPES), onboard(tenant, allowed=INTEGRATION_SCOPES)
    shared: dict[str, Entity] = {}
    actors = [
        Actor(api, tenant.id, key, name, entities=shared)
        for name, key in (("I1", first.key), ("I2", second.key), ("own", tenant.key))
    ]
    for actor in actors:
        actor.others = [x for x in actors if x is not actor]
        actor.peers = actors
        actor.admin = actor is actors[2]
        actor.settle = lambda: settle(stack, [])
        actor.learn_key()
    receiver = Receiver().start()
    try:
        hook_for(actors[2], receiver, ["*"])
        for who, step in steps:
            actors[who].run(step)
        settle(stack, actors[2:])

        views = [view_of(actor) for actor in actors]
        assert views[0] == views[1] == views[2]  # the entities are the tenant's: same data for every caller
        for actor in actors:
            actor.resolve(sorted({a for x in actors for a in x.aliases})[:100], sorted(shared)[:100])
            for other in actor.others:
                for alias, entity_id in other.aliases.items():
                    if alias not in actor.aliases:  # another integration's alias names nothing here
                        name, arg = SHOW[shared[entity_id].type]
                        actor.call(name, {arg: alias}, 404)
        trails = [strip(actor.call("audit.list", {"limit": 1000, "offset": 0}, 200).body) for actor in actors]
        followed = [audit_cursor(trail.pop("next")) for trail in trails]  # the last record each one saw
        # one trail per tenant: its entities' records are the same for every reader; the account's
        # records (keys, integrations, tenant, members) only the tenant's admin key sees (issue 30)
        own = [r for r in trails[2]["auditRecords"] if r["entityType"] not in ACCOUNT_TYPES]
        assert own and len(own) < len(trails[2]["auditRecords"])
        for trail, last in zip(trails[:2], followed[:2], strict=True):
            assert trail == {"pagination": {**trails[2]["pagination"], "total": len(own)}, "auditRecords": own}
            assert last == own[-1]["id"]
        for record in trails[0]["auditRecords"]:
            for state in (record.get("before"), record.get("after")):
                assert state is None or "aliases" not in state["data"], record
        for event in (r.event for r in receiver.delivered()):
            assert event["tenantId"] == tenant.id and "aliases" not in event["data"], event
        with McpSession(api.base, second.key) as mcp:
            listed = mcp.ok("meta.tool.execute", {"name": "aliases.list", "arguments": {"limit": 1000, "offset": 0}})
            assert {(e["alias"], e["id"]) for e in listed["aliases"]} == set(actors[1].aliases.items())
            for alias, entity_id in sorted(actors[0].aliases.items())[:3]:
                if alias not in actors[1].aliases:
                    name, arg = SHOW[shared[entity_id].type]
                    result = mcp.execute(name, {arg: alias})
                    assert result.is_error and result.structured_content["error"]["status"] == 404  # type: ignore[index]
    finally:
        receiver.stop()


def view_of(actor: Actor) -> dict[str, Any]:
    """What the caller sees of the tenant's entities: its own aliases exactly (checked here),
    and the rest (returned: the same for every caller)."""
    listed = {
        (e["alias"], e["id"], e["type"])
        for e in actor.call("aliases.list", {"limit": 1000, "offset": 0}, 200).body["aliases"]
    }
    assert listed == {(a, i, actor.entities[i].type) for a, i in actor.aliases.items()}, actor.name
    view: dict[str, Any] = {}
    for entity_id in actor.entities:
        shown = actor.show(entity_id, entity_id)
        view[entity_id] = strip({k: v for k, v in shown.items() if k != "aliases"}) if shown else None
    for name in LISTS:
        if not set(V2[name].args.get("required", [])) - {"limit", "offset"} and PLURAL.get(_list_key(name)) not in (
            None,
            "webhook",
        ):
            actor.do_list(name, 0)
    return view
