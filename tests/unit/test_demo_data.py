"""The sandbox's demo data (chalicelib/sandbox/demo.py, issue 36): deterministic, of the promised size,
and loadable as it stands: every line valid for its type's upsert (the schema the export derives, and the
type's own checks), every reference an alias of an earlier line, every IBAN valid, every document with
its PDF. No database: the lines are checked as the upserts would check them before writing. Both sizes
(`full`, and the tests' `small`: PM_DEMO_SIZE) are checked alike."""

from __future__ import annotations

import copy
from collections import Counter
from functools import cache
from typing import Any

import jsonschema
import pytest
from schwifty import IBAN

import chalicelib.resources  # noqa: F401 - fills the registry the export derives its kinds from
from chalicelib import ids, sepa
from chalicelib.document_types import BY_CODE
from chalicelib.entities import ENTITY_TYPES, ref_types
from chalicelib.exports.lines import Kind, kinds
from chalicelib.resources.aliases import ALIAS
from chalicelib.sandbox.demo import DEMO_TOTALS, SMALL_TOTALS, TOTALS, demo_files, demo_lines
from chalicelib.schemas import map_refs


@cache
def lines_of(seed: str, size: str = "full") -> list[dict[str, Any]]:
    return demo_lines(seed, size)


@cache
def files_of(seed: str, size: str = "full") -> dict[str, bytes]:
    return demo_files(seed, size)


@pytest.fixture(scope="module", params=list(TOTALS))
def size(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def lines(size: str) -> list[dict[str, Any]]:
    return copy.deepcopy(lines_of("demo", size))


@pytest.fixture(scope="module")
def by_type() -> dict[str, Kind]:
    return {kind.etype.name: kind for kind in kinds()}


@pytest.mark.slow
def test_the_same_seed_gives_the_same_data_and_another_seed_other_data() -> None:
    assert demo_lines("demo") == lines_of("demo")
    assert demo_files("demo") == files_of("demo")
    assert demo_lines("other") != lines_of("demo")
    assert demo_files("other") != files_of("demo")


def test_the_default_seed_is_demo() -> None:
    assert demo_lines() == lines_of("demo")


def test_totals_are_those_promised_for_every_seed(lines: list[dict[str, Any]], size: str) -> None:
    for seed in ("demo", "other"):
        assert Counter(line["type"] for line in lines_of(seed, size)) == TOTALS[size]
    objects = Counter(line["data"]["type"] for line in lines if line["type"] == "object")
    assert objects == ({"weg": 3, "rental": 2} if size == "full" else {"weg": 1})
    assert DEMO_TOTALS["unit"] == 200
    units = Counter(line["data"]["type"] for line in lines if line["type"] == "unit")
    assert set(units) == {"apartment", "commercial", "parking"}


def test_the_small_demo_holds_every_entity_type_in_a_fraction_of_the_lines() -> None:
    """What the tests that plant a sandbox look at (PM_DEMO_SIZE=small): every type, a PDF, an IBAN."""
    assert SMALL_TOTALS.keys() == DEMO_TOTALS.keys() and all(SMALL_TOTALS.values())
    assert sum(SMALL_TOTALS.values()) * 10 < sum(DEMO_TOTALS.values())
    small = lines_of("demo", "small")
    assert lines_of("demo", "small")[0] == lines_of("demo")[0]  # the same management company
    assert {line["alias"] for line in small} < {line["alias"] for line in lines_of("demo")}
    with pytest.raises(ValueError, match="no demo of size"):
        demo_lines("demo", "huge")


def test_every_iban_and_creditor_id_is_valid(lines: list[dict[str, Any]], size: str) -> None:
    ibans = [line["data"]["iban"] for line in lines if "iban" in line["data"]]
    assert len(ibans) == TOTALS[size]["bankAccountInfo"] + TOTALS[size]["directDebitMandate"]
    for iban in ibans:
        assert IBAN(iban).validate(validate_bban=True), iban
        assert iban.startswith("DE")
    for line in lines:
        if line["type"] == "directDebitMandate":
            creditor = line["data"]["creditorId"]
            assert sepa.normalise_creditor_id(creditor) == creditor
            assert sepa.mandate_reference_problem(line["data"]["mandateReference"]) is None


def test_every_line_is_what_its_upsert_takes(lines: list[dict[str, Any]], by_type: dict[str, Kind]) -> None:
    for line in lines:
        kind = by_type[line["type"]]
        assert line["upsert"] == kind.upsert
        assert set(line) == {"type", "upsert", "alias", "aliases", "data"} | (
            {"file"} if kind.upsert is None else set()
        )
        errors = [e.message for e in _validator(kind).iter_errors(line["data"])]
        assert not errors, (line["alias"], errors)
        check = ENTITY_TYPES[line["type"]].check
        if check is not None:  # the type's own rules (a lease's roles, an MEA within its base, ...)
            check(copy.deepcopy(line["data"]), None)


def test_aliases_are_unique_readable_and_no_ids(lines: list[dict[str, Any]]) -> None:
    aliases = [line["alias"] for line in lines]
    assert len(set(aliases)) == len(aliases)  # one integration's aliases name one entity each, across types
    for line in lines:
        assert line["aliases"] == [line["alias"]]
        assert line["alias"].startswith("demo-")
        assert not ids.looks_like_id(line["alias"])
        jsonschema.validate(line["alias"], ALIAS)


def test_every_reference_names_an_earlier_line_of_an_allowed_type(
    lines: list[dict[str, Any]], by_type: dict[str, Kind]
) -> None:
    seen: dict[str, str] = {}
    for line in lines:

        def known(path: str, x_ref: Any, value: str, alias: str = line["alias"]) -> str:
            assert seen.get(value) in ref_types(x_ref), f"{alias}.{path}: {value} is no earlier {x_ref}"
            return value

        map_refs(by_type[line["type"]].schema, line["data"], "", known)
        seen[line["alias"]] = line["type"]


def test_a_process_timeline_runs_forward(lines: list[dict[str, Any]], size: str) -> None:
    timelines: dict[str, list[str]] = {}
    for line in lines:
        if line["type"] == "processUpdate":
            timelines.setdefault(line["data"]["processId"], []).append(line["data"]["occurredAt"])
    assert len(timelines) == TOTALS[size]["process"]
    for moments in timelines.values():
        assert moments == sorted(moments) and len(set(moments)) == len(moments)


def test_every_document_has_its_pdf(lines: list[dict[str, Any]], size: str) -> None:
    files = files_of("demo", size)
    documents = [line for line in lines if line["type"] == "document"]
    assert {line["file"] for line in documents} == set(files)
    for line in documents:
        assert files[line["file"]].startswith(b"%PDF")
        data = line["data"]
        assert data["category"] in BY_CODE[data["documentType"]].categories
        assert "object" in BY_CODE[data["documentType"]].node_types  # all filed at their objects


def test_the_pdfs_carry_umlauts_in_their_core_font_encoding() -> None:
    pdf = files_of("demo")["demo-doc-1-3.pdf"]  # the Protokoll der Eigentümerversammlung
    assert b"/WinAnsiEncoding" in pdf


def _validator(kind: Kind) -> jsonschema.protocols.Validator:
    """The line's data against the schema of the export's kind: that is the upsert's item without
    `alias` (the line carries it beside the data), references being strings of the alias's shape."""
    schema = {**kind.schema, "required": [name for name in kind.schema.get("required", []) if name != "alias"]}
    validator_class = jsonschema.validators.validator_for(schema)
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
