"""SEPA direct debit mandates (SEPA-Lastschriftmandate): a debtor's authorisation to
collect from an account, identified by creditor identifier and mandate reference.

Mandate references are unique within the tenant, compared without regard to case: the
store claims each reference in the same transaction as the mandate (EntityType.unique,
see chalicelib/store/uniques.py), so two mandates can never hold the same one, even when
written at the same moment."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, Final

from chalicelib import clock, sepa
from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import declare_create, declare_lifecycle, declare_show, declare_update, singular_result
from chalicelib.entities import EntityType, Period, declare
from chalicelib.errors import Conflict, invalid_at
from chalicelib.registry import Operation, register
from chalicelib.resources.accounting_bankaccounts import (
    ACCOUNT_HOLDER_FIELD,
    BIC_FIELD,
    IBAN_FIELD,
    apply_iban,
    declare_owner_list,
)
from chalicelib.store import entities as store

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import AccountingDirectdebitmandateGeneratereferenceArgs

ARG: Final = "directDebitMandate"  # Final: a literal key of the arguments' TypedDict
DEFAULTS = {"type": "CORE", "status": "active"}
GENERATE_ATTEMPTS = 5
# A signature dated "today" somewhere on earth is not in the future: compare with the
# date in the easternmost time zone (UTC+14), so no caller is refused a valid today.
_EARLIEST_ZONE = dt.timedelta(hours=14)

FIELDS: dict[str, Any] = {
    "contactId": s.ref("contact", "The debtor (Zahlungspflichtiger) who signed the mandate, e.g. the tenant or owner."),
    "objectId": s.ref("object", "The object the collections are for."),
    "contractId": s.ref("contract", "The contract (lease, ownership) whose payments are collected."),
    "bankAccountInfoId": s.ref(
        "bankAccountInfo", "The debtor's bank account record the mandate draws on, when one is on file."
    ),
    "iban": IBAN_FIELD,
    "bic": BIC_FIELD,
    "accountHolder": ACCOUNT_HOLDER_FIELD,
    "creditorId": s.checked(
        s.string(
            "Creditor identifier (Gläubiger-Identifikationsnummer) of the collecting creditor, e.g. "
            "DE98ZZZ09999999999; checked (ISO 7064 mod 97-10, as the EPC defines it) and stored compact in upper case.",
            max_length=50,
            format="sepa-creditor-id",
        )
    ),
    "mandateReference": {
        "type": "string",
        "pattern": sepa.MANDATE_REFERENCE_PATTERN,
        "maxLength": sepa.MANDATE_REFERENCE_MAX,
        "description": "Mandate reference (Mandatsreferenz): "
        "up to 35 characters of A-Z a-z 0-9 / - ? : ( ) . , ' + and the space; "
        "unique within the tenant, upper and lower case not told apart. Optional at creation: "
        "`accounting.directdebitmandate.generatereference` assigns one.",
    },
    "signatureDate": s.date("Day the debtor signed the mandate (Datum der Unterschrift); not in the future."),
    "type": s.enum(
        "`CORE`: SEPA-Basislastschrift (consumers and companies; the default); "
        "`B2B`: SEPA-Firmenlastschrift (companies only).",
        {
            "CORE": ("SEPA-Basislastschrift", "SEPA Core direct debit"),
            "B2B": ("SEPA-Firmenlastschrift", "SEPA B2B direct debit"),
        },
    ),
    "sequence": s.enum(
        "Sequence type of the next collection: "
        "`FRST` first of a series, `RCUR` recurring, `OOFF` one-off, `FNAL` final.",
        {
            "FRST": ("Erstlastschrift", "First collection"),
            "RCUR": ("Folgelastschrift", "Recurring collection"),
            "OOFF": ("Einmallastschrift", "One-off collection"),
            "FNAL": ("Letzte Lastschrift", "Final collection"),
        },
    ),
    "status": s.enum(
        "`active` (the default); `revoked`: widerrufen by the debtor; "
        "`expired`: verfallen (36 months without a collection, or past validUntil).",
        {"active": ("Gültig", "Active"), "revoked": ("Widerrufen", "Revoked"), "expired": ("Verfallen", "Expired")},
    ),
    "validUntil": s.date("Last day the mandate may be used, when limited; not before the signature date."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "contactId": ("Kontakt", "Contact"),
        "objectId": ("Objekt", "Object"),
        "contractId": ("Vertrag", "Contract"),
        "bankAccountInfoId": ("Bankkonto", "Bank account"),
        "iban": ("IBAN", "IBAN"),
        "bic": ("BIC", "BIC"),
        "accountHolder": ("Kontoinhaber", "Account holder"),
        "creditorId": ("Gläubiger-ID", "Creditor ID"),
        "mandateReference": ("Mandatsreferenz", "Mandate reference"),
        "signatureDate": ("Unterschrieben am", "Signature date"),
        "type": ("Lastschriftverfahren", "Direct debit scheme"),
        "sequence": ("Sequenztyp der nächsten Lastschrift", "Sequence type of the next collection"),
        "status": ("Mandatsstatus", "Mandate status"),
        "validUntil": ("Gültig bis", "Valid until"),
    },
)


def _derive(ctx: CallContext, data: dict[str, Any]) -> None:
    for name, value in DEFAULTS.items():
        data.setdefault(name, value)
    apply_iban(data, ARG)
    if data.get("creditorId") is not None:
        try:
            data["creditorId"] = sepa.normalise_creditor_id(data["creditorId"])
        except ValueError as err:
            raise invalid_at(f"{ARG}.creditorId", str(err)) from None


def _check(data: dict[str, Any], entity_id: str | None) -> None:
    latest_today = (clock.now() + _EARLIEST_ZONE).date().isoformat()
    if data["signatureDate"] > latest_today:
        raise invalid_at(f"{ARG}.signatureDate", "signatureDate lies in the future")
    reference = data.get("mandateReference")
    problem = sepa.mandate_reference_problem(reference) if reference is not None else None
    if problem:
        raise invalid_at(f"{ARG}.mandateReference", problem)


DIRECT_DEBIT_MANDATE = declare(
    EntityType(
        name="directDebitMandate",
        plural="directDebitMandates",
        prefix="ddm",
        area="accounting",
        fields=FIELDS,
        filters=("iban", "objectId", "contactId"),
        required=("contactId", "iban", "accountHolder", "creditorId", "signatureDate"),
        periods=(Period("signatureDate", "validUntil"),),
        check=_check,
        derive=_derive,
        unique={"mandateReference": (sepa.mandate_reference_key, codes.MANDATE_REFERENCE_TAKEN)},
    )
)

DOC = """A direct debit mandate (SEPA-Lastschriftmandat) is the debtor's (`contactId`, e.g. a tenant or
owner) written authorisation for the creditor (`creditorId`, the Gläubiger-ID of the WEG, the owner or
the manager) to collect from the account `iban` of `accountHolder`. `objectId`, `contractId` and
`bankAccountInfoId` optionally tie it to the object, the contract and the account record it concerns. The
mandate keeps its own `iban` as signed: later changes to the bank account record do not change it.

