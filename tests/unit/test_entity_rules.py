"""The rules of a stored record declared as data on its entity type (EntityType.required and
.periods) and checked in one place (EntityType.verify), before the type's own check."""

from __future__ import annotations

from typing import Any

import pytest

import chalicelib.resources  # noqa: F401 - declares every entity type
from chalicelib.entities import ENTITY_TYPES, EntityType, Period
from chalicelib.errors import Invalid

LEASE = ENTITY_TYPES["contract"]


def _refusal(etype: EntityType, data: dict[str, Any]) -> dict[str, Any]:
    with pytest.raises(Invalid) as refused:
        etype.verify(data, None)
    return refused.value.errors[0]


def test_every_declared_rule_names_fields_of_its_type() -> None:
    for etype in ENTITY_TYPES.values():
        for name in etype.required:
            assert name in etype.fields, (etype.name, name)
        for period in etype.periods:
            assert {period.start, period.end} <= set(etype.fields), (etype.name, period)


def test_a_missing_or_empty_required_field_is_refused_at_its_path() -> None:
    assert _refusal(ENTITY_TYPES["unit"], {"objectId": "obj_1", "type": "apartment"}) == {
        "path": "unit.number",
        "message": "a unit needs number",
    }
    assert _refusal(ENTITY_TYPES["post"], {"objectId": "obj_1", "title": ""})["path"] == "post.title"


def test_the_rules_path_names_the_argument_where_it_is_not_the_type() -> None:
    assert _refusal(ENTITY_TYPES["processUpdate"], {"text": None})["path"] == "update.text"


def test_a_period_ending_before_it_starts_is_refused_and_open_or_equal_ends_pass() -> None:
    contract = {"unitId": "uni_1", "type": "lease", "parties": [{"contactId": "con_1", "role": "tenant"}]}
    refused = _refusal(LEASE, {**contract, "startDate": "2024-05-01", "endDate": "2024-04-30"})
    assert refused == {"path": "contract.endDate", "message": "endDate lies before startDate"}
    LEASE.verify({**contract, "startDate": "2024-05-01", "endDate": "2024-05-01"}, None)
    LEASE.verify({**contract, "startDate": "2024-05-01"}, None)


def test_timestamps_compare_as_instants_across_offsets() -> None:
    period = Period("visibleFrom", "visibleUntil")
    # 10:00+02:00 is 08:00Z: an end at 09:00Z lies after it, though its text sorts first
    assert period.problem({"visibleFrom": "2026-05-01T10:00:00+02:00", "visibleUntil": "2026-05-01T09:00:00Z"}) is None
    late_start = {"visibleFrom": "2026-05-01T10:00:00Z", "visibleUntil": "2026-05-01T11:00:00+02:00"}
    assert period.problem(late_start) == "visibleUntil lies before visibleFrom"


def test_the_types_own_check_runs_after_the_declared_rules() -> None:
    # a lease without a tenant passes the declared rules and is refused by the contract's own check
    owners_only = {"contactId": "con_1", "role": "owner"}
    data = {"unitId": "uni_1", "type": "lease", "startDate": "2024-01-01", "parties": [owners_only]}
    assert _refusal(LEASE, data)["path"] == "contract.parties[0].role"
