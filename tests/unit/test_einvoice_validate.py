"""An invalid invoice is answered with the rules it breaks (rule, flag, text, location), from EN 16931
and from the XRechnung CIUS; the rules are compiled once per process and a validation is quick."""

from __future__ import annotations

import json
import time
from pathlib import Path

from chalicelib import einvoice
from chalicelib.einvoice import validate

CASES = Path(__file__).resolve().parents[1] / "einvoice_files" / "xrechnung-testsuite" / "business-cases" / "standard"
UBL = (CASES / "01.01a-INVOICE_ubl.xml").read_bytes()
CII = (CASES / "01.01a-INVOICE_uncefact.xml").read_bytes()


def test_an_invoice_without_its_leitweg_id_breaks_br_de_15() -> None:
    broken = UBL.replace(b"<cbc:BuyerReference>04011000-12345-03</cbc:BuyerReference>", b"")
    assert broken != UBL
    detected, invoice = einvoice.read(broken)
    assert invoice.buyer_reference is None
    result = validate.validate(detected)
    assert not result.valid and result.profile == "xrechnung"
    (error,) = [error for error in result.errors if error.rule == "BR-DE-15"]
    assert error.flag == "fatal" and "BT-10" in error.text
    assert error.location == "/ubl:Invoice[1]"
    wired = json.loads(json.dumps(result.to_wire()))
    assert {"rule": "BR-DE-15", "flag": "fatal", "text": error.text, "location": error.location} in wired["errors"]
    assert wired["valid"] is False


def test_a_wrong_total_breaks_the_en16931_sum_rule() -> None:
    broken = CII.replace(
        b"<ram:GrandTotalAmount>336.9</ram:GrandTotalAmount>", b"<ram:GrandTotalAmount>999.90</ram:GrandTotalAmount>"
    )
    assert broken != CII
    detected, invoice = einvoice.read(broken)
    assert str(invoice.totals.total_with_vat) == "999.90"
    result = validate.validate(detected)
    assert "BR-CO-15" in {error.rule for error in result.errors}  # total with VAT = without VAT + VAT
    (error,) = [error for error in result.errors if error.rule == "BR-CO-15"]
    assert error.location == "/rsm:CrossIndustryInvoice[1]" and "BT-112" in error.text


def test_an_en16931_invoice_that_does_not_claim_xrechnung_is_not_held_to_it() -> None:
    plain = UBL.replace(b"#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0", b"").replace(
        b"<cbc:BuyerReference>04011000-12345-03</cbc:BuyerReference>", b""
    )
    result = validate.validate(einvoice.recognise.detect(plain))
    assert (result.profile, result.rulesets, result.valid) == ("en16931", ["en16931-ubl"], True), result.errors


def test_the_rules_compile_once_and_a_validation_is_quick() -> None:
    detected = einvoice.detect(UBL)
    validate.validate(detected)
    compiled = dict(validate.ENGINE.compile_seconds)
    assert {"en16931-ubl", "xrechnung-ubl"} <= compiled.keys()
    started = time.perf_counter()
    for _ in range(5):
        validate.validate(detected)
    assert (time.perf_counter() - started) / 5 < 0.25  # about 10 ms on a quiet core
    assert validate.ENGINE.compile_seconds == compiled  # none compiled again
