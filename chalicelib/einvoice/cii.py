"""A UN/CEFACT CII CrossIndustryInvoice (D16B, as XRechnung and ZUGFeRD 2 / Factur-X write it) read
into the model, by EN 16931's CII binding (the paths the EN 16931 CII Schematron checks)."""

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
from chalicelib.einvoice.xmlread import attribute, decimal, iso_date, text

NS = namespaces.CII_PARTS


def _t(element: ET.Element | None, path: str) -> str | None:
    return text(element, path, NS)


def _date(element: ET.Element | None, path: str) -> str | None:
    """A date at `path`: the udt:DateTimeString (or qdt:) below it, format 102 (YYYYMMDD) as ISO."""
    return iso_date(_t(element, f"{path}/udt:DateTimeString") or _t(element, f"{path}/qdt:DateTimeString"))


def _identifier(element: ET.Element | None) -> Identifier | None:
    value = text(element)
    if element is None or value is None:
        return None
    return Identifier(value=value, scheme=element.get("schemeID"))


def _address(element: ET.Element | None) -> Address | None:
    if element is None:
        return None
    return Address(
        lines=[value for tag in ("LineOne", "LineTwo", "LineThree") if (value := _t(element, f"ram:{tag}"))],
        city=_t(element, "ram:CityName"),
        postal_code=_t(element, "ram:PostcodeCode"),
        country_subdivision=_t(element, "ram:CountrySubDivisionName"),
        country_code=_t(element, "ram:CountryID"),
    )


def _party(element: ET.Element | None) -> Party | None:
    if element is None:
        return None
    vat_id = tax_number = None
    for registration in element.findall("ram:SpecifiedTaxRegistration/ram:ID", NS):
        scheme = registration.get("schemeID")
        if scheme == "VA":
            vat_id = vat_id or text(registration)
        elif scheme == "FC":
            tax_number = tax_number or text(registration)
    contact = element.find("ram:DefinedTradeContact", NS)
    legal = element.find("ram:SpecifiedLegalOrganization", NS)
    identifiers = [
        ident
        for item in [*element.findall("ram:ID", NS), *element.findall("ram:GlobalID", NS)]
        if (ident := _identifier(item)) is not None
    ]
    return Party(
        name=_t(element, "ram:Name"),
        trading_name=_t(legal, "ram:TradingBusinessName"),
        identifiers=identifiers,
        legal_registration_id=_identifier(legal.find("ram:ID", NS)) if legal is not None else None,
        vat_id=vat_id,
        tax_number=tax_number,
        electronic_address=_identifier(element.find("ram:URIUniversalCommunication/ram:URIID", NS)),
        address=_address(element.find("ram:PostalTradeAddress", NS)),
        contact=Contact(
            name=_t(contact, "ram:PersonName") or _t(contact, "ram:DepartmentName"),
            telephone=_t(contact, "ram:TelephoneUniversalCommunication/ram:CompleteNumber"),
            email=_t(contact, "ram:EmailURIUniversalCommunication/ram:URIID"),
        )
        if contact is not None
        else None,
    )


def _period(element: ET.Element | None) -> Period | None:
    if element is None:
        return None
    return Period(start=_date(element, "ram:StartDateTime"), end=_date(element, "ram:EndDateTime"))


def _allowance_charge(element: ET.Element) -> AllowanceCharge:
    return AllowanceCharge(
        charge=_t(element, "ram:ChargeIndicator/udt:Indicator") == "true",
        amount=decimal(_t(element, "ram:ActualAmount")),
        base_amount=decimal(_t(element, "ram:BasisAmount")),
        percentage=decimal(_t(element, "ram:CalculationPercent")),
        vat_category=_t(element, "ram:CategoryTradeTax/ram:CategoryCode"),
        vat_rate=decimal(_t(element, "ram:CategoryTradeTax/ram:RateApplicablePercent")),
        reason=_t(element, "ram:Reason"),
        reason_code=_t(element, "ram:ReasonCode"),
    )


