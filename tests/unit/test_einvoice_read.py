"""Every valid file of the XRechnung test suite (UBL and CII) and every ZUGFeRD sample PDF is
recognised, read and valid by the official rules; its number, dates, seller VAT id, line count and
totals equal what XPath (Saxon's, on the XML itself: not the reader's ElementTree paths) finds in it."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from chalicelib import einvoice
from chalicelib.einvoice import validate

FILES = Path(__file__).resolve().parents[1] / "einvoice_files"
SUITE = sorted((FILES / "xrechnung-testsuite" / "business-cases" / "standard").glob("*.xml"))
PDFS = sorted((FILES / "zugferd").glob("*.pdf"))
EXAMPLES = sorted((FILES / "en16931" / "examples").glob("*.xml"))

NAMESPACES = {
    "cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
    "cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
    "rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
    "ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
    "udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
}
_DATE = r"replace(normalize-space(.), '^(\d{4})(\d{2})(\d{2})$', '$1-$2-$3')"
UBL_TOTAL = "/*/cac:LegalMonetaryTotal/cbc:"
CII_SETTLEMENT = "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/"
CII_TOTAL = CII_SETTLEMENT + "ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:"
UBL_SELLER = "/*/cac:AccountingSupplierParty/cac:Party/"
# What each test reads from the XML, and where the reader's model keeps it.
XPATHS: dict[str, dict[str, str]] = {
    "ubl": {
        "number": "/*/cbc:ID",
        "issue_date": "/*/cbc:IssueDate",
        "due_date": "(/*/cbc:DueDate, /*/cac:PaymentMeans/cbc:PaymentDueDate)[1]",
        "currency": "/*/cbc:DocumentCurrencyCode",
        "buyer_reference": "/*/cbc:BuyerReference",
        "seller_vat_id": UBL_SELLER + "cac:PartyTaxScheme[cac:TaxScheme/cbc:ID = 'VAT']/cbc:CompanyID",
        "lines": "count(/*/cac:InvoiceLine | /*/cac:CreditNoteLine)",
        "line_net_total": UBL_TOTAL + "LineExtensionAmount",
        "total_without_vat": UBL_TOTAL + "TaxExclusiveAmount",
        "vat_total": "/*/cac:TaxTotal/cbc:TaxAmount[@currencyID = /*/cbc:DocumentCurrencyCode]",
        "total_with_vat": UBL_TOTAL + "TaxInclusiveAmount",
        "prepaid": UBL_TOTAL + "PrepaidAmount",
        "amount_due": UBL_TOTAL + "PayableAmount",
    },
    "cii": {
        "number": "/rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:ID",
        "issue_date": f"/rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString/{_DATE}",
        "due_date": f"{CII_SETTLEMENT}ram:SpecifiedTradePaymentTerms[1]/ram:DueDateDateTime/udt:DateTimeString/{_DATE}",
        "currency": f"{CII_SETTLEMENT}ram:InvoiceCurrencyCode",
        "buyer_reference": "//ram:ApplicableHeaderTradeAgreement/ram:BuyerReference",
        "seller_vat_id": "//ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID[@schemeID = 'VA']",
        "lines": "count(//ram:IncludedSupplyChainTradeLineItem)",
        "line_net_total": CII_TOTAL + "LineTotalAmount",
        "total_without_vat": CII_TOTAL + "TaxBasisTotalAmount",
        "vat_total": f"{CII_TOTAL}TaxTotalAmount[@currencyID = {CII_SETTLEMENT}ram:InvoiceCurrencyCode]",
        "total_with_vat": CII_TOTAL + "GrandTotalAmount",
        "prepaid": CII_TOTAL + "TotalPrepaidAmount",
        "amount_due": CII_TOTAL + "DuePayableAmount",
    },
}
AMOUNTS = ("line_net_total", "total_without_vat", "vat_total", "total_with_vat", "prepaid", "amount_due")


def xpath_values(syntax: str, xml_text: str) -> dict[str, str]:
    processor = validate.ENGINE.processor()
    xpath = processor.new_xpath_processor()
    for prefix, uri in NAMESPACES.items():
        xpath.declare_namespace(prefix, uri)
    xpath.set_context(xdm_item=processor.parse_xml(xml_text=xml_text))
    return {name: str(xpath.evaluate_single(f"string(({path})[1])")).strip() for name, path in XPATHS[syntax].items()}


def model_values(invoice: einvoice.Invoice) -> dict[str, Any]:
    return {
        "number": invoice.number,
        "issue_date": invoice.issue_date,
        "due_date": invoice.due_date,
        "currency": invoice.currency,
        "buyer_reference": invoice.buyer_reference,
        "seller_vat_id": invoice.seller.vat_id if invoice.seller else None,
        "lines": len(invoice.lines),
        **{name: getattr(invoice.totals, name) for name in AMOUNTS},
    }


def assert_read_as_xpath_finds(syntax: str, xml_text: str, invoice: einvoice.Invoice) -> None:
    expected = xpath_values(syntax, xml_text)
    got = model_values(invoice)
    for name, value in expected.items():
        if name == "lines":
            assert got[name] == int(value), name
        elif name in AMOUNTS:
            assert got[name] == (Decimal(value) if value else None), name
            assert not isinstance(got[name], float)
        else:
            assert got[name] == (value or None), name
    assert expected["number"] and expected["issue_date"] and int(expected["lines"]) > 0
    wired = json.loads(json.dumps(invoice.to_wire()))  # JSON-ready, amounts as strings
    assert wired["totals"]["amountDue"] == expected["amount_due"] or Decimal(wired["totals"]["amountDue"]) == Decimal(
        expected["amount_due"]
    )
    assert all(isinstance(line["netAmount"], str) for line in wired["lines"])


def test_the_suite_holds_every_business_case() -> None:
    assert len(SUITE) == 40 and len(PDFS) == 3  # 01.01a-01.21a (no 01.16a in this copy), UBL and CII


@pytest.mark.parametrize("path", SUITE, ids=lambda path: path.name)
def test_an_xrechnung_of_the_test_suite_is_read_exactly_and_valid(path: Path) -> None:
    detected, invoice = einvoice.read(path.read_bytes())
    syntax = "ubl" if path.name.endswith("_ubl.xml") else "cii"
    assert (detected.syntax, detected.container) == (syntax, "xml")
    assert detected.document == ("Invoice" if syntax == "ubl" else "CrossIndustryInvoice")
    assert_read_as_xpath_finds(syntax, detected.xml_text, invoice)
    result = validate.validate(detected)
    assert result.profile == "xrechnung" and result.rulesets == [f"en16931-{syntax}", f"xrechnung-{syntax}"]
    assert result.valid, result.errors
    assert {warning.rule for warning in result.warnings} <= {"BR-DE-TMP-32"}  # "should" give a delivery date


# validXRechnung.pdf (2019) claims XRechnung 1.2: valid by EN 16931 and by the XRechnung 3.0 rules'
# errors, it draws BR-DE-21's warning (the specification identifier should be XRechnung 3.0's).
PDF_WARNINGS = {"validXRechnung.pdf": {"BR-DE-21"}}


@pytest.mark.parametrize("path", PDFS, ids=lambda path: path.name)
def test_a_zugferd_pdf_is_read_exactly_from_its_attached_xml_and_valid(path: Path) -> None:
    data = path.read_bytes()
    detected, invoice = einvoice.read(data)
    assert (detected.syntax, detected.container, detected.attachment) == ("cii", "pdf", "factur-x.xml")
    attached = PdfReader(io.BytesIO(data)).attachments["factur-x.xml"][0]  # the XML as pypdf finds it
    assert detected.xml == attached
    assert_read_as_xpath_finds("cii", attached.decode("utf-8"), invoice)
    result = validate.validate(detected)
    assert result.valid, result.errors
    assert {warning.rule for warning in result.warnings} == PDF_WARNINGS.get(path.name, set())
    assert result.profile == ("xrechnung" if "xrechnung" in (invoice.customization_id or "") else "en16931")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_an_en16931_example_is_read_exactly_and_valid(path: Path) -> None:
    detected, invoice = einvoice.read(path.read_bytes())
    assert_read_as_xpath_finds(detected.syntax, detected.xml_text, invoice)
    result = validate.validate(detected)
    assert result.profile == "en16931" and result.valid, result.errors


def test_a_credit_note_and_a_corrected_invoice_say_what_they_are() -> None:
    detected, credit = einvoice.read((FILES / "en16931" / "examples" / "ubl-tc434-creditnote1.xml").read_bytes())
    assert (detected.document, credit.type_code, credit.kind) == ("CreditNote", "381", "creditNote")
    assert credit.lines and credit.lines[0].quantity is not None
    for name in ("01.18a-INVOICE_ubl.xml", "01.18a-INVOICE_uncefact.xml"):
        _, corrected = einvoice.read((SUITE[0].parent / name).read_bytes())
        assert (corrected.type_code, corrected.kind) == ("384", "correctedInvoice")
        assert corrected.preceding_invoices and corrected.preceding_invoices[0].number


def test_the_wire_form_of_an_invoice_holds_its_parties_lines_and_payment() -> None:
    _, invoice = einvoice.read((SUITE[0].parent / "01.01a-INVOICE_ubl.xml").read_bytes())
    wired = invoice.to_wire()
    assert wired["buyerReference"] == "04011000-12345-03"
    assert wired["seller"]["vatId"] == "DE 123456789"
    assert wired["seller"]["address"] == {
        "lines": ["[Seller address line 1]"],
        "city": "[Seller city]",
        "postalCode": "12345",
        "countryCode": "DE",
    }
    assert wired["payment"]["accounts"] == [{"iban": "DE79000000001234567890"}]
    assert wired["lines"][0]["quantity"] == "1" and wired["lines"][0]["netPrice"] == "288.79"
    assert wired["lines"][0]["period"] == {"start": "2016-01-01", "end": "2016-12-31"}
    assert wired["vatBreakdown"] == [{"category": "S", "rate": "7", "taxableAmount": "314.86", "taxAmount": "22.04"}]


def test_ubl_and_cii_of_one_business_case_read_alike() -> None:
    """The test suite writes each case in both syntaxes: the model reads the same from both."""
    for ubl in (path for path in SUITE if path.name.endswith("_ubl.xml")):
        cii = ubl.with_name(ubl.name.replace("_ubl.xml", "_uncefact.xml"))
        _, one = einvoice.read(ubl.read_bytes())
        _, other = einvoice.read(cii.read_bytes())
        for name in ("number", "issue_date", "due_date", "currency", "buyer_reference"):
            assert getattr(one, name) == getattr(other, name), (ubl.name, name)
        for name in (*AMOUNTS, "allowance_total", "charge_total"):  # a file may write 0.00 in one, omit it in the other
            assert (getattr(one.totals, name) or 0) == (getattr(other.totals, name) or 0), (ubl.name, name)
        assert [line.net_amount for line in one.lines] == [line.net_amount for line in other.lines], ubl.name
        assert [(tax.category, tax.rate, tax.tax_amount) for tax in one.vat_breakdown] == [
            (tax.category, tax.rate, tax.tax_amount) for tax in other.vat_breakdown
        ], ubl.name
