"""The lifecycle every entity type goes through, derived from the registry (issue 50: one sweep
over every type instead of a hand-written spec per type): made by its create command's example
(references filled from a world of one entity of each type, tests/world.py), given an alias,
shown by it, found in its list, changed by its update command's example, deleted (404 by alias
and by id, gone from its list), restored (shown again, by alias). A new entity type is in the
sweep by being declared; what is particular to a type stays in its own test file."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from chalicelib.entities import ENTITY_TYPES, ref_types
from chalicelib.registry import REGISTRY, Operation
from chalicelib.resources import load_all
from tests.client import Api
from tests.world import OWN_TESTS, World, created_type, is_create

load_all()


def _single_ref(op: Operation) -> str | None:
    """The entity type of an operation whose one required argument is a reference."""
    required = op.args.get("required") or []
    if len(required) != 1:
        return None
    x_ref = op.args["properties"][required[0]].get("x-ref")
    return ref_types(x_ref)[0] if x_ref else None


def _one(found: list[Operation], what: str, type_name: str) -> Operation:
    assert found, f"{type_name} has no {what}"
    return found[0]


def lifecycle_of(type_name: str) -> dict[str, Operation | None]:
    """The operations of a type's lifecycle, by what the registry declares of them."""
    ops = list(REGISTRY.values())
    plural = ENTITY_TYPES[type_name].plural

    def takes(op: Operation, suffixes: tuple[str, ...]) -> bool:
        return op.name.endswith(suffixes) and _single_ref(op) == type_name

    def updates(op: Operation) -> bool:
        payloads = [p for p in op.args.get("properties", {}).values() if isinstance(p, dict)]
        return op.name.endswith(".update") and any(
            (p.get("properties") or {}).get("id", {}).get("x-ref") == type_name for p in payloads
        )

    lists = [op for op in ops if op.kind == "query" and plural in op.result.get("properties", {})]
    return {
        "create": _one(
            [op for op in ops if is_create(op) and op.name not in OWN_TESTS and created_type(op) == type_name],
            "create command",
            type_name,
        ),
        "show": _one([op for op in ops if op.kind == "query" and takes(op, (".show", ".detail"))], "show", type_name),
        "update": _one([op for op in ops if updates(op)], "update command", type_name),
        "delete": _one([op for op in ops if op.destructive and takes(op, (".delete", ".revoke"))], "delete", type_name),
        "restore": _one([op for op in ops if takes(op, (".restore",))], "restore command", type_name),
        "list": lists[0] if lists else None,
    }


CREATABLE = sorted(
    name
    for name in ENTITY_TYPES
    if any(is_create(op) and op.name not in OWN_TESTS and created_type(op) == name for op in REGISTRY.values())
)


@pytest.fixture(scope="module")
def world(api: Api) -> World:
    built = World(api.signup(company="Lebenslauf GmbH"))
    built.build()
    return built


def _arg(op: Operation) -> str:
    (arg,) = op.args["required"]
    return str(arg)


def _list_args(op: Operation, entity: dict[str, Any]) -> dict[str, Any] | None:
    """The list's required arguments for one entity: paging, and each reference argument from the
    entity's field that references the same type (None when one cannot be filled so)."""
    args: dict[str, Any] = {}
    fields = ENTITY_TYPES[created_type_of(entity)].fields
    for name in op.args.get("required") or []:
        schema = op.args["properties"][name]
        if name in ("limit", "offset"):
            args[name] = 100 if name == "limit" else 0
        elif schema.get("x-ref"):
            wanted = ref_types(schema["x-ref"])
            source = next((f for f, s in fields.items() if s.get("x-ref") and ref_types(s["x-ref"]) == wanted), None)
            if source is None or not entity.get(source):
                return None
            args[name] = entity[source]
        else:
            return None
    if "limit" in op.args.get("properties", {}) and "limit" not in args:
        args.update(limit=100, offset=0)
    return args


def created_type_of(entity: dict[str, Any]) -> str:
    from chalicelib.entities import by_prefix
    from chalicelib.ids import prefix_of

    etype = by_prefix(prefix_of(entity["id"]))
    assert etype is not None, entity["id"]
    return etype.name


