"""The EN 16931 rule unit tests (tests/einvoice_files/en16931/test, CEN/TC 434's own): each test of a
file names the rules in its scope and which of them must fire (error, warning) or must not (success).
Run through the EN 16931 UBL Schematron as validate.py runs it: every expected rule is reported with its
flag, and no rule of the test's scope is reported that the test does not expect (the fragments break
rules outside their scope, which the test set does not speak of, as in the vefa validator it is
written for). A representative subset in the default run (every fourth file of the 277, Invoice and
CreditNote: about 5 s with the rules' compilation), all of them under `slow` (about 14 s)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from chalicelib.einvoice import validate

TESTS = Path(__file__).resolve().parents[1] / "einvoice_files" / "en16931" / "test"
VEFA = "{http://difi.no/xsd/vefa/validator/1.0}"
FILES = sorted(TESTS.glob("*/*.xml"))


def _param(index: int, path: Path) -> object:
    name = f"{path.parent.name}/{path.name}"
    if index % 4 == 0:
        return pytest.param(path, id=name)
    return pytest.param(path, id=name, marks=pytest.mark.slow)


def _texts(element: ET.Element, tag: str) -> set[str]:
    return {(found.text or "").strip() for found in element.findall(f"{VEFA}{tag}")}


def test_the_rule_tests_are_all_here() -> None:
    assert len(FILES) == 277
    assert len(list((TESTS / "CreditNote-unit-UBL").glob("*.xml"))) == 71


@pytest.mark.parametrize("path", [_param(index, path) for index, path in enumerate(FILES)])
def test_an_en16931_rule_test_reports_its_rules_and_only_those(path: Path) -> None:
    test_set = ET.parse(path).getroot()
    top = test_set.find(f"{VEFA}assert")
    scope = _texts(top, "scope") if top is not None else set()
    tests = test_set.findall(f"{VEFA}test")
    assert tests
    for number, test in enumerate(tests, 1):
        expectation = test.find(f"{VEFA}assert")
        assert expectation is not None
        errors, warnings, successes = (_texts(expectation, tag) for tag in ("error", "warning", "success"))
        in_scope = scope | _texts(expectation, "scope") | errors | warnings | successes
        (document,) = [child for child in test if child.tag != f"{VEFA}assert"]
        found_errors, found_warnings = validate.check(ET.tostring(document, encoding="unicode"), ["en16931-ubl"])
        reported_errors = {message.rule for message in found_errors}
        reported_warnings = {message.rule for message in found_warnings}
        where = f"{path.name}, test {number}: {expectation.findtext(f'{VEFA}description')}"
        assert errors <= reported_errors, where
        assert warnings <= reported_warnings, where
        assert not (reported_errors | reported_warnings) & in_scope - errors - warnings, where
        assert not reported_errors & warnings and not reported_warnings & errors, where  # each with its flag
