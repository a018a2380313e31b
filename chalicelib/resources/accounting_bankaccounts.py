"""Bank account infos (Bankverbindungen): the accounts of contacts (tenants, owners,
suppliers) and of objects (the WEG's Hausgeldkonto and Rücklagenkonto, the Mietkonto of a
rental building)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from chalicelib import error_codes as codes
from chalicelib import schemas as s
from chalicelib import sepa
from chalicelib.context import CallContext
from chalicelib.declare import (
    UPDATE_NOTE,
    declare_create,
    declare_lifecycle,
    declare_list,
    declare_show,
    record_update,
    singular_result,
    update_mode_payload,
)
from chalicelib.entities import EntityType, declare
from chalicelib.errors import invalid_at
from chalicelib.registry import DocumentedError, Operation, register
from chalicelib.store import entities as store

if TYPE_CHECKING:  # the generated argument types (generate/arg_types.py): for mypy only
    from chalicelib.arg_types import AccountingBankaccountinfosUpdateArgs

ARG: Final = "bankAccountInfo"  # Final: a literal key of the arguments' TypedDict
ACCOUNT_TYPES = {
    "current": ("Bewirtschaftungskonto (Girokonto)", "Current account"),
    "reserve": ("Rücklagenkonto", "Reserve account"),
    "deposit": ("Kautionskonto", "Deposit account"),
    "other": ("Sonstiges Konto", "Other account"),
}

IBAN_FIELD = s.checked(
    s.string(
        "IBAN of the account. Spaces and lower case are accepted (`de89 3704 0044 0532 0130 00`); it is checked "
        "(country, length, check digits) and stored compact in upper case (`DE89370400440532013000`).",
        max_length=50,
        minLength=5,
        format="iban",  # ISO 13616; the check digits are no pattern's
    )
)
BIC_FIELD = s.checked(
    s.string(
        "BIC (SWIFT code) of the bank, 8 or 11 characters, e.g. COBADEFFXXX; checked and stored compact in upper case.",
        max_length=20,
        format="bic",  # ISO 9362
    )
)
ACCOUNT_HOLDER_FIELD = s.string(
    "Account holder (Kontoinhaber) as the bank knows it, e.g. WEG Musterstraße 12 or Erika Mustermann.", max_length=200
)

FIELDS: dict[str, Any] = {
    "contactId": s.ref(
        "contact",
        "The contact whose account it is (tenant, owner, supplier). "
        "Set by `accounting.bankaccountinfos.create.contact`; fixed after creation.",
    ),
    "objectId": s.ref(
        "object",
        "The object whose account it is (e.g. the WEG's Hausgeldkonto). "
        "Set by `accounting.bankaccountinfos.create.object`; fixed after creation.",
    ),
    "iban": IBAN_FIELD,
    "bic": {
        **BIC_FIELD,
        "description": BIC_FIELD["description"]
        + " Optional: when left out, it is taken from the IBAN where the bank is known (German banks are).",
    },
    "accountHolder": ACCOUNT_HOLDER_FIELD,
    "bankName": s.string(
        "Name of the bank (Kreditinstitut). When left out, taken from the IBAN where the bank is known.", max_length=200
    ),
    "label": s.string(
        "What the account is for, in the manager's words, "
        'e.g. "Hausgeldkonto", "Rücklagenkonto", "Mietkonto", "Kautionskonto".',
        max_length=100,
    ),
    "accountType": s.enum(
        "`current`: Girokonto / Bewirtschaftungskonto (Hausgeld, rents, running costs); "
        "`reserve`: Rücklagenkonto (the WEG's Erhaltungsrücklage); "
        "`deposit`: Kautionskonto (rent deposits, kept apart from the landlord's assets, § 551 BGB); "
        "`other`: anything else.",
        ACCOUNT_TYPES,
    ),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "contactId": ("Kontakt", "Contact"),
        "objectId": ("Objekt", "Object"),
        "iban": ("IBAN", "IBAN"),
        "bic": ("BIC", "BIC"),
        "accountHolder": ("Kontoinhaber", "Account holder"),
        "bankName": ("Bank", "Bank"),
        "label": ("Bezeichnung", "Label"),
        "accountType": ("Kontoart", "Account type"),
    },
)


def apply_iban(data: dict[str, Any], arg: str) -> None:
    """Check and normalise `iban` and `bic` in place (400 at `<arg>.iban` / `<arg>.bic`)."""
    for name, normalise in (("iban", sepa.normalise_iban), ("bic", sepa.normalise_bic)):
        if data.get(name) is not None:
            try:
                data[name] = normalise(data[name])
            except ValueError as err:
                raise invalid_at(f"{arg}.{name}", str(err)) from None


def _derive(ctx: CallContext, data: dict[str, Any]) -> None:
    """Normalise IBAN and BIC; fill BIC and bank name from the IBAN when the bank is known."""
    apply_iban(data, ARG)
    if data.get("iban") is not None and (data.get("bic") is None or data.get("bankName") is None):
        bank = sepa.bank_of(data["iban"])
        if data.get("bic") is None and bank.bic:
            data["bic"] = bank.bic
        if data.get("bankName") is None and bank.name:
            data["bankName"] = bank.name


def _check(data: dict[str, Any], entity_id: str | None) -> None:
    owners = [name for name in ("contactId", "objectId") if data.get(name) is not None]
    if len(owners) != 1:
        raise invalid_at(ARG, "a bank account belongs to exactly one contact or one object")


BANK_ACCOUNT_INFO = declare(
    EntityType(
        name="bankAccountInfo",
        plural="bankAccountInfos",
        prefix="bai",
        area="accounting",
        fields=FIELDS,
        filters=("iban", "objectId", "contactId"),
        # The owner comes from the create command's own argument and never changes.
        readonly=("contactId", "objectId"),
        required=("iban", "accountHolder"),
        check=_check,
        derive=_derive,
    )
)

DOC = """A bank account info (Bankverbindung) is one bank account of a contact (tenant, owner, supplier,
service provider) or of an object (the WEG's Hausgeldkonto and Rücklagenkonto, the Mietkonto or
Kautionskonto of a rental building). It belongs to exactly one owner: `contactId` (created with
`accounting.bankaccountinfos.create.contact`) or `objectId` (created with
`accounting.bankaccountinfos.create.object`); the owner is fixed once created.