def _line(element: ET.Element) -> Line:
    document = element.find("ram:AssociatedDocumentLineDocument", NS)
    product = element.find("ram:SpecifiedTradeProduct", NS)
    agreement = element.find("ram:SpecifiedLineTradeAgreement", NS)
    settlement = element.find("ram:SpecifiedLineTradeSettlement", NS)
    net_price = agreement.find("ram:NetPriceProductTradePrice", NS) if agreement is not None else None
    base = net_price.find("ram:BasisQuantity", NS) if net_price is not None else None
    quantity = "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity"
    return Line(
        id=_t(document, "ram:LineID"),
        parent_line_id=_t(document, "ram:ParentLineID"),
        note=_t(document, "ram:IncludedNote/ram:Content"),
        name=_t(product, "ram:Name"),
        description=_t(product, "ram:Description"),
        seller_item_id=_t(product, "ram:SellerAssignedID"),
        quantity=decimal(_t(element, quantity)),
        unit_code=attribute(element, quantity, "unitCode", NS),
        net_price=decimal(_t(net_price, "ram:ChargeAmount")),
        gross_price=decimal(_t(agreement, "ram:GrossPriceProductTradePrice/ram:ChargeAmount")),
        base_quantity=decimal(text(base)),
        base_quantity_unit_code=base.get("unitCode") if base is not None else None,
        net_amount=decimal(_t(settlement, "ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount")),
        vat_category=_t(settlement, "ram:ApplicableTradeTax/ram:CategoryCode"),
        vat_rate=decimal(_t(settlement, "ram:ApplicableTradeTax/ram:RateApplicablePercent")),
        order_line_reference=_t(agreement, "ram:BuyerOrderReferencedDocument/ram:LineID"),
        period=_period(settlement.find("ram:BillingSpecifiedPeriod", NS) if settlement is not None else None),
        allowances_charges=[
            _allowance_charge(item)
            for item in (settlement.findall("ram:SpecifiedTradeAllowanceCharge", NS) if settlement is not None else [])
        ],
    )


def _payment(settlement: ET.Element | None) -> Payment | None:
    if settlement is None:
        return None
    means = settlement.findall("ram:SpecifiedTradeSettlementPaymentMeans", NS)
    terms = settlement.find("ram:SpecifiedTradePaymentTerms", NS)
    if not means and terms is None:
        return None
    first = means[0] if means else None
    accounts = [
        PaymentAccount(
            iban=_t(account, "ram:IBANID") or _t(account, "ram:ProprietaryID"),
            name=_t(account, "ram:AccountName"),
            bic=_t(item, "ram:PayeeSpecifiedCreditorFinancialInstitution/ram:BICID"),
        )
        for item in means
        for account in item.findall("ram:PayeePartyCreditorFinancialAccount", NS)
    ]
    descriptions = [
        value
        for item in settlement.findall("ram:SpecifiedTradePaymentTerms/ram:Description", NS)
        if (value := text(item))
    ]
    return Payment(
        means_code=_t(first, "ram:TypeCode"),
        means_text=_t(first, "ram:Information"),
        remittance=_t(settlement, "ram:PaymentReference"),
        accounts=accounts,
        card_number=_t(first, "ram:ApplicableTradeSettlementFinancialCard/ram:ID"),
        mandate_id=_t(terms, "ram:DirectDebitMandateID"),
        debited_account=_t(first, "ram:PayerPartyDebtorFinancialAccount/ram:IBANID"),
        terms="\n".join(descriptions) or None,
    )


def _delivery(element: ET.Element | None) -> Delivery | None:
    if element is None:
        return None
    ship_to = element.find("ram:ShipToTradeParty", NS)
    date = _date(element, "ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime")
    if ship_to is None and date is None:
        return None
    return Delivery(
        name=_t(ship_to, "ram:Name"),
        location_id=_identifier(ship_to.find("ram:ID", NS) or ship_to.find("ram:GlobalID", NS))
        if ship_to is not None
        else None,
        address=_address(ship_to.find("ram:PostalTradeAddress", NS)) if ship_to is not None else None,
        date=date,
    )


