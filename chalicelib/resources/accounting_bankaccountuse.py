"""Bank account uses: which bank account a contract uses for what (rent, service charges,
deposit, refunds, direct debits, payouts), from when to when."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import declare_create, declare_lifecycle, declare_show, declare_update, singular_result
from chalicelib.entities import ENTITY_TYPES, EntityType, Period, declare
from chalicelib.errors import NotFound
from chalicelib.registry import Operation, register
from chalicelib.store import entities as store

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import AccountingContractBankaccountuseFordateArgs

ARG = "bankAccountUse"
PURPOSES = {
    "rent": ("Miete", "Rent"),
    "serviceCharges": ("Nebenkosten und Hausgeld", "Service charges"),
    "deposit": ("Mietkaution", "Rent deposit"),
    "refund": ("Erstattungen", "Refunds"),
    "directDebit": ("Lastschrifteinzug", "Direct debit"),
    "payout": ("Auszahlungen", "Payouts"),
}
# A contract has a handful of uses; the fordate query reads them all (one page this large).
MAX_USES_PER_CONTRACT = 10_000

PURPOSE_DOC = (
    "`rent`: Miete (Grundmiete) is paid to or from this account; "
    "`serviceCharges`: Nebenkosten- / Betriebskostenvorauszahlungen (in a WEG: Hausgeld); "
    "`deposit`: Mietkaution; "
    "`refund`: Erstattungen, e.g. the credit from the annual service-charge statement (Nebenkostenabrechnung); "
    "`directDebit`: the account drawn on by SEPA direct debit (Lastschrifteinzug); "
    "`payout`: Auszahlungen, e.g. rent passed on to the owner."
)

FIELDS: dict[str, Any] = {
    "contractId": s.ref(
        "contract", "The contract (lease, ownership, management contract) that uses the account. Fixed after creation."
    ),
    "bankAccountInfoId": s.ref("bankAccountInfo", "The bank account used."),
    "purpose": s.enum("What the account is used for. " + PURPOSE_DOC, PURPOSES),
    "validFrom": s.date("First day the use applies (inclusive)."),
    "validTo": s.date("Last day the use applies (inclusive); open-ended when left out."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "contractId": ("Vertrag", "Contract"),
        "bankAccountInfoId": ("Bankkonto", "Bank account"),
        "purpose": ("Verwendung des Kontos", "Account used for"),
        "validFrom": ("Gültig ab", "Valid from"),
        "validTo": ("Gültig bis", "Valid to"),
    },
)


BANK_ACCOUNT_USE = declare(
    EntityType(
        name="bankAccountUse",
        plural="bankAccountUses",
        prefix="bau",
        area="accounting",
        fields=FIELDS,
        filters=("contractId",),
        required=("bankAccountInfoId", "purpose", "validFrom"),
        periods=(Period("validFrom", "validTo"),),
    )
)

DOC = f"""A bank account use says which bank account (`bankAccountInfoId`) a contract uses for what
(`purpose`) and when (`validFrom` to `validTo`, both inclusive; no `validTo` means open-ended). Purposes:
{PURPOSE_DOC}

A contract may use several accounts for the same purpose over time (a tenant changes banks: the old use
ends, a new one starts), and periods may overlap: `accounting.contract.bankaccountuse.fordate` then picks
the use with the latest `validFrom`. The contract is set by the create command's `contract` argument and
is fixed once created; `validTo` may not lie before `validFrom`."""

declare_create(
    BANK_ACCOUNT_USE,
    name="accounting.bankaccountuse.create",
    arg=ARG,
    docs="Creates a bank account use of a contract. " + DOC,
    parents={"contract": "contractId"},
    example={"bankAccountInfoId": "<bankAccountInfo id or alias>", "purpose": "rent", "validFrom": "2024-01-01"},
    summary="Record which bank account a contract uses for a purpose, from when to when.",
)
declare_update(
    BANK_ACCOUNT_USE,
    name="accounting.bankaccountuse.update",
    arg=ARG,
    docs=DOC,
    example={"validTo": "2024-12-31"},
    immutable=("contractId",),
)
declare_show(BANK_ACCOUNT_USE, name="accounting.bankaccountuse.detail", arg=ARG, docs=DOC)
declare_lifecycle(BANK_ACCOUNT_USE, prefix="accounting.bankaccountuse", arg=ARG)


# --- the use valid on a date -----------------------------------------------------------


def valid_use(uses: list[dict[str, Any]], purpose: str, valid_on: str) -> dict[str, Any] | None:
    """The use for `purpose` whose period holds `valid_on`: of overlapping ones the latest
    `validFrom` wins, ties go to the most recently created."""
    candidates = [
        use
        for use in uses
        if use.get("purpose") == purpose
        and use["validFrom"] <= valid_on
        and (use.get("validTo") is None or valid_on <= use["validTo"])
    ]
    return max(candidates, key=lambda use: (use["validFrom"], use["createdAt"], use["id"]), default=None)


def for_date(ctx: CallContext, args: AccountingContractBankaccountuseFordateArgs) -> dict[str, Any]:
    contract_id, purpose, valid_on = args["contract"], args["purpose"], args["validOn"]
    contract_type = ENTITY_TYPES.get("contract")
    if contract_type is not None:
        store.get_item(ctx, contract_type, contract_id, path="contract")  # 404 for an unknown contract
    items, _, _ = store.list_page(ctx, BANK_ACCOUNT_USE, {"contractId": contract_id}, MAX_USES_PER_CONTRACT, 0)
    use = valid_use([store.to_wire(ctx, item) for item in items], purpose, valid_on)
    if use is None:
        raise NotFound(
            f"Contract {contract_id} has no bank account use for {purpose} valid on {valid_on}.",
            code=codes.NO_VALID_BANK_ACCOUNT_USE,
        )
    return {ARG: use}


register(
    Operation(
        name="accounting.contract.bankaccountuse.fordate",
        kind="query",
        summary="The bank account use of a contract valid for a purpose on a date.",
        docs=DOC + "\n\nAnswers the one bank account use of `contract` for `purpose` whose period holds `validOn`. "
        "When several periods hold it, the one with the latest `validFrom` wins "
        "(the newer arrangement replaces the older), and of equal `validFrom` the most recently created. "
        "Read the account itself with `accounting.bankaccountinfos.detail`.",
        args=s.obj(
            {
                "contract": s.ref("contract", "The contract."),
                "purpose": s.enum("What the account is to be used for. " + PURPOSE_DOC, PURPOSES),
                "validOn": s.date("The day the use must be valid on."),
            },
            required=["contract", "purpose", "validOn"],
        ),
        result=singular_result(BANK_ACCOUNT_USE, ARG, "The bank account use valid on that day."),
        handler=for_date,
        scope="read:accounting",
        idempotent=True,
        errors=(codes.NO_VALID_BANK_ACCOUNT_USE,),
        example={"contract": "<id or alias>", "purpose": "rent", "validOn": "2024-06-01"},
    )
)