`iban` is required and checked (country, length, ISO 13616 check digits); spaces and lower case are
accepted and it is stored compact in upper case, so `de89 3704 0044 0532 0130 00` and
`DE89370400440532013000` are the same account. `bic` is optional and checked; when it is left out, the
service fills `bic` and `bankName` from the IBAN where the bank is known (German banks are, via the
Bundesbank's bank code register). `accountHolder` (Kontoinhaber) is required. `label` names the account
in the manager's words ("Hausgeldkonto", "Rücklagenkonto"), `accountType` classifies it: `current`
(Girokonto for Hausgeld, rents and running costs), `reserve` (Rücklagenkonto for the Erhaltungsrücklage),
`deposit` (Kautionskonto, kept apart as § 551 BGB requires) or `other`.

Contracts point at accounts with bank account uses, mandates may name the account they draw on; an
account still referenced that way cannot be deleted."""

ERRORS: tuple[DocumentedError, ...] = (
    (
        codes.INVALID_REQUEST,
        "the IBAN or BIC is not valid (`errors` names `bankAccountInfo.iban` or `bankAccountInfo.bic`).",
    ),
)

_EXAMPLE = {
    "iban": "DE89 3704 0044 0532 0130 00",
    "accountHolder": "WEG Musterstraße 12",
    "label": "Hausgeldkonto",
    "accountType": "current",
}

declare_create(
    BANK_ACCOUNT_INFO,
    name="accounting.bankaccountinfos.create.contact",
    arg=ARG,
    docs="Creates a bank account of a contact. " + DOC,
    parents={"contact": "contactId"},
    example={
        "iban": "DE89370400440532013000",
        "accountHolder": "Erika Mustermann",
        "label": "Privatkonto",
        "accountType": "current",
    },
    summary="Create a bank account info of a contact (tenant, owner, supplier).",
)
declare_create(
    BANK_ACCOUNT_INFO,
    name="accounting.bankaccountinfos.create.object",
    arg=ARG,
    docs="Creates a bank account of an object (e.g. the WEG's Hausgeldkonto). " + DOC,
    parents={"object": "objectId"},
    example=_EXAMPLE,
    summary="Create a bank account info of an object (Hausgeldkonto, Rücklagenkonto, Mietkonto).",
)
declare_show(BANK_ACCOUNT_INFO, name="accounting.bankaccountinfos.detail", arg=ARG, docs=DOC)


# --- update: a new IBAN brings its own BIC and bank name --------------------------------


def _update(ctx: CallContext, args: AccountingBankaccountinfosUpdateArgs) -> dict[str, Any]:
    changes = args[ARG]
    entity_id, version = changes["id"], changes.get("version")
    payload: dict[str, Any] = {name: value for name, value in changes.items() if name not in ("id", "version")}
    if payload.get("iban") is not None:
        stored = store.get_item(ctx, BANK_ACCOUNT_INFO, entity_id, path=f"{ARG}.id").data_dict()
        if sepa.compact(payload["iban"]) != stored.get("iban"):
            # BIC and bank name of the old IBAN do not fit the new one: derive them again unless sent.
            payload.setdefault("bic", None)
            payload.setdefault("bankName", None)
    item = store.update(ctx, BANK_ACCOUNT_INFO, entity_id, payload, expected_version=version, path=ARG)
    return {ARG: store.to_wire(ctx, item)}


_UPDATABLE = {k: v for k, v in FIELDS.items() if k not in BANK_ACCOUNT_INFO.readonly}

record_update(
    BANK_ACCOUNT_INFO,
    register(
        Operation(
            name="accounting.bankaccountinfos.update",
            kind="command",
            summary="Change fields of a bank account info.",
            docs=DOC + "\n\nA changed `iban` without `bic` (or `bankName`) drops the old IBAN's BIC (bank name) "
            "and takes the new one's where the bank is known. The owner cannot change.\n\n" + UPDATE_NOTE,
            args=s.obj({ARG: update_mode_payload(BANK_ACCOUNT_INFO, _UPDATABLE)}, required=[ARG]),
            result=singular_result(BANK_ACCOUNT_INFO, ARG, "The bank account info after the change."),
            handler=_update,
            scope="write:accounting",
            errors=(*ERRORS, codes.STALE_VERSION),
            example={ARG: {"id": "<id or alias>", "label": "Rücklagenkonto", "accountType": "reserve"}},
        )
    ),
    ARG,
)


# --- lists -----------------------------------------------------------------------------


def declare_owner_list(etype: EntityType, *, name: str, docs: str, what: str) -> Operation:
    """A paged list filtered by `iban`, `object` and `contact` (all optional). The IBAN is
    compared in its stored form, so `de89 3704 ...` finds `DE893704...`."""
    return declare_list(
        etype,
        name=name,
        docs=docs + "\n\nFilters combine (all must hold). `iban` may be written with spaces or in lower case.",
        filters={
            "iban": s.string("Only those with this IBAN (spaces and case do not matter).", max_length=50),
            "object": s.ref("object", f"Only {what} of this object."),
            "contact": s.ref("contact", f"Only {what} of this contact."),
        },
        fields={"object": "objectId", "contact": "contactId"},
        normalise={"iban": sepa.compact},
        example={"iban": "DE89 3704 0044 0532 0130 00", "limit": 100, "offset": 0},
        summary=f"List {what} of the account, in creation order. Filter by `iban`, `object`, `contact`.",
    )


declare_owner_list(
    BANK_ACCOUNT_INFO,
    name="accounting.bankaccountinfos.list",
    docs="Lists bank account infos. " + DOC,
    what="bank account infos",
)
declare_list(
    BANK_ACCOUNT_INFO,
    name="accounting.object.bankaccountinfos",
    docs="Lists the bank accounts of one object (Hausgeldkonto, Rücklagenkonto, Mietkonto, ...), in creation order. "
    + DOC,
    filters={"object": s.ref("object", "The object whose accounts to list.")},
    fields={"object": "objectId"},
    required_filters=("object",),
    paging_required=False,
    summary="List the bank accounts of one object.",
)
declare_lifecycle(BANK_ACCOUNT_INFO, prefix="accounting.bankaccountinfos", arg=ARG)
