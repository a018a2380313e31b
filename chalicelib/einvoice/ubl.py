"""A UBL 2.1 Invoice or CreditNote read into the model, by EN 16931's UBL binding (the paths the
EN 16931 UBL Schematron checks)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from chalicelib.einvoice import namespaces
from chalicelib.einvoice.model import (
    Address,
    AllowanceCharge,
    Contact,
    Delivery,
    Identifier,
    Invoice,
    Line,
    Party,
    Payment,
    PaymentAccount,
    Period,
    PrecedingInvoice,
    Totals,
    VatBreakdown,
    kind_of,
)
from chalicelib.einvoice.xmlread import attribute, decimal, text

NS = namespaces.UBL


def _t(element: ET.Element | None, path: str) -> str | None:
    return text(element, path, NS)


def _address(element: ET.Element | None) -> Address | None:
    if element is None:
        return None
    lines = [
        value for value in (_t(element, "cbc:StreetName"), _t(element, "cbc:AdditionalStreetName")) if value is not None
    ]
    lines += [value for line in element.findall("cac:AddressLine", NS) if (value := _t(line, "cbc:Line"))]
    return Address(
        lines=lines,
        city=_t(element, "cbc:CityName"),
        postal_code=_t(element, "cbc:PostalZone"),
        country_subdivision=_t(element, "cbc:CountrySubentity"),
        country_code=_t(element, "cac:Country/cbc:IdentificationCode"),
    )


def _identifier(element: ET.Element | None) -> Identifier | None:
    value = text(element)
    if element is None or value is None:
        return None
    return Identifier(value=value, scheme=element.get("schemeID"))


def _party(element: ET.Element | None) -> Party | None:
    if element is None:
        return None
    vat_id = tax_number = None
    for scheme in element.findall("cac:PartyTaxScheme", NS):
        company_id = _t(scheme, "cbc:CompanyID")
        if _t(scheme, "cac:TaxScheme/cbc:ID") == "VAT":
            vat_id = vat_id or company_id
        else:
            tax_number = tax_number or company_id
    contact = element.find("cac:Contact", NS)
    legal = element.find("cac:PartyLegalEntity", NS)
    return Party(
        name=_t(legal, "cbc:RegistrationName") or _t(element, "cac:PartyName/cbc:Name"),
        trading_name=_t(element, "cac:PartyName/cbc:Name"),
        identifiers=[
            ident
            for item in element.findall("cac:PartyIdentification/cbc:ID", NS)
            if (ident := _identifier(item)) is not None
        ],
        legal_registration_id=_identifier(legal.find("cbc:CompanyID", NS)) if legal is not None else None,
        vat_id=vat_id,
        tax_number=tax_number,
        electronic_address=_identifier(element.find("cbc:EndpointID", NS)),
        address=_address(element.find("cac:PostalAddress", NS)),
        contact=Contact(
            name=_t(contact, "cbc:Name"),
            telephone=_t(contact, "cbc:Telephone"),
            email=_t(contact, "cbc:ElectronicMail"),
        )
        if contact is not None
        else None,
    )


def _period(element: ET.Element | None) -> Period | None:
    if element is None:
        return None
    return Period(start=_t(element, "cbc:StartDate"), end=_t(element, "cbc:EndDate"))


def _allowance_charge(element: ET.Element) -> AllowanceCharge:
    return AllowanceCharge(
        charge=_t(element, "cbc:ChargeIndicator") == "true",
        amount=decimal(_t(element, "cbc:Amount")),
        base_amount=decimal(_t(element, "cbc:BaseAmount")),
        percentage=decimal(_t(element, "cbc:MultiplierFactorNumeric")),
        vat_category=_t(element, "cac:TaxCategory/cbc:ID"),
        vat_rate=decimal(_t(element, "cac:TaxCategory/cbc:Percent")),
        reason=_t(element, "cbc:AllowanceChargeReason"),
        reason_code=_t(element, "cbc:AllowanceChargeReasonCode"),
    )


def _line(element: ET.Element, quantity_tag: str, line_tag: str) -> Line:
    item = element.find("cac:Item", NS)
    price = element.find("cac:Price", NS)
    base = price.find("cbc:BaseQuantity", NS) if price is not None else None
    gross = None
    if price is not None:
        for charge in price.findall("cac:AllowanceCharge", NS):
            gross = gross or decimal(_t(charge, "cbc:BaseAmount"))
    return Line(
        id=_t(element, "cbc:ID"),
        note=_t(element, "cbc:Note"),
        name=_t(item, "cbc:Name"),
        description=_t(item, "cbc:Description"),
        seller_item_id=_t(item, "cac:SellersItemIdentification/cbc:ID"),
        quantity=decimal(_t(element, quantity_tag)),
        unit_code=attribute(element, quantity_tag, "unitCode", NS),
        net_price=decimal(_t(price, "cbc:PriceAmount")),
        gross_price=gross,
        base_quantity=decimal(text(base)),
        base_quantity_unit_code=base.get("unitCode") if base is not None else None,
        net_amount=decimal(_t(element, "cbc:LineExtensionAmount")),
        vat_category=_t(item, "cac:ClassifiedTaxCategory/cbc:ID"),
        vat_rate=decimal(_t(item, "cac:ClassifiedTaxCategory/cbc:Percent")),
        order_line_reference=_t(element, "cac:OrderLineReference/cbc:LineID"),
        period=_period(element.find("cac:InvoicePeriod", NS)),
        allowances_charges=[_allowance_charge(item) for item in element.findall("cac:AllowanceCharge", NS)],
        sub_lines=[_line(sub, quantity_tag, line_tag) for sub in element.findall(f"cac:Sub{line_tag}", NS)],
    )


def _payment(root: ET.Element) -> Payment | None:
    means = root.findall("cac:PaymentMeans", NS)
    terms = [value for note in root.findall("cac:PaymentTerms/cbc:Note", NS) if (value := text(note))]
    if not means and not terms:
        return None
    first = means[0] if means else None
    code = first.find("cbc:PaymentMeansCode", NS) if first is not None else None
    accounts = [
        PaymentAccount(
            iban=_t(account, "cbc:ID"),
            name=_t(account, "cbc:Name"),
            bic=_t(account, "cac:FinancialInstitutionBranch/cbc:ID"),
        )
        for item in means
        for account in item.findall("cac:PayeeFinancialAccount", NS)
    ]
    return Payment(
        means_code=text(code),
        means_text=code.get("name") if code is not None else None,
        remittance=_t(first, "cbc:PaymentID"),
        accounts=accounts,
        card_number=_t(first, "cac:CardAccount/cbc:PrimaryAccountNumberID"),
        mandate_id=_t(first, "cac:PaymentMandate/cbc:ID"),
        debited_account=_t(first, "cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID"),
        terms="\n".join(terms) or None,
    )


def _delivery(root: ET.Element) -> Delivery | None:
    element = root.find("cac:Delivery", NS)
    if element is None:
        return None
    return Delivery(
        name=_t(element, "cac:DeliveryParty/cac:PartyName/cbc:Name"),
        location_id=_identifier(element.find("cac:DeliveryLocation/cbc:ID", NS)),
        address=_address(element.find("cac:DeliveryLocation/cac:Address", NS)),
        date=_t(element, "cbc:ActualDeliveryDate"),
    )


def read(root: ET.Element) -> Invoice:
    """The invoice of a UBL Invoice or CreditNote root element (recognise.detect checked which)."""
    credit_note = root.tag.endswith("}CreditNote")
    document = "CreditNote" if credit_note else "Invoice"
    type_code = _t(root, "cbc:CreditNoteTypeCode" if credit_note else "cbc:InvoiceTypeCode")
    currency = _t(root, "cbc:DocumentCurrencyCode")
    vat_total = vat_total_tax_currency = None
    breakdown: list[VatBreakdown] = []
    for total in root.findall("cac:TaxTotal", NS):
        amount = total.find("cbc:TaxAmount", NS)
        if amount is None:
            continue
        if amount.get("currencyID") in (None, currency) and vat_total is None:
            vat_total = decimal(text(amount))
            breakdown = [
                VatBreakdown(
                    category=_t(sub, "cac:TaxCategory/cbc:ID"),
                    rate=decimal(_t(sub, "cac:TaxCategory/cbc:Percent")),
                    taxable_amount=decimal(_t(sub, "cbc:TaxableAmount")),
                    tax_amount=decimal(_t(sub, "cbc:TaxAmount")),
                    exemption_reason=_t(sub, "cac:TaxCategory/cbc:TaxExemptionReason"),
                    exemption_reason_code=_t(sub, "cac:TaxCategory/cbc:TaxExemptionReasonCode"),
                )
                for sub in total.findall("cac:TaxSubtotal", NS)
            ]
        else:
            vat_total_tax_currency = decimal(text(amount))
    monetary = root.find("cac:LegalMonetaryTotal", NS)
    line_tag, quantity_tag = (
        ("CreditNoteLine", "cbc:CreditedQuantity") if credit_note else ("InvoiceLine", "cbc:InvoicedQuantity")
    )
    return Invoice(
        syntax="ubl",
        number=_t(root, "cbc:ID"),
        issue_date=_t(root, "cbc:IssueDate"),
        due_date=_t(root, "cbc:DueDate") or _t(root, "cac:PaymentMeans/cbc:PaymentDueDate"),
        type_code=type_code,
        kind=kind_of(type_code, document),
        currency=currency,
        tax_currency=_t(root, "cbc:TaxCurrencyCode"),
        customization_id=_t(root, "cbc:CustomizationID"),
        profile_id=_t(root, "cbc:ProfileID"),
        buyer_reference=_t(root, "cbc:BuyerReference"),
        order_reference=_t(root, "cac:OrderReference/cbc:ID"),
        sales_order_reference=_t(root, "cac:OrderReference/cbc:SalesOrderID"),
        contract_reference=_t(root, "cac:ContractDocumentReference/cbc:ID"),
        project_reference=_t(root, "cac:ProjectReference/cbc:ID"),
        accounting_reference=_t(root, "cbc:AccountingCost"),
        tax_point_date=_t(root, "cbc:TaxPointDate"),
        notes=[value for note in root.findall("cbc:Note", NS) if (value := text(note))],
        preceding_invoices=[
            PrecedingInvoice(number=_t(ref, "cbc:ID"), issue_date=_t(ref, "cbc:IssueDate"))
            for ref in root.findall("cac:BillingReference/cac:InvoiceDocumentReference", NS)
        ],
        seller=_party(root.find("cac:AccountingSupplierParty/cac:Party", NS)),
        buyer=_party(root.find("cac:AccountingCustomerParty/cac:Party", NS)),
        payee=_party(root.find("cac:PayeeParty", NS)),
        delivery=_delivery(root),
        invoice_period=_period(root.find("cac:InvoicePeriod", NS)),
        payment=_payment(root),
        lines=[_line(line, quantity_tag, line_tag) for line in root.findall(f"cac:{line_tag}", NS)],
        allowances_charges=[_allowance_charge(item) for item in root.findall("cac:AllowanceCharge", NS)],
        vat_breakdown=breakdown,
        totals=Totals(
            line_net_total=decimal(_t(monetary, "cbc:LineExtensionAmount")),
            allowance_total=decimal(_t(monetary, "cbc:AllowanceTotalAmount")),
            charge_total=decimal(_t(monetary, "cbc:ChargeTotalAmount")),
            total_without_vat=decimal(_t(monetary, "cbc:TaxExclusiveAmount")),
            vat_total=vat_total,
            vat_total_in_tax_currency=vat_total_tax_currency,
            total_with_vat=decimal(_t(monetary, "cbc:TaxInclusiveAmount")),
            prepaid=decimal(_t(monetary, "cbc:PrepaidAmount")),
            rounding=decimal(_t(monetary, "cbc:PayableRoundingAmount")),
            amount_due=decimal(_t(monetary, "cbc:PayableAmount")),
        ),
    )