def read(root: ET.Element) -> Invoice:
    """The invoice of a CII CrossIndustryInvoice root element (recognise.detect checked it)."""
    context = root.find("rsm:ExchangedDocumentContext", NS)
    header = root.find("rsm:ExchangedDocument", NS)
    transaction = root.find("rsm:SupplyChainTradeTransaction", NS)
    agreement = transaction.find("ram:ApplicableHeaderTradeAgreement", NS) if transaction is not None else None
    delivery = transaction.find("ram:ApplicableHeaderTradeDelivery", NS) if transaction is not None else None
    settlement = transaction.find("ram:ApplicableHeaderTradeSettlement", NS) if transaction is not None else None
    summation = (
        settlement.find("ram:SpecifiedTradeSettlementHeaderMonetarySummation", NS) if settlement is not None else None
    )
    currency = _t(settlement, "ram:InvoiceCurrencyCode")
    vat_total = vat_total_tax_currency = None
    for amount in summation.findall("ram:TaxTotalAmount", NS) if summation is not None else []:
        if amount.get("currencyID") in (None, currency) and vat_total is None:
            vat_total = decimal(text(amount))
        else:
            vat_total_tax_currency = decimal(text(amount))
    type_code = _t(header, "ram:TypeCode")
    return Invoice(
        syntax="cii",
        number=_t(header, "ram:ID"),
        issue_date=_date(header, "ram:IssueDateTime"),
        due_date=_date(settlement, "ram:SpecifiedTradePaymentTerms/ram:DueDateDateTime"),
        type_code=type_code,
        kind=kind_of(type_code, "CrossIndustryInvoice"),
        currency=currency,
        tax_currency=_t(settlement, "ram:TaxCurrencyCode"),
        customization_id=_t(context, "ram:GuidelineSpecifiedDocumentContextParameter/ram:ID"),
        profile_id=_t(context, "ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID"),
        buyer_reference=_t(agreement, "ram:BuyerReference"),
        order_reference=_t(agreement, "ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID"),
        sales_order_reference=_t(agreement, "ram:SellerOrderReferencedDocument/ram:IssuerAssignedID"),
        contract_reference=_t(agreement, "ram:ContractReferencedDocument/ram:IssuerAssignedID"),
        project_reference=_t(agreement, "ram:SpecifiedProcuringProject/ram:ID"),
        accounting_reference=_t(settlement, "ram:ReceivableSpecifiedTradeAccountingAccount/ram:ID"),
        tax_point_date=_date(settlement, "ram:ApplicableTradeTax/ram:TaxPointDate"),
        notes=[
            value
            for note in (header.findall("ram:IncludedNote/ram:Content", NS) if header is not None else [])
            if (value := text(note))
        ],
        preceding_invoices=[
            PrecedingInvoice(
                number=_t(ref, "ram:IssuerAssignedID"), issue_date=_date(ref, "ram:FormattedIssueDateTime")
            )
            for ref in (settlement.findall("ram:InvoiceReferencedDocument", NS) if settlement is not None else [])
        ],
        seller=_party(agreement.find("ram:SellerTradeParty", NS) if agreement is not None else None),
        buyer=_party(agreement.find("ram:BuyerTradeParty", NS) if agreement is not None else None),
        payee=_party(settlement.find("ram:PayeeTradeParty", NS) if settlement is not None else None),
        delivery=_delivery(delivery),
        invoice_period=_period(settlement.find("ram:BillingSpecifiedPeriod", NS) if settlement is not None else None),
        payment=_payment(settlement),
        lines=[
            _line(line)
            for line in (
                transaction.findall("ram:IncludedSupplyChainTradeLineItem", NS) if transaction is not None else []
            )
        ],
        allowances_charges=[
            _allowance_charge(item)
            for item in (settlement.findall("ram:SpecifiedTradeAllowanceCharge", NS) if settlement is not None else [])
        ],
        vat_breakdown=[
            VatBreakdown(
                category=_t(tax, "ram:CategoryCode"),
                rate=decimal(_t(tax, "ram:RateApplicablePercent")),
                taxable_amount=decimal(_t(tax, "ram:BasisAmount")),
                tax_amount=decimal(_t(tax, "ram:CalculatedAmount")),
                exemption_reason=_t(tax, "ram:ExemptionReason"),
                exemption_reason_code=_t(tax, "ram:ExemptionReasonCode"),
            )
            for tax in (settlement.findall("ram:ApplicableTradeTax", NS) if settlement is not None else [])
        ],
        totals=Totals(
            line_net_total=decimal(_t(summation, "ram:LineTotalAmount")),
            allowance_total=decimal(_t(summation, "ram:AllowanceTotalAmount")),
            charge_total=decimal(_t(summation, "ram:ChargeTotalAmount")),
            total_without_vat=decimal(_t(summation, "ram:TaxBasisTotalAmount")),
            vat_total=vat_total,
            vat_total_in_tax_currency=vat_total_tax_currency,
            total_with_vat=decimal(_t(summation, "ram:GrandTotalAmount")),
            prepaid=decimal(_t(summation, "ram:TotalPrepaidAmount")),
            rounding=decimal(_t(summation, "ram:RoundingAmount")),
            amount_due=decimal(_t(summation, "ram:DuePayableAmount")),
        ),
    )
