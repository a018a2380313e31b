"""No request costs more than it should (issue 16, finding 1): every operation, driven with
worst-case arguments through HTTP, answers within a second (an upsert, which checks up to 500
items one by one, within two).

Worst case, per argument schema: strings at their maximum length of the characters that make
a backtracking pattern retry (`a@` + dots + `@` for the e-mail pattern the security review
found quadratic), strings far past it, arrays at and past their maximum count, and a value
nested as deep as the body allows where the schema takes none. The body stays within the
1 MiB limit (what the service reads at all). Each request is timed from the client: a
quadratic check of a few hundred kilobytes takes many seconds, a linear one milliseconds."""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest

import chalicelib.resources  # noqa: F401 - registers every operation
from chalicelib import config, registry
from chalicelib.registry import Operation
from tests.client import Answer, Api, Tenant

# Half a minute of CPU over the catalogue: in `make test-long` (tests/tiers.py).
pytestmark = pytest.mark.slow

WITHIN = 1.0  # seconds per request (the bound)
# An upsert checks each of up to 500 items against its entity's schema on its own (registry
# ITEMS_CHECKED_ALONE): linear, but 500 times an entity's work; its worst case takes 0.45 s here alone
# (contracts.upsert, 1 MB of items) and passed 1.0 s under make test's load. A quadratic check of the
# same megabyte would take many seconds still.
WITHIN_ITEMS_ALONE = 2.0
ATTEMPTS = 3  # a request over the bound is sent again, twice at most: a busy moment is no cost
# A request's cost is the CPU time this process spends while it runs (the service answers in this
# process: tests/client.py), its pool threads' included: what the request costs whatever the other
# test workers do to the wall clock (on two cores shared by four to six workers, 0.45 s of work
# took over 2 s of wall time).
cpu_seconds = time.process_time
QUERY_STRING_BYTES = 6000  # what a URL carries through API Gateway and proxies comfortably
FILLS = {
    "email-like": lambda n: ("a@" + "." * max(n - 3, 0) + "@")[:n],
    "digits": lambda n: "9" * n,
    "letters": lambda n: "a" * n,
}


def _leaves(schema: dict[str, Any], factor: float) -> int:
    """How many strings a worst-case value of `schema` holds (arrays at `factor` times maxItems)."""
    kind = schema.get("type")
    if kind == "object":
        return sum(_leaves(sub, factor) for sub in schema.get("properties", {}).values()) or 1
    if kind == "array":
        return max(1, int(schema.get("maxItems", 1) * factor)) * _leaves(schema.get("items", {}), factor)
    return 1


def worst_value(schema: dict[str, Any], fill: Any, *, over: float, factor: float, per_string: int) -> Any:
    """A value of `schema` at (over=1) or past (over>1) every bound, strings from `fill`."""
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][-1]
    if kind == "object":
        return {
            name: worst_value(sub, fill, over=over, factor=factor, per_string=per_string)
            for name, sub in schema.get("properties", {}).items()
        }
    if kind == "array":
        count = max(1, int(schema.get("maxItems", 1) * factor))
        return [
            worst_value(schema.get("items", {}), fill, over=over, factor=factor, per_string=per_string)
            for _ in range(count)
        ]
    if kind == "integer":
        return 2**63 if over > 1 else schema.get("maximum", 2**31)
    if kind == "boolean":
        return True
    length = int(schema.get("maxLength", 200) * over)
    return fill(max(1, min(length, per_string)))


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"d": [value]}
    return value


