"""Schema fuzzing: schemathesis generates requests for every operation of the service's own
OpenAPI document (as a signup key, which holds every scope, downloads it) and checks every
answer against that document.

Held for every generated request, valid or not:
- no 5xx;
- the status is one the operation declares, with the declared content type, and the body
  matches the schema declared for it (the registry's result schema for 200, `Problem` for errors);
- a request that violates the schema is refused with a 4xx (schemathesis' negative data rejection);
- every 4xx is application/problem+json with a `code`.

Random ids name nothing, so most generated requests would end in 404 and never reach a handler.
Before it is sent, a positive case therefore often has its references (the arguments marked
`x-ref`, plus the few id arguments of keys and audit records) pointed at live entities of a
World (tests/world.py): by id or by alias, and for destructive operations at an entity made for
that case.

The stateful run follows OpenAPI links, added here to the downloaded document: from each create
(and each delete) to every operation that takes the entity it answers, so sequences such as
create -> update -> delete -> restore -> show run with ids the service itself handed out.

How many: the Hypothesis profile (HYPOTHESIS_PROFILE, tests/profiles.py) sets the generated cases
per operation, positive and negative mixed, and the stateful scenarios of up to 10 steps each: 5
and 5 on `ci` (`make test-long`), 200 and 100 on `nightly` (`make fuzz`). Marked `fuzz`: not part of
`make test`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import FlakyStrategyDefinition
from schemathesis import Case, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from chalicelib import registry, resources
from chalicelib.entities import ENTITY_TYPES, ref_types
from chalicelib.registry import Operation
from chalicelib.schemas import map_refs
from tests.client import Api, Tenant
from tests.eventually import eventually
from tests.profiles import PROFILE
from tests.world import World, created_type, is_create

pytestmark = pytest.mark.fuzz
SCENARIOS = PROFILE.scenarios
SPEC = "/propertymanagement/v2/query/openapi.spec"

# Every v2 operation: a signup key holds every scope, so its document lists them all (asserted below).
OPERATIONS = sorted(op.name for op in resources.load_all().values() if op.surface == "v2")
SETTINGS: dict[str, Any] = {"deadline": None, "database": None, "suppress_health_check": list(HealthCheck)}


@schemathesis.check
def problem_json(ctx: Any, response: schemathesis.Response, case: Case) -> bool | None:
    """Every 4xx answer is RFC 9457 problem+json carrying the stable `code`."""
    if 400 <= response.status_code < 500:
        content_type = response.headers.get("content-type", [""])[0]
        assert content_type.startswith("application/problem+json"), (
            f"{response.status_code} answered with {content_type!r}"
        )
        body = json.loads(response.content)
        assert isinstance(body, dict) and isinstance(body.get("code"), str) and body["code"], (
            f"problem without code: {body!r}"
        )
    return None


# Left out on purpose: positive_data_acceptance (a request valid by schema may still rightly be
# refused: an unknown id is 404, a taken alias 409, a date range the wrong way round 400); the
# checks that replay a request without the key or with other methods (ignored_auth,
# unsupported_method, missing_required_header, allow_header_conformance): authentication and 405
# have their own tests (test_auth.py, test_http_contract.py); and use_after_free /
# ensure_resource_availability, which look for DELETE and GET on one path: here a delete is a POST
# command, and the links below cover those sequences instead.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
    problem_json,
]


def items_refused_alone(op: Operation) -> Any:
    """negative_data_rejection for an operation whose items are checked one by one (an upsert,
    registry.ITEMS_CHECKED_ALONE): a body that breaks the call's own schema is refused with a
    4xx; an accepted one answers every item that breaks the items' schema `failed`, with
    `validation_failed`."""
    from chalicelib.validation import find_errors

    items_schema = op.args["properties"][op.items_checked_alone]["items"]

    def check(ctx: Any, response: schemathesis.Response, case: Case) -> bool | None:
        body = case.body if isinstance(case.body, dict) else None
        if body is None or find_errors(f"fuzz:{op.name}", op.checked_args, body):
            assert 400 <= response.status_code < 500, (
                f"a body breaking the call's schema answered {response.status_code}"
            )
            return None
        if response.status_code == 200:
            results = json.loads(response.content)["results"]
            for index, item in enumerate(body[op.items_checked_alone]):
                if find_errors(f"fuzz:{op.name}#item", items_schema, item):
                    assert results[index]["result"] == "failed", (index, item, results[index])
                    assert results[index]["code"] == "validation_failed", results[index]
        return None

    return check


def checks_of(op: Operation) -> list[Any]:
    if op.items_checked_alone is None:
        return CHECKS
    return [c for c in CHECKS if c is not negative_data_rejection] + [items_refused_alone(op)]


@dataclass
class Target:
    """What a generated case's references may be pointed at."""

    world: World
    others: dict[str, str] = field(default_factory=dict)  # argument name -> a live id it takes (no x-ref)

    def live(self, x_ref: Any, how: str, fresh: bool, deleted: bool) -> str | None:
        for type_name in ref_types(x_ref):
            if type_name not in self.world.ids:
                continue
            if deleted or fresh:
                return self.fresh(type_name, deleted=deleted)
            if how == "alias" and ENTITY_TYPES[type_name].aliasable:
                return self.world.ref(type_name)
            return self.world.ids[type_name]
        return None

    def fresh(self, type_name: str, *, deleted: bool) -> str | None:
        """A new entity of the type (soft-deleted, for the restore operations). None when it cannot
        be made: fuzzed updates change the world too (archive its process, say)."""
        try:
            entity_id = self.world.fresh(type_name)
        except AssertionError:
            return None
        if deleted:
            (remover,) = [
                op
                for op in registry.REGISTRY.values()
                if op.destructive
                and op.name.endswith((".delete", ".revoke"))
                and [s.get("x-ref") for s in op.args["properties"].values()] == [type_name]
            ]
            answer = self.world.tenant.command(remover.name, {next(iter(remover.args["properties"])): entity_id})
            if answer.status != 200:
                return None
        return entity_id

    def aim(self, op: Operation, case: Case, how: str, keep: frozenset[str] | set[str] = frozenset()) -> None:
        """Point a positive case's references at live entities (in place of the generated strings,
        but not of those in `keep`).

        A live id or alias is as valid as the string it replaces (only the first item of an array
        is replaced, so `uniqueItems` holds too): the case stays positive. The containers are edited
        in place before the call, which schemathesis takes as the case's starting state; assigning
        them would make it re-judge the case, and it cannot judge a multipart body holding a file's
        bytes (it would call a valid upload negative)."""
        fresh = op.destructive  # a delete, merge or revoke gets its own victims; the world stays whole
        deleted = op.name.endswith(".restore")  # and a restore its own deleted entity

        def swap(path: str, x_ref: Any, value: str) -> str:
            if value in keep or (path.endswith("]") and not path.endswith("[0]")):
                return value
            return self.live(x_ref, how, fresh, deleted) or value

        values = case.query if op.kind == "query" else case.body
        if not isinstance(values, dict):
            return
        aimed = map_refs(op.args, copy.deepcopy(values), "", swap)
        for name, live in self.others.items():
            if isinstance(aimed.get(name), str) and aimed[name] not in keep:
                aimed[name] = live
        values.clear()
        values.update(aimed)


