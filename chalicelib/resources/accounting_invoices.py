"""Inbound invoices (Eingangsrechnungen): what suppliers, tradespeople and utilities bill
an object, with the accounting data the bookkeeping needs."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import declare_create, declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.entities import ENTITY_TYPES, EntityType, Period, declare
from chalicelib.errors import invalid_at
from chalicelib.store import entities as store

ARG = "inboundInvoice"
PAYMENT_STATUSES = {
    "open": ("Offen", "Open"),
    "partiallyPaid": ("Teilweise bezahlt", "Partially paid"),
    "paid": ("Bezahlt", "Paid"),
    "cancelled": ("Storniert", "Cancelled"),
}
DEFAULTS = {"currency": "EUR", "paymentStatus": "open"}

FIELDS: dict[str, Any] = {
    "objectId": s.ref("object", "The object the invoice is booked to."),
    "supplierId": s.ref(
        "contact", "The supplier (Lieferant, Handwerker, Versorger, Dienstleister) who issued the invoice."
    ),
    "invoiceNumber": s.string("The supplier's invoice number (Rechnungsnummer).", max_length=100),
    "invoiceDate": s.date("Invoice date (Rechnungsdatum)."),
    "dueDate": s.date("Due date (Fälligkeit); not before the invoice date."),
    "netAmount": s.decimal("Net amount (Nettobetrag); negative for a credit note (Gutschrift).", signed=True),
    "taxAmount": s.decimal("VAT amount (Umsatzsteuer / Vorsteuer).", signed=True),
    "grossAmount": s.decimal(
        "Gross amount (Bruttobetrag): netAmount + taxAmount exactly, when all three are given.", signed=True
    ),
    "taxRate": s.enum(
        "VAT rate in percent (Umsatzsteuersatz): "
        '"19" standard, "7" reduced, "0" exempt or reverse charge (§ 13b UStG).',
        ["0", "7", "19"],
        codes=True,
    ),
    "currency": s.enum("Currency; EUR (the default).", ["EUR"], codes=True),
    "bookingAccount": {
        "type": "string",
        "maxLength": 8,
        "pattern": r"^[0-9]{4,8}$",
        "description": (
            "Ledger account (Sachkonto) of the chart of accounts (SKR03 / SKR04 or the manager's own), "
            "4 to 8 digits, e.g. 6020."
        ),
    },
    "costCenter": s.string(
        "Cost centre (Kostenstelle), e.g. for the allocation in the Hausgeldabrechnung.", max_length=50
    ),
    "unitId": s.ref(
        "unit", "The unit the cost belongs to, when it concerns one unit only; it must lie in the invoice's object."
    ),
    "processId": s.ref(
        "process",
        "The process (Vorgang, e.g. a repair order) the invoice belongs to; it must belong to the invoice's object.",
    ),
    "description": s.text("What was delivered or done (Leistungsbeschreibung)."),
    "paymentStatus": s.enum(
        "`open`: not paid (the default); `partiallyPaid`: Teilzahlung, see paidAmount; "
        "`paid`: paid in full (needs paidAt); `cancelled`: storniert.",
        PAYMENT_STATUSES,
    ),
    "paidAmount": s.decimal("Amount paid so far.", signed=True),
    "paidAt": s.date("Day of (the last) payment; required when paymentStatus is paid."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "objectId": ("Objekt", "Object"),
        "supplierId": ("Lieferant", "Supplier"),
        "invoiceNumber": ("Rechnungsnummer", "Invoice number"),
        "invoiceDate": ("Rechnungsdatum", "Invoice date"),
        "dueDate": ("Fällig am", "Due date"),
        "netAmount": ("Nettobetrag", "Net amount"),
        "taxAmount": ("Umsatzsteuerbetrag", "VAT amount"),
        "grossAmount": ("Bruttobetrag", "Gross amount"),
        "taxRate": ("Umsatzsteuersatz (%)", "VAT rate (%)"),
        "currency": ("Währung", "Currency"),
        "bookingAccount": ("Sachkonto", "Ledger account"),
        "costCenter": ("Kostenstelle", "Cost centre"),
        "unitId": ("Einheit", "Unit"),
        "processId": ("Vorgang", "Process"),
        "description": ("Leistungsbeschreibung", "Description of the service"),
        "paymentStatus": ("Zahlungsstatus", "Payment status"),
        "paidAmount": ("Bezahlter Betrag", "Amount paid"),
        "paidAt": ("Bezahlt am", "Paid at"),
    },
)


def _check(data: dict[str, Any], entity_id: str | None) -> None:
    amounts = [data.get(name) for name in ("netAmount", "taxAmount", "grossAmount")]
    if all(a is not None for a in amounts):
        net, tax, gross = (Decimal(a) for a in amounts)  # type: ignore[arg-type]
        if net + tax != gross:
            raise invalid_at(
                f"{ARG}.grossAmount", f"grossAmount {gross} is not netAmount {net} + taxAmount {tax} = {net + tax}"
            )
    if data.get("paymentStatus") == "paid" and not data.get("paidAt"):
        raise invalid_at(f"{ARG}.paidAt", "a paid invoice needs paidAt")


def _derive(ctx: CallContext, data: dict[str, Any]) -> None:
    """Defaults (currency EUR, paymentStatus open); the unit and the process must belong to
    the invoice's object (one read each, when given)."""
    for name, value in DEFAULTS.items():
        data.setdefault(name, value)
    for field, type_name in (("unitId", "unit"), ("processId", "process")):
        etype = ENTITY_TYPES.get(type_name)
        if data.get(field) is None or data.get("objectId") is None or etype is None:
            continue
        owner = store.get_item(ctx, etype, data[field], path=f"{ARG}.{field}").data_dict().get("objectId")
        if owner is not None and owner != data["objectId"]:
            raise invalid_at(f"{ARG}.{field}", f"{type_name} {data[field]} belongs to another object")