Checks: `iban` (check digits) and `bic` as for bank accounts, stored compact in upper case; `creditorId`
(ISO 7064 mod 97-10 over the identifier without its 3-character business code, as the EPC defines it,
e.g. DE98ZZZ09999999999); `signatureDate` not in the future; `validUntil` not before `signatureDate`.

`mandateReference` (Mandatsreferenz) identifies the mandate together with the creditor identifier: up to
35 characters of A-Z a-z 0-9 / - ? : ( ) . , ' + and the space. It is unique within the tenant (banks do
not tell upper from lower case, so neither does the check; spaces count). It may be left out at creation
and assigned later by `accounting.directdebitmandate.generatereference`. A deleted mandate keeps its
reference reserved (it can be restored), and SEPA advises against reusing references anyway.

`type`: `CORE` (Basislastschrift, the default) or `B2B` (Firmenlastschrift). `sequence`: `FRST`, `RCUR`,
`OOFF`, `FNAL`. `status`: `active` (the default), `revoked` (widerrufen), `expired` (verfallen: 36 months
unused, or past `validUntil`)."""

CHECK_ERROR = (
    codes.INVALID_REQUEST,
    "IBAN, BIC, creditor identifier, mandate reference or dates are not valid; `errors` names the field.",
)


def generate_reference(ctx: CallContext, mandate_id: str) -> store.StoredEntity:
    """Give the mandate a new generated reference (releasing its old one); a generated
    reference that is taken already is replaced by another, a few times at most."""
    store.get_item(ctx, DIRECT_DEBIT_MANDATE, mandate_id, path=ARG)  # a 404 names the argument
    for _ in range(GENERATE_ATTEMPTS):
        change = {"mandateReference": sepa.generate_mandate_reference()}
        try:
            return store.update(ctx, DIRECT_DEBIT_MANDATE, mandate_id, change, expected_version=None, path=ARG)
        except Conflict as err:
            if err.code != codes.MANDATE_REFERENCE_TAKEN.code:
                raise
    raise Conflict("Could not find a free mandate reference; retry.", code=codes.WRITE_CONFLICT)


def _generate(ctx: CallContext, args: AccountingDirectdebitmandateGeneratereferenceArgs) -> dict[str, Any]:
    return {ARG: store.to_wire(ctx, generate_reference(ctx, args[ARG]))}


_EXAMPLE = {
    "contactId": "<contact id or alias>",
    "objectId": "<object id or alias>",
    "iban": "DE89 3704 0044 0532 0130 00",
    "accountHolder": "Erika Mustermann",
    "creditorId": "DE98ZZZ09999999999",
    "signatureDate": "2024-01-15",
    "type": "CORE",
    "sequence": "FRST",
}

declare_create(
    DIRECT_DEBIT_MANDATE,
    name="accounting.directdebitmandate.create",
    arg=ARG,
    docs=DOC,
    example=_EXAMPLE,
    errors=(CHECK_ERROR, codes.MANDATE_REFERENCE_TAKEN),
    summary="Create a SEPA direct debit mandate (SEPA-Lastschriftmandat).",
    upsert="accounting.directdebitmandates.upsert",  # as its list, accounting.directdebitmandates.list
)
declare_update(
    DIRECT_DEBIT_MANDATE,
    name="accounting.directdebitmandate.update",
    arg=ARG,
    docs=DOC + "\n\nChanging `mandateReference` releases the old reference for other mandates.",
    example={"status": "revoked"},
    errors=(CHECK_ERROR, codes.MANDATE_REFERENCE_TAKEN),
    summary="Change fields of a SEPA direct debit mandate.",
)
register(
    Operation(
        name="accounting.directdebitmandate.generatereference",
        kind="command",
        summary="Generate a new unique mandate reference, store it on the mandate and return the mandate.",
        docs=DOC + '\n\nGenerates a readable reference, "PM-" followed by 16 random Crockford base32 characters '
        "(no I, L, O, U), e.g. `PM-7K2Q9WXT4M8HD3RB`, that no other mandate of the tenant holds; "
        "stores it on the mandate (releasing the reference it had) and answers the mandate. "
        "Tell the debtor the new reference before the next collection.",
        args=s.obj({ARG: s.ref(DIRECT_DEBIT_MANDATE.name, "The mandate that gets the new reference.")}, required=[ARG]),
        result=singular_result(DIRECT_DEBIT_MANDATE, ARG, "The mandate with its new reference."),
        handler=_generate,
        scope="write:accounting",
        errors=((codes.STALE_VERSION, "the mandate changed during the call; retry."),),
        example={ARG: "<id or alias>"},
    )
)
declare_show(DIRECT_DEBIT_MANDATE, name="accounting.directdebitmandate.detail", arg=ARG, docs=DOC)
declare_owner_list(
    DIRECT_DEBIT_MANDATE,
    name="accounting.directdebitmandates.list",
    docs="Lists direct debit mandates. " + DOC,
    what="direct debit mandates",
)
declare_lifecycle(DIRECT_DEBIT_MANDATE, prefix="accounting.directdebitmandate", arg=ARG)