@dataclass
class Fuzz:
    schema: Any
    target: Target
    # audit.revert runs as a tenant of its own with a short history: a filter such as
    # {"from": "1970-01-01T00:00:00Z"} is a valid request to roll back everything, which in the
    # fuzzing tenant (thousands of changes in the long run) would take minutes and undo the world.
    revert_auth: dict[str, str]
    revert_target: Target


@pytest.fixture(scope="module")
def fuzz(api: Api) -> Fuzz:
    # One tenant for the module: building its world and loading the document once is what keeps
    # the run short (the `tenant` fixture is per test).
    tenant = api.signup(company="Fuzz Hausverwaltung GmbH")
    auth = {"Authorization": f"Bearer {tenant.key}"}
    answer = api.request("GET", SPEC, headers=auth)
    assert answer.status == 200, answer.body
    document = add_links(answer.body)
    # Only the links below: schemathesis' own inference guesses links from field names, and in
    # this interface, where every path is /query/<name> or /command/<name>, it guesses wrong.
    # A request may take as long as API Gateway allows one (29 s), not schemathesis' default 10 s.
    stateful = {"inference": {"algorithms": []}}
    config = SchemathesisConfig.from_dict(
        {"base-url": api.base, "headers": auth, "request-timeout": 29, "phases": {"stateful": stateful}}
    )
    schema = schemathesis.openapi.from_dict(document, config=config)
    world = World(tenant)
    world.build()
    spare_key = tenant.ok("apikeys.create", {"apiKey": {"agentName": "fuzz-spare", "scopes": ["read"]}})["apiKey"]["id"]
    audit_record = _audit_records(tenant)[0]
    # webhooks.deliveries.retry `delivery` and documents.uploads.progress `batch` stay random (404):
    # their happy paths need a failed delivery or an upload batch (test_webhook_delivery.py,
    # test_document_uploads.py).
    others = {"apiKey": spare_key, "auditRecord": audit_record, "entityId": world.ids["contact"]}
    reverter = api.signup(company="Fuzz Rückabwicklung GmbH")
    person = reverter.contact(lastName="Zurück")
    reverter.ok("contacts.update", {"contact": {"id": person["id"], "firstName": "Erika"}})
    changes = _audit_records(reverter, person["id"], at_least=2)
    revert_target = Target(World(reverter), {"auditRecord": changes[-1], "entityId": person["id"]})
    return Fuzz(schema, Target(world, others), {"Authorization": f"Bearer {reverter.key}"}, revert_target)


