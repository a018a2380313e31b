"""E-invoices received (issue 54): an XRechnung or EN 16931 invoice as UBL (Invoice, CreditNote) or
UN/CEFACT CII, bare or inside a ZUGFeRD / Factur-X PDF, recognised and parsed as hostile input
(`detect`), read exactly into a model of decimals (`model`, `ubl`, `cii`), and checked by the official
Schematron rules, EN 16931 and then the XRechnung CIUS (`validate`).

A library of the core layer: it imports nothing of ours, and no operation calls it yet. `read` is the
one call most callers need: the bytes in, the recognised document and its invoice out, or `Refused`."""

from __future__ import annotations

from chalicelib.einvoice import cii, ubl
from chalicelib.einvoice.model import Invoice
from chalicelib.einvoice.recognise import ACCEPTED, Detected, Refused, detect


def read(data: bytes) -> tuple[Detected, Invoice]:
    """The document `data` holds and the invoice read from it; `Refused` when it holds none."""
    detected = detect(data)
    if detected.syntax == "ubl":
        return detected, ubl.read(detected.root)
    return detected, cii.read(detected.root)


__all__ = ["ACCEPTED", "Detected", "Invoice", "Refused", "detect", "read"]