def variants(op: Operation, budget: int) -> Iterator[tuple[str, dict[str, Any]]]:
    for fill_name, fill in FILLS.items():
        for label, over, factor in (("at the limits", 1.0, 1.0), ("past the limits", 50.0, 3.0)):
            per_string = max(1, budget // max(1, _leaves(op.args, factor)))
            yield f"{label}, {fill_name}", worst_value(op.args, fill, over=over, factor=factor, per_string=per_string)
    yield (
        "nested as deep as allowed",
        {**worst_value(op.args, FILLS["letters"], over=1, factor=1, per_string=10), "zz": _deep(30)},
    )


def send(api: Api, tenant: Tenant, op: Operation, args: dict[str, Any]) -> Answer:
    headers = {} if not op.authenticated else {"Authorization": f"Bearer {tenant.key}"}
    if op.kind == "query":
        flat = [
            (name, item) for name, value in args.items() for item in (value if isinstance(value, list) else [value])
        ]
        pairs = [(name, str(item).lower() if isinstance(item, bool) else str(item)) for name, item in flat]
        return api.request("GET", f"{op.path}?{urllib.parse.urlencode(pairs)}", headers=headers)
    return api.request(
        "POST", op.path, body=json.dumps(args).encode(), headers={**headers, "Content-Type": "application/json"}
    )


@pytest.mark.parametrize("name", sorted(registry.REGISTRY))
def test_every_operation_answers_worst_case_arguments_within_a_second(api: Api, tenant: Tenant, name: str) -> None:
    op = registry.REGISTRY[name]
    budget = QUERY_STRING_BYTES if op.kind == "query" else config.MAX_BODY_BYTES // 2
    within = WITHIN_ITEMS_ALONE if op.items_checked_alone else WITHIN
    slowest: tuple[float, str, int] = (0.0, "", 0)
    for label, args in variants(op, budget):
        timings: list[float] = []
        while len(timings) < ATTEMPTS and (
            not timings or timings[-1] >= within
        ):  # the request's cost, not a busy moment
            started = cpu_seconds()
            answer = send(api, tenant, op, args)
            timings.append(cpu_seconds() - started)
            assert answer.status < 500, (label, answer.status, answer.raw[:300])
        slowest = max(slowest, (min(timings), label, answer.status))
    assert slowest[0] < within, f"{name}: {slowest[1]} took {slowest[0]:.2f} s (answered {slowest[2]})"


def _fastest_within(send_once: Any) -> Answer:
    """The answer of a request sent until it came back within WITHIN, at most ATTEMPTS times (the
    request's cost, not a busy moment on two shared cores); fails when none did."""
    timings: list[float] = []
    while len(timings) < ATTEMPTS:
        started = cpu_seconds()
        answer: Answer = send_once()
        timings.append(cpu_seconds() - started)
        if timings[-1] < WITHIN:
            return answer
    raise AssertionError(f"every attempt took {WITHIN} s or more: {[round(s, 2) for s in timings]}")


def test_the_quadratic_email_of_the_review_is_refused_at_once(api: Api) -> None:
    """24,000 characters took 2.7 s before (the pattern ran after the length had failed)."""
    body = {"companyName": "Hausverwaltung Beispiel", "email": "a@" + "." * 24_000 + "@", "agentName": "setup"}
    answer = _fastest_within(
        lambda: api.request(
            "POST",
            "/api/platform/v1/command/signup",
            body=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
    )
    assert answer.status == 400 and answer.body["errors"] == [
        {"path": "email", "message": "is 24003 characters long; at most 254 allowed"}
    ]


def test_uniqueness_of_6000_ids_is_checked_in_linear_time(tenant: Tenant) -> None:
    """objectgroups.create with 6,000 ids (35 KB) took 7.7 s before (pairwise comparison)."""
    ids = [f"obj_{n:06d}" for n in range(6000)]
    answer = _fastest_within(
        lambda: tenant.command("objectgroups.create", {"objectGroup": {"name": "Alle", "objectIds": ids}})
    )
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "objectGroup.objectIds"


def test_duplicates_within_the_limit_are_named(tenant: Tenant) -> None:
    answer = tenant.command(
        "objectgroups.create", {"objectGroup": {"name": "Doppelt", "objectIds": ["haus-a", "haus-b", "haus-a"]}}
    )
    assert answer.status == 400
    assert answer.body["errors"] == [
        {"path": "objectGroup.objectIds[2]", "message": "repeats item 0; the items must be unique"}
    ]