def test_the_document_lists_every_operation(fuzz: Fuzz) -> None:
    listed = sorted(result.ok().definition.raw["operationId"] for result in fuzz.schema.get_all_operations())
    assert listed == OPERATIONS


@pytest.mark.parametrize("name", OPERATIONS)
def test_operation(fuzz: Fuzz, name: str) -> None:
    op = registry.REGISTRY[name]
    operation = fuzz.schema.find_operation_by_id(name)
    target, headers = (fuzz.revert_target, fuzz.revert_auth) if name == "audit.revert" else (fuzz.target, None)
    cases = st.one_of(operation.as_strategy(GenerationMode.POSITIVE), operation.as_strategy(GenerationMode.NEGATIVE))

    @settings(**SETTINGS)  # max_examples: the profile's
    @given(case=cases, how=st.sampled_from(["as generated", "id", "alias"]))
    def run(case: Case, how: str) -> None:
        # Negative cases stay as generated: validation runs before any lookup, so a live
        # reference would change nothing about their answer.
        if how != "as generated" and case.meta is not None and case.meta.generation.mode.is_positive:
            target.aim(op, case, how)
        case.call_and_validate(checks=checks, headers=headers)

    checks = checks_of(op)
    run()


@pytest.mark.slow
def test_stateful(fuzz: Fuzz) -> None:
    machine = fuzz.schema.as_state_machine()
    failures: list[str] = []
    scenarios: list[int] = []

    class Checked(machine):  # type: ignore[misc, valid-type]
        """The generated machine, with this file's checks; a step's references that no earlier step
        answered (a scenario's first create, say) are pointed at the world, as in test_operation."""

        def setup(self) -> None:
            super().setup()
            scenarios.append(1)
            self.answered: set[str] = set()

        def before_call(self, case: Case) -> None:
            super().before_call(case)
            if case.meta is not None and case.meta.generation.mode.is_positive:
                fuzz.target.aim(
                    registry.REGISTRY[case.operation.definition.raw["operationId"]], case, "id", keep=self.answered
                )

        def after_call(self, response: Any, case: Case) -> None:
            super().after_call(response, case)
            if response.status_code == 200:
                self.answered.update(_ids(response.json()))

        def validate_response(self, response: Any, case: Case, additional_checks: Any = None, **kwargs: Any) -> None:
            try:
                case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs or None)
            except Exception as error:
                failures.append(str(error))
                raise

    # Generation only, as schemathesis runs its state machines: a replay (shrinking) against a
    # live service that has moved on cannot take the same steps. For the same reason Hypothesis may
    # stop a run when a step it replays answers differently than before (FlakyStrategyDefinition);
    # schemathesis' own runner then carries on, and so does this loop, until the scenarios ran.
    for _ in range(10):
        remaining = SCENARIOS - len(scenarios)
        if remaining <= 0:
            break
        try:
            Checked.run(
                settings=settings(max_examples=remaining, stateful_step_count=10, phases=[Phase.generate], **SETTINGS)
            )
        except FlakyStrategyDefinition:
            assert not failures, "\n\n".join(failures)
    assert not failures, "\n\n".join(failures)


