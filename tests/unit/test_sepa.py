"""SEPA helpers: IBAN, BIC, creditor identifier, mandate references; and the generated
references' uniqueness through the store, on in-process moto."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from chalicelib import sepa

IBAN = "DE89370400440532013000"


def test_iban_is_normalised_to_its_compact_form() -> None:
    assert sepa.normalise_iban("de89 3704 0044 0532 0130 00") == IBAN
    assert sepa.normalise_iban(" DE89\t370400440532013000 ") == IBAN
    assert sepa.normalise_iban("fr14 2004 1010 0505 0001 3m02 606") == "FR1420041010050500013M02606"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("DE88370400440532013000", "checksum"),  # check digits do not match
        ("DE8937040044053201300", "length"),  # one digit short
        ("XX89370400440532013000", "country"),
        ("", ""),
    ],
)
def test_invalid_ibans_are_refused_with_a_reason(value: str, reason: str) -> None:
    with pytest.raises(ValueError, match=f"not a valid IBAN.*{reason}"):
        sepa.normalise_iban(value)


def test_bic_is_checked_and_normalised() -> None:
    assert sepa.normalise_bic("cobadeffxxx") == "COBADEFFXXX"
    assert sepa.normalise_bic("COBA DE FF") == "COBADEFF"
    for bad in ("COBADEFFX", "COBADE", "COBAXXFFXXX", "COBA-EFFXXX"):
        with pytest.raises(ValueError, match="not a valid BIC"):
            sepa.normalise_bic(bad)


def test_bank_of_a_known_and_an_unknown_iban() -> None:
    assert sepa.bank_of(IBAN) == sepa.Bank(bic="COBADEFFXXX", name="Commerzbank")
    assert sepa.bank_of("GB82WEST12345698765432") == sepa.Bank(bic=None, name=None)


def _with_check_digits(country: str, business_code: str, national: str) -> str:
    """Compute creditor-id check digits the EPC way, independently of the code under test."""
    numeric = "".join(str(int(ch, 36)) for ch in national + country + "00")
    return f"{country}{98 - int(numeric) % 97:02d}{business_code}{national}"


def test_creditor_id_example_of_the_bundesbank_is_valid() -> None:
    assert sepa.normalise_creditor_id("DE98ZZZ09999999999") == "DE98ZZZ09999999999"
    assert sepa.normalise_creditor_id("de98 zzz 0999 9999 999") == "DE98ZZZ09999999999"


def test_creditor_id_check_leaves_out_the_business_code() -> None:
    assert sepa.normalise_creditor_id("DE98ABC09999999999") == "DE98ABC09999999999"
    assert sepa.normalise_creditor_id("DE9800109999999999") == "DE9800109999999999"


@pytest.mark.parametrize(
    ("country", "national"),
    [("DE", "12345678901"), ("AT", "00000012345"), ("NL", "ABCDEFG123"), ("IT", "12345678901"), ("FR", "123456")],
)
def test_creditor_ids_of_several_countries(country: str, national: str) -> None:
    valid = _with_check_digits(country, "ZZZ", national)
    assert sepa.normalise_creditor_id(valid) == valid
    wrong = valid[:2] + f"{(int(valid[2:4]) + 1) % 100:02d}" + valid[4:]
    with pytest.raises(ValueError, match="check digits"):
        sepa.normalise_creditor_id(wrong)


@pytest.mark.parametrize(
    "value",
    [
        "DE97ZZZ09999999999",
        "DE98ZZZ09999999998",
        "DE98ZZZ0999999999",
        "DE98ZZZ0999999999A",
        "DE98ZZ",
        "9898ZZZ09999999999",
        "DE98ZZZ-9999999999",
        "DE" + "9" * 40,
    ],
)
def test_invalid_creditor_ids_are_refused(value: str) -> None:
    with pytest.raises(ValueError):
        sepa.normalise_creditor_id(value)


@pytest.mark.parametrize("value", ["A", "WEG12-WE03-2024", "a" * 35, "A-Z a-z 0-9 /?:().,'+", "123aaa 45678"])
def test_acceptable_mandate_references(value: str) -> None:
    assert sepa.mandate_reference_problem(value) is None
    assert re.match(sepa.MANDATE_REFERENCE_PATTERN, value)


@pytest.mark.parametrize("value", ["", "a" * 36, "Müller", "A_B", "A&B", "A;B", "A\nB", "   "])
def test_unacceptable_mandate_references(value: str) -> None:
    assert sepa.mandate_reference_problem(value) is not None


def test_reference_uniqueness_ignores_case_but_not_spaces() -> None:
    assert sepa.mandate_reference_key("123AAa45678") == sepa.mandate_reference_key("123aaA45678")
    assert sepa.mandate_reference_key("123aaa45678") != sepa.mandate_reference_key("123aaa 45678")


def test_generated_references_are_readable_and_valid() -> None:
    references = {sepa.generate_mandate_reference() for _ in range(1000)}
    assert len(references) == 1000
    for reference in references:
        assert re.fullmatch(r"PM-[0-9A-HJKMNP-TV-Z]{16}", reference)
        assert sepa.mandate_reference_problem(reference) is None


def test_schwifty_is_not_imported_with_the_app() -> None:
    root = Path(__file__).resolve().parents[2]
    code = "import app, sys; print('schwifty' in sys.modules)"
    assert (
        subprocess.run(
            [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        == "False"
    )


# --- through the store ---------------------------------------------------------------------


@pytest.mark.slow
def test_generated_references_of_a_tenant_are_distinct_and_each_replaced_one_is_released(memory_table: None) -> None:
    """Through the store: 25 references per mandate, each replacing the last. (The generator's
    own spread is test_generated_references_are_readable_and_valid's, on 1,000 references; this
    ran 1,000 through the store as well, 40 s of moto's update expression parsing.)"""
    from chalicelib.context import CallContext
    from chalicelib.resources import load_all

    load_all()
    from chalicelib.resources.accounting_mandates import DIRECT_DEBIT_MANDATE, generate_reference
    from chalicelib.resources.contacts import CONTACT
    from chalicelib.store import entities, uniques
    from chalicelib.store.model import Item

    ctx = CallContext(tenant_id="ten_A", key_id="key_1", agent_name="unit", scopes=frozenset())
    debtor = entities.create(ctx, CONTACT, {"personType": "natural", "lastName": "X"}, path="contact")
    payload = {
        "contactId": debtor.id,
        "iban": IBAN,
        "accountHolder": "X",
        "creditorId": "DE98ZZZ09999999999",
        "signatureDate": "2024-01-15",
    }
    mandates = [
        entities.create(ctx, DIRECT_DEBIT_MANDATE, dict(payload), path="directDebitMandate").id or "" for _ in range(4)
    ]
    references = [generate_reference(ctx, mandates[i % 4]).data_dict()["mandateReference"] for i in range(100)]
    assert len(set(references)) == 100
    # only the four current references stay reserved; every replaced one was released
    guards = [item for item in Item.scan() if item.type == "uniqueClaim"]
    expected = [uniques.claim_pk(ctx, DIRECT_DEBIT_MANDATE, "mandateReference", r) for r in references[-4:]]
    assert sorted(g.pk for g in guards) == sorted(expected)
    assert {g.id for g in guards} == set(mandates)
