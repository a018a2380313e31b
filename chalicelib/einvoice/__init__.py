"""E-invoices received (issue 54): an XRechnung or EN 16931 invoice as UBL (Invoice, CreditNote) or
UN/CEFACT CII, bare or inside a ZUGFeRD / Factur-X PDF, recognised and parsed as hostile input
(`recognise`), read exactly into a model of decimals (`model`, `ubl`, `cii`), and checked by the official
Schematron rules, EN 16931 and then the XRechnung CIUS (`validate`); the syntaxes' namespaces once
(`namespaces`).

A library of the core layer: it imports nothing of ours, and no operation calls it yet. For a caller:
- `read(data)` gives the recognised document (`Detected`: syntax, document, container, the XML as bytes
  and text, the PDF attachment's name, BT-24) and its `Invoice`; `Invoice.to_wire()` is its JSON.
- `Refused` is raised for anything else: `.status` (415 another kind of file, 400 malformed or unsafe,
  413 too large), `.code`, `.found` (what the file is); its message names what is accepted.
- `validate.validate(detected)` gives a `Validation` (`to_wire()`: valid, profile, rulesets, errors and
  warnings as {rule, flag, text, location}). An invalid invoice is still read: reading never fails on a
  value, validation reports it. The first validation in a process compiles the rules (about 2 s for all
  four on a quiet machine; `validate.ENGINE.warm(...)` does it ahead), later ones take milliseconds.
  It needs saxonche, which only the REST bundle carries (infra/package.py): validate in the REST
  function or its workers, not in the MCP function."""

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