def add_links(document: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI links from every operation that answers an entity (creates: `/<name>/id`; deletes:
    `/deleted/id`) to every operation that takes one of its type, at each argument that does."""
    ops = [registry.REGISTRY[name] for name in OPERATIONS]
    for source in ops:
        answered = list(source.result.get("properties", {}))
        if is_create(source) and len(answered) == 1:  # documents.uploads.create hands out upload slots
            kind, expression = created_type(source), f"$response.body#/{answered[0]}/id"
        elif source.destructive and source.name.endswith((".delete", ".revoke")):
            (arg,) = source.args["properties"].values()
            kind, expression = arg["x-ref"], "$response.body#/deleted/id"
        else:
            continue
        if kind is None:  # apikeys.create: keys are no entities, nothing takes one by reference
            continue
        links = {}
        for target in ops:
            paths = [path for path, x_ref in _ref_paths(target.args, ()) if kind in ref_types(x_ref)]
            if not paths:
                continue
            if target.kind == "query":
                links[target.name] = {"operationId": target.name, "parameters": {path[0]: expression for path in paths}}
            elif not target.accepts_files:  # an upload's body is a multipart form with the file: nothing to merge into
                body: dict[str, Any] = {}
                for path in paths:
                    node = body
                    for part in path[:-1]:
                        node = node.setdefault(part, {})
                    node[path[-1]] = expression
                links[target.name] = {"operationId": target.name, "requestBody": body}
        response = document["paths"][source.path][source.method.lower()]["responses"]["200"]
        response["links"] = links
    return document


def _ref_paths(schema: dict[str, Any], at: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, x-ref) of every reference argument outside arrays."""
    if "x-ref" in schema:
        yield at, schema["x-ref"]
    for name, sub in schema.get("properties", {}).items():
        yield from _ref_paths(sub, (*at, name))


def _audit_records(tenant: Tenant, entity_id: str | None = None, at_least: int = 1) -> list[str]:
    """Ids of the tenant's audit records (of one entity), oldest first, once the stream wrote them."""
    params: dict[str, Any] = {"limit": 100, "offset": 0, **({"entityId": entity_id} if entity_id else {})}

    def enough() -> list[str]:
        found = [record["id"] for record in tenant.get("audit.list", params)["auditRecords"]]
        assert len(found) >= at_least, f"{len(found)} audit records appeared, {at_least} expected"
        return found

    return eventually(enough, timeout=15, message=f"{at_least} audit records")


def _ids(value: Any) -> Iterator[str]:
    """Every `id` in a JSON answer."""
    if isinstance(value, dict):
        if isinstance(value.get("id"), str):
            yield value["id"]
        for item in value.values():
            yield from _ids(item)
    elif isinstance(value, list):
        for item in value:
            yield from _ids(item)
