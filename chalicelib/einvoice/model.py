"""An e-invoice as EN 16931 defines its content, read the same from UBL and from CII (ubl.py, cii.py):
every amount, quantity and rate a decimal.Decimal exactly as written (never a float), every date an
ISO date string (YYYY-MM-DD; a date the file writes otherwise stays as written). The business terms
(BT-n, BG-n) are EN 16931's. `to_wire()` gives JSON-ready dicts: camelCase keys, decimals as strings,
absent values left out."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

Kind = Literal["invoice", "creditNote", "correctedInvoice"]

# UNTDID 1001 document type codes EN 16931 allows as credit notes (BT-3); 384 is the corrected invoice.
CREDIT_NOTE_CODES = frozenset({"81", "83", "261", "262", "296", "308", "381", "396", "420", "458", "532"})
CORRECTED_INVOICE_CODES = frozenset({"384"})


def kind_of(type_code: str | None, document: str) -> Kind:
    """The invoice's kind by its type code (BT-3), a UBL CreditNote being a credit note whatever its code."""
    if type_code in CORRECTED_INVOICE_CODES:
        return "correctedInvoice"
    if type_code in CREDIT_NOTE_CODES or (type_code is None and document == "CreditNote"):
        return "creditNote"
    return "invoice"


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _wire(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for item in dataclasses.fields(value):
            wired = _wire(getattr(value, item.name))
            if wired is None or wired == [] or wired == {}:
                continue
            out[_camel(item.name)] = wired
        return out
    if isinstance(value, list | tuple):
        return [_wire(item) for item in value]
    return value


class Wire:
    def to_wire(self) -> dict[str, Any]:
        """JSON-ready: camelCase keys, decimals as strings, absent values and empty lists left out."""
        wired: dict[str, Any] = _wire(self)
        return wired


@dataclass
class Identifier(Wire):
    value: str
    scheme: str | None = None


@dataclass
class Address(Wire):
    """BG-5 and its kin: street lines (BT-35, 36, 162), city, postal code, subdivision, country (ISO 3166)."""

    lines: list[str] = field(default_factory=list)
    city: str | None = None
    postal_code: str | None = None
    country_subdivision: str | None = None
    country_code: str | None = None


@dataclass
class Contact(Wire):
    """BG-6: the contact point, its telephone and e-mail."""

    name: str | None = None
    telephone: str | None = None
    email: str | None = None


@dataclass
class Party(Wire):
    """The seller (BG-4), the buyer (BG-7), the payee (BG-10): legal name, trading name, identifiers,
    legal registration, VAT id (BT-31, BT-48), tax number (BT-32), electronic address, address, contact."""

    name: str | None = None
    trading_name: str | None = None
    identifiers: list[Identifier] = field(default_factory=list)
    legal_registration_id: Identifier | None = None
    vat_id: str | None = None
    tax_number: str | None = None
    electronic_address: Identifier | None = None
    address: Address | None = None
    contact: Contact | None = None


@dataclass
class Delivery(Wire):
    """BG-13: the deliver-to party's name, location id and address, and the actual delivery date."""

    name: str | None = None
    location_id: Identifier | None = None
    address: Address | None = None
    date: str | None = None


@dataclass
class Period(Wire):
    start: str | None = None
    end: str | None = None


@dataclass
class PaymentAccount(Wire):
    """BG-17: a credit transfer's account (IBAN or another id), its name, and the bank's BIC."""

    iban: str | None = None
    name: str | None = None
    bic: str | None = None


@dataclass
class Payment(Wire):
    """BG-16: means code (BT-81), remittance information (BT-83), the accounts to pay to, card
    (BT-87), a SEPA direct debit's mandate (BT-89) and debited account (BT-91), and the terms (BT-20)."""

    means_code: str | None = None
    means_text: str | None = None
    remittance: str | None = None
    accounts: list[PaymentAccount] = field(default_factory=list)
    card_number: str | None = None
    mandate_id: str | None = None
    debited_account: str | None = None
    terms: str | None = None


@dataclass
class AllowanceCharge(Wire):
    """BG-20 (allowance) and BG-21 (charge), of the document or of a line (BG-27, BG-28)."""

    charge: bool
    amount: Decimal | None = None
    base_amount: Decimal | None = None
    percentage: Decimal | None = None
    vat_category: str | None = None
    vat_rate: Decimal | None = None
    reason: str | None = None
    reason_code: str | None = None


@dataclass
class VatBreakdown(Wire):
    """BG-23: per VAT category and rate, the taxable amount, the VAT, the exemption reason."""

    category: str | None = None
    rate: Decimal | None = None
    taxable_amount: Decimal | None = None
    tax_amount: Decimal | None = None
    exemption_reason: str | None = None
    exemption_reason_code: str | None = None


@dataclass
class Totals(Wire):
    """BG-22: line net sum (BT-106), allowances (BT-107), charges (BT-108), total without VAT (BT-109),
    VAT total (BT-110; BT-111 in the tax currency), total with VAT (BT-112), prepaid (BT-113),
    rounding (BT-114), amount due (BT-115)."""

    line_net_total: Decimal | None = None
    allowance_total: Decimal | None = None
    charge_total: Decimal | None = None
    total_without_vat: Decimal | None = None
    vat_total: Decimal | None = None
    vat_total_in_tax_currency: Decimal | None = None
    total_with_vat: Decimal | None = None
    prepaid: Decimal | None = None
    rounding: Decimal | None = None
    amount_due: Decimal | None = None


@dataclass
class Line(Wire):
    """BG-25: id, note, name, description, seller's item id, quantity and unit (UN/ECE Rec 20), net
    price per base quantity, net amount, VAT category and rate, order line, period, allowances and
    charges. XRechnung's sub-lines: UBL nests them (`sub_lines`), CII lists them flat beside their
    parent, each naming it (`parent_line_id`)."""

    id: str | None = None
    parent_line_id: str | None = None
    note: str | None = None
    name: str | None = None
    description: str | None = None
    seller_item_id: str | None = None
    quantity: Decimal | None = None
    unit_code: str | None = None
    net_price: Decimal | None = None
    gross_price: Decimal | None = None
    base_quantity: Decimal | None = None
    base_quantity_unit_code: str | None = None
    net_amount: Decimal | None = None
    vat_category: str | None = None
    vat_rate: Decimal | None = None
    order_line_reference: str | None = None
    period: Period | None = None
    allowances_charges: list[AllowanceCharge] = field(default_factory=list)
    sub_lines: list[Line] = field(default_factory=list)


@dataclass
class PrecedingInvoice(Wire):
    """BG-3: the invoice a credit note or corrected invoice refers to."""

    number: str | None = None
    issue_date: str | None = None


@dataclass
class Invoice(Wire):
    syntax: Literal["ubl", "cii"]
    number: str | None = None  # BT-1
    issue_date: str | None = None  # BT-2
    due_date: str | None = None  # BT-9
    type_code: str | None = None  # BT-3
    kind: Kind = "invoice"
    currency: str | None = None  # BT-5
    tax_currency: str | None = None  # BT-6
    customization_id: str | None = None  # BT-24
    profile_id: str | None = None  # BT-23
    buyer_reference: str | None = None  # BT-10: the Leitweg-ID of a German public buyer
    order_reference: str | None = None  # BT-13
    sales_order_reference: str | None = None  # BT-14
    contract_reference: str | None = None  # BT-12
    project_reference: str | None = None  # BT-11
    accounting_reference: str | None = None  # BT-19
    tax_point_date: str | None = None  # BT-7
    notes: list[str] = field(default_factory=list)  # BT-22
    preceding_invoices: list[PrecedingInvoice] = field(default_factory=list)
    seller: Party | None = None
    buyer: Party | None = None
    payee: Party | None = None
    delivery: Delivery | None = None
    invoice_period: Period | None = None  # BG-14
    payment: Payment | None = None
    lines: list[Line] = field(default_factory=list)
    allowances_charges: list[AllowanceCharge] = field(default_factory=list)
    vat_breakdown: list[VatBreakdown] = field(default_factory=list)
    totals: Totals = field(default_factory=Totals)
