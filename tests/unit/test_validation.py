"""Query-string decoding and schema validation, without HTTP."""

from __future__ import annotations

import pytest

from chalicelib.errors import Invalid
from chalicelib.registry import REGISTRY
from chalicelib.resources import load_all
from chalicelib.validation import as_json_schema, decode_query, validate

load_all()


def test_query_values_are_typed_by_the_schema() -> None:
    op = REGISTRY["aliases.resolve"]
    assert decode_query(op, {"aliases": ["a", "b"], "ids": ["x"]}) == {"aliases": ["a", "b"], "ids": ["x"]}
    listing = REGISTRY["contacts"]
    assert decode_query(listing, {"limit": ["10"], "offset": ["0"]}) == {"limit": 10, "offset": 0}


@pytest.mark.parametrize("params", [{"limit": ["x"]}, {"limit": ["1", "2"]}, {"nope": ["1"]}])
def test_bad_query_values_are_invalid(params: dict[str, list[str]]) -> None:
    with pytest.raises(Invalid):
        decode_query(REGISTRY["contacts"], params)


def test_nullable_becomes_a_null_type_for_validation() -> None:
    converted = as_json_schema({"type": "string", "enum": ["a"], "nullable": True})
    assert converted == {"type": ["string", "null"], "enum": ["a", None]}


def test_null_clears_only_in_update_mode() -> None:
    validate(REGISTRY["contacts.update"], {"contact": {"id": "x", "firstName": None}})
    with pytest.raises(Invalid):
        validate(REGISTRY["contacts.create"], {"contact": {"personType": "natural", "firstName": None}})


def test_errors_carry_paths() -> None:
    with pytest.raises(Invalid) as caught:
        validate(REGISTRY["contacts.create"], {"contact": {"personType": "natural", "phones": [{"number": "abc"}]}})
    assert caught.value.errors == [{"path": "contact.phones[0].number", "message": caught.value.errors[0]["message"]}]


def _expr(value: object) -> bool:
    return isinstance(value, dict) and set(value) == {"$expr"}


def test_stand_ins_pass_for_any_value_and_the_rest_is_checked() -> None:
    """A pipeline step's arguments are validated before its `$expr`s are evaluated (issue 28,
    finding 1): a `$expr` passes wherever it stands, everything around it is checked."""
    units_create = REGISTRY["units.create"]
    expr = {"$expr": "house.id"}
    validate(units_create, {"unit": {"objectId": expr, "number": expr, "type": "apartment"}}, stand_in=_expr)
    validate(units_create, {"unit": expr}, stand_in=_expr)
    with pytest.raises(Invalid) as unknown:
        validate(units_create, {"unit": expr, "pad": [expr] * 146}, stand_in=_expr)
    assert [e["path"] for e in unknown.value.errors or []] == ["(arguments)"] and "'pad'" in unknown.value.detail
    with pytest.raises(Invalid) as missing:
        validate(units_create, {"unit": {"objectId": expr, "number": "1"}}, stand_in=_expr)
    assert [e["path"] for e in missing.value.errors or []] == ["unit.type"]
    with pytest.raises(Invalid) as not_a_stand_in:  # only a lone `$expr` member stands in
        validate(
            units_create, {"unit": {"objectId": {**expr, "x": 1}, "number": "1", "type": "apartment"}}, stand_in=_expr
        )
    assert [e["path"] for e in not_a_stand_in.value.errors or []] == ["unit.objectId"]
    with pytest.raises(Invalid):  # without stand-ins, a `$expr` is just an object
        validate(units_create, {"unit": expr})
