"""A world of one live entity of every type, built over HTTP from the create operations'
own documented examples (the catalogue test and the catalogue benchmark use it)."""

from __future__ import annotations

from typing import Any

from chalicelib import relative_time
from chalicelib.entities import ENTITY_TYPES, by_prefix, ref_types
from chalicelib.ids import prefix_of
from chalicelib.registry import REGISTRY, Operation
from chalicelib.schemas import map_refs
from tests.client import Tenant

# Operations whose example cannot run in a shared world; they are tested on their own.
OWN_TESTS = {
    "signup",
    "version",
    "contacts.merge",
    "apikeys.create",
    "apikeys.disable",
    "apikeys.requests.list",  # the log of a real key: tests/functional/test_accounts.py
    "apikeys.show",  # a real key: tests/functional/test_accounts.py
    "aliases.upsert",
    "audit.show",
    "audit.revert",
    "webhooks.deliveries.retry",
    "documents.uploads.create",  # hands out presigned uploads: tests/functional/test_document_uploads.py
    "documents.uploads.progress",
    "exports.create",  # makes an export, not an entity: tests/functional/test_exports.py
    "exports.show",
}


def is_create(op: Operation) -> bool:
    return op.kind == "command" and (op.name.endswith((".create", ".assign", ".upload")) or ".create." in op.name)


def is_destructive(op: Operation) -> bool:
    return op.destructive


class World:
    """One live entity of every type, made from the create operations' own examples. Each
    gets an alias, and examples are filled in with aliases wherever the type takes them, so
    running them proves alias resolution on every reference argument they use."""

    def __init__(self, tenant: Tenant) -> None:
        self.tenant = tenant
        self.ids: dict[str, str] = {}

    def ref(self, type_name: str) -> str:
        entity_id = self.ids[type_name]
        return f"world-{type_name}" if ENTITY_TYPES[type_name].aliasable else entity_id

    def fill(self, op: Operation) -> dict[str, Any]:
        def fill_ref(path: str, x_ref: Any, value: str) -> str:
            for type_name in ref_types(x_ref):
                if type_name in self.ids:
                    return self.ref(type_name)
            raise LookupError(f"{op.name}: no {x_ref} in the world yet ({path})")

        filled: dict[str, Any] = map_refs(op.args, relative_time.resolve(op.example or {}), "", fill_ref)
        return filled

    def create(self, op: Operation) -> str:
        answer = self.tenant.command(op.name, self.fill(op))
        assert answer.status == 200, (op.name, answer.body)
        (entity,) = [v for v in answer.body.values() if isinstance(v, dict) and "id" in v]
        return str(entity["id"])

    def add(self, type_name: str, entity_id: str) -> None:
        if type_name in self.ids:
            return
        self.ids[type_name] = entity_id
        if ENTITY_TYPES[type_name].aliasable:
            self.tenant.ok(
                "aliases.upsert", {"entries": [{"alias": f"world-{type_name}", "id": entity_id, "type": type_name}]}
            )

    def build(self) -> None:
        pending = [op for op in REGISTRY.values() if is_create(op) and op.name not in OWN_TESTS]
        while pending:
            progressed = []
            for op in pending:
                try:
                    entity_id = self.create(op)
                except LookupError:
                    continue
                etype = by_prefix(prefix_of(entity_id))
                assert etype is not None
                self.add(etype.name, entity_id)
                progressed.append(op)
            assert progressed, f"cannot create: {[op.name for op in pending]}"
            pending = [op for op in pending if op not in progressed]

    def fresh(self, type_name: str) -> str:
        """A new entity of the type that nothing depends on."""
        creator = next(
            o for o in REGISTRY.values() if is_create(o) and o.name not in OWN_TESTS and created_type(o) == type_name
        )
        return self.create(creator)


def created_type(op: Operation) -> str | None:
    (key,) = list(op.result.get("properties", {}))
    description = op.result["properties"][key].get("description", "")
    if key in ENTITY_TYPES:
        return key
    return next((name for name in ENTITY_TYPES if description == f"The created {name}."), None)
