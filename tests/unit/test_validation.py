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