def _listed(world: World, op: Operation | None, entity: dict[str, Any]) -> bool | None:
    """Whether the entity is on its list (None: the type has no list one entity fills)."""
    args = _list_args(op, entity) if op else None
    if op is None or args is None:
        return None
    answer = world.tenant.get(op.name, args)
    return entity["id"] in [e["id"] for e in answer[ENTITY_TYPES[created_type_of(entity)].plural]]


def _update_arg(op: Operation, type_name: str) -> str:
    """The argument of an update command that names the entity (`{"unit": {"id": ...}}`)."""
    (arg,) = [
        a
        for a, schema in op.args["properties"].items()
        if (schema.get("properties") or {}).get("id", {}).get("x-ref") == type_name
    ]
    return str(arg)


def _answer_key(op: Operation) -> str:
    (key,) = op.result["properties"]
    return str(key)


def _plain_fields(op: Operation, sent: dict[str, Any], type_name: str) -> dict[str, Any]:
    """The fields of an example payload that come back as sent: no references (sent as aliases,
    answered as ids), no values the service checks and normalises (`x-checked`: an IBAN comes
    back compact), no placeholders. The payload is the argument named as the answer (`unit`), or
    the arguments themselves where they are the entity's fields (webhooks.create)."""
    fields = ENTITY_TYPES[type_name].fields
    arg = _answer_key(op)
    if isinstance(sent.get(arg), dict) and op.args["properties"][arg].get("properties"):
        body, schema = sent[arg], op.args["properties"][arg]["properties"]
    else:
        body, schema = {k: v for k, v in sent.items() if k in fields}, op.args["properties"]
    return {
        k: v
        for k, v in body.items()
        if k in schema
        and k in fields
        and "x-ref" not in json.dumps(schema[k])
        and "x-checked" not in json.dumps(schema[k])
        and not (isinstance(v, str) and v.startswith("<"))
    }


@pytest.mark.parametrize("type_name", CREATABLE)
def test_every_entity_type_lives_through_create_show_list_update_delete_restore(world: World, type_name: str) -> None:
    ops = lifecycle_of(type_name)
    create, show, update, delete, restore = (ops[k] for k in ("create", "show", "update", "delete", "restore"))
    assert create and show and update and delete and restore
    tenant, etype = world.tenant, ENTITY_TYPES[type_name]

    sent = world.fill(create)
    made = tenant.command(create.name, sent)
    assert made.status == 200, (create.name, made.body)
    (entity,) = [v for v in made.body.values() if isinstance(v, dict) and "id" in v]
    ref = entity["id"]
    if etype.aliasable:
        ref = f"{type_name}-{uuid.uuid4().hex[:8]}"
        tenant.ok("aliases.upsert", {"entries": [{"alias": ref, "id": entity["id"], "type": type_name}]})

    shown = tenant.get(show.name, {_arg(show): ref})[_answer_key(show)]
    assert shown["id"] == entity["id"] and shown["version"] == 1
    assert shown["aliases"] == ([ref] if etype.aliasable else [])
    for name, value in _plain_fields(create, sent, type_name).items():
        assert shown.get(name) == value, (create.name, name, shown.get(name), value)
    assert _listed(world, ops["list"], shown) in (True, None), ops["list"]

    changes = world.fill(update)
    payload_arg = _update_arg(update, type_name)
    changes[payload_arg]["id"] = ref
    updated = tenant.command(update.name, changes)
    assert updated.status == 200, (update.name, updated.body)
    assert updated.body[payload_arg]["version"] == 2
    for name, value in _plain_fields(update, changes, type_name).items():
        assert updated.body[payload_arg].get(name) == value, (update.name, name)

    deleted = tenant.ok(delete.name, {_arg(delete): ref})["deleted"]
    assert deleted["type"] == type_name and deleted["id"] == entity["id"] and deleted["deletedAt"]
    assert tenant.query(show.name, {_arg(show): ref}).status == 404
    assert tenant.query(show.name, {_arg(show): entity["id"]}).status == 404
    assert _listed(world, ops["list"], shown) in (False, None)

    tenant.ok(restore.name, {_arg(restore): ref})
    again = tenant.get(show.name, {_arg(show): ref})[_answer_key(show)]
    assert again["id"] == entity["id"] and again.get("deletedAt") is None
    assert _listed(world, ops["list"], again) in (True, None)