INBOUND_INVOICE = declare(
    EntityType(
        name="inboundInvoice",
        plural="inboundInvoices",
        prefix="inv",
        area="accounting",
        fields=FIELDS,
        filters=("objectId", "supplierId", "paymentStatus"),
        required=("objectId", "invoiceNumber", "invoiceDate"),
        periods=(Period("invoiceDate", "dueDate"),),
        check=_check,
        derive=_derive,
    )
)

DOC = """An inbound invoice (Eingangsrechnung) is a bill a supplier, tradesperson or utility sent for an
object: `objectId` (required), `supplierId` (the issuing contact), `invoiceNumber` and `invoiceDate`
(required), `dueDate` (Fälligkeit, not before the invoice date).

Amounts are decimal strings in `currency` (EUR): `netAmount` + `taxAmount` must equal `grossAmount`
exactly when all three are given; negative amounts are credit notes (Gutschriften). `taxRate` is the VAT
rate in percent ("19", "7" or "0"). `bookingAccount` is the Sachkonto (4 to 8 digits, SKR03/SKR04 or the
manager's own chart), `costCenter` the Kostenstelle. `unitId` ties a cost to one unit and `processId` to a
process (e.g. the repair order); both must belong to the invoice's object.

`paymentStatus`: `open` (the default), `partiallyPaid` (`paidAmount` says how much), `paid` (needs
`paidAt`) or `cancelled` (storniert)."""

declare_list(
    INBOUND_INVOICE,
    name="accounting.inboundinvoices.list",
    docs="Lists the inbound invoices of one object, in creation order. " + DOC,
    filters={"object": s.ref("object", "The object whose invoices to list.")},
    fields={"object": "objectId"},
    required_filters=("object",),
    paging_required=False,
    summary="List the inbound invoices of one object.",
)
declare_show(INBOUND_INVOICE, name="accounting.inboundinvoices.show", arg=ARG, docs=DOC)
declare_create(
    INBOUND_INVOICE,
    name="accounting.inboundinvoices.create",
    arg=ARG,
    docs=DOC,
    example={
        "objectId": "<object id or alias>",
        "supplierId": "<contact id or alias>",
        "invoiceNumber": "RE-2024-0815",
        "invoiceDate": "2024-03-01",
        "dueDate": "2024-03-15",
        "netAmount": "1000.00",
        "taxAmount": "190.00",
        "grossAmount": "1190.00",
        "taxRate": "19",
        "bookingAccount": "6020",
        "description": "Reparatur Heizungsanlage",
    },
)
declare_update(
    INBOUND_INVOICE,
    name="accounting.inboundinvoices.update",
    arg=ARG,
    docs=DOC,
    example={"paymentStatus": "paid", "paidAt": "2024-03-10", "paidAmount": "1190.00"},
)
declare_lifecycle(INBOUND_INVOICE, prefix="accounting.inboundinvoices", arg=ARG)
