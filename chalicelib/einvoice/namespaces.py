"""The XML namespaces of UBL 2.1 and UN/CEFACT CII D16B, by the prefixes the EN 16931 and XRechnung
rules use (their Schematron's `ns` declarations): what recognise.py tells a document by, what
ubl.py and cii.py read with, and what validate.py writes a rule's location in."""

from __future__ import annotations

UBL_INVOICE = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
UBL_CREDIT_NOTE = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
CBC = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
CAC = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
EXT = "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2"
CII = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
RAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
UDT = "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"
QDT = "urn:un:unece:uncefact:data:standard:QualifiedDataType:100"

UBL = {"cbc": CBC, "cac": CAC}
CII_PARTS = {"rsm": CII, "ram": RAM, "udt": UDT, "qdt": QDT}
PREFIXES = {"ubl": UBL_INVOICE, "cn": UBL_CREDIT_NOTE, **UBL, "ext": EXT, **CII_PARTS}
