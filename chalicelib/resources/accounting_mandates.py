"""SEPA direct debit mandates (SEPA-Lastschriftmandate): a debtor's authorisation to
collect from an account, identified by creditor identifier and mandate reference.

Mandate references are unique within the tenant. A guard item per reference
(PK <tenant>#mandateref#<REFERENCE>, SK "guard") is written with a does-not-exist
condition in the same transaction as the mandate, and released in the transaction that
changes the reference; so two mandates can never hold the same reference, even when
written at the same moment. The generic store cannot add items to its transactions, so
create, update and generatereference write here (same stamps, index keys and reference
edges as chalicelib/store/entities.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from chalicelib import clock, ids
from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.entities import EntityType, declare
from chalicelib.errors import Conflict, invalid_at, not_found_at
from chalicelib.registry import Operation, register
from chalicelib.resources import sepa
from chalicelib.resources.accounting_bankaccounts import ACCOUNT_HOLDER_FIELD, BIC_FIELD, IBAN_FIELD, apply_iban, declare_owner_list
from chalicelib.resources.common import UPDATE_NOTE, declare_lifecycle, declare_show, singular_result
from chalicelib.store import entities as store
from chalicelib.store import refs
from chalicelib.store.model import ENTITY_SK, Item, Transaction, TransactionCancelled

ARG = "directDebitMandate"
REQUIRED = ["contactId", "iban", "accountHolder", "creditorId", "signatureDate"]
DEFAULTS = {"type": "CORE", "status": "active"}
GUARD_SK = "guard"
GENERATE_ATTEMPTS = 5
# A signature dated "today" somewhere on earth is not in the future: compare with the
# date in the easternmost time zone (UTC+14), so no caller is refused a valid today.
_EARLIEST_ZONE = dt.timedelta(hours=14)

FIELDS: dict[str, Any] = {
    "contactId": s.ref("contact", "The debtor (Zahlungspflichtiger) who signed the mandate, e.g. the tenant or owner."),
    "objectId": s.ref("object", "The object the collections are for."),
    "contractId": s.ref("contract", "The contract (lease, ownership) whose payments are collected."),
    "bankAccountInfoId": s.ref("bankAccountInfo", "The debtor's bank account record the mandate draws on, when one is on file."),
    "iban": IBAN_FIELD,
    "bic": BIC_FIELD,
    "accountHolder": ACCOUNT_HOLDER_FIELD,
    "creditorId": s.string(
        "Creditor identifier (Gläubiger-Identifikationsnummer) of the collecting creditor, e.g. DE98ZZZ09999999999; checked "
        "(ISO 7064 mod 97-10, as the EPC defines it) and stored compact in upper case.",
        max_length=50,
    ),
    "mandateReference": {
        "type": "string",
        "pattern": sepa.MANDATE_REFERENCE_PATTERN,
        "maxLength": sepa.MANDATE_REFERENCE_MAX,
        "description": "Mandate reference (Mandatsreferenz): up to 35 characters of A-Z a-z 0-9 / - ? : ( ) . , ' + and the space; "
        "unique within the tenant, upper and lower case not told apart. Optional at creation: "
        "`accounting.directdebitmandate.generatereference` assigns one.",
    },
    "signatureDate": s.date("Day the debtor signed the mandate (Datum der Unterschrift); not in the future."),
    "type": s.enum("`CORE`: SEPA-Basislastschrift (consumers and companies; the default); `B2B`: SEPA-Firmenlastschrift (companies only).", ["CORE", "B2B"]),
    "sequence": s.enum(
        "Sequence type of the next collection: `FRST` first of a series, `RCUR` recurring, `OOFF` one-off, `FNAL` final.", ["FRST", "RCUR", "OOFF", "FNAL"]
    ),
    "status": s.enum(
        "`active` (the default); `revoked`: widerrufen by the debtor; `expired`: verfallen (36 months without a collection, or past validUntil).",
        ["active", "revoked", "expired"],
    ),
    "validUntil": s.date("Last day the mandate may be used, when limited; not before the signature date."),
}


def _derive(ctx: CallContext, data: dict[str, Any]) -> None:
    apply_iban(data, ARG)
    if data.get("creditorId") is not None:
        try:
            data["creditorId"] = sepa.normalise_creditor_id(data["creditorId"])
        except ValueError as err:
            raise invalid_at(f"{ARG}.creditorId", str(err)) from None


def _check(data: dict[str, Any], entity_id: str | None) -> None:
    for name in REQUIRED:
        if data.get(name) is None:
            raise invalid_at(f"{ARG}.{name}", f"a direct debit mandate needs {name}")
    latest_today = (clock.now() + _EARLIEST_ZONE).date().isoformat()
    if data["signatureDate"] > latest_today:
        raise invalid_at(f"{ARG}.signatureDate", "signatureDate lies in the future")
    if data.get("validUntil") and data["validUntil"] < data["signatureDate"]:
        raise invalid_at(f"{ARG}.validUntil", "validUntil lies before signatureDate")
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
        check=_check,
        derive=_derive,
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

TAKEN_ERROR = "409 `mandate_reference_taken`: another mandate of the tenant holds this reference (case-insensitive)."
CHECK_ERROR = "400 `invalid_request`: IBAN, BIC, creditor identifier, mandate reference or dates are not valid; `errors` names the field."


# --- guarded writes --------------------------------------------------------------------


def guard_pk(tenant_id: str, reference: str) -> str:
    return f"{tenant_id}#mandateref#{sepa.mandate_reference_key(reference)}"


def _guard_item(ctx: CallContext, reference: str, mandate_id: str) -> Item:
    return Item(
        guard_pk(ctx.tenant_id, reference),
        GUARD_SK,
        type="mandateReferenceGuard",
        tenantId=ctx.tenant_id,
        id=mandate_id,
        data={"mandateReference": reference, "mandateId": mandate_id},
        createdAt=clock.now_iso(),
        changedBy=ctx.stamp(),
    )


def _guard_change(before: str | None, after: str | None) -> tuple[str | None, str | None]:
    """(reference to take, reference to release); nothing when only the case changed."""

    def key(reference: str | None) -> str | None:
        return sepa.mandate_reference_key(reference) if reference is not None else None

    if key(before) == key(after):
        return None, None
    return after, before


def _commit(
    ctx: CallContext,
    item: Item,
    write_self: Callable[[Transaction], None],
    *,
    added: list[refs.Ref],
    removed: list[refs.Ref],
    take: str | None,
    release: str | None,
) -> None:
    """One transaction: the mandate's own write (label "self"), liveness checks and edges of
    new references, removal of old edges, and the reference guards."""
    mandate_id = item.id or ""
    try:
        with Transaction() as tx:
            write_self(tx)
            checked: set[str] = set()
            for ref in added:
                if ref.target_id not in checked:
                    checked.add(ref.target_id)
                    live = Item.pk.exists() & Item.deletedAt.does_not_exist()
                    tx.condition_check(store.entity_pk(ctx.tenant_id, ref.target_id), ENTITY_SK, condition=live, label=ref)
                tx.save(refs.edge_item(ctx, DIRECT_DEBIT_MANDATE, mandate_id, ref))
            for ref in removed:
                tx.delete(Item(*refs.edge_key(ctx, mandate_id, ref)))
            if take is not None:
                free = Item.pk.does_not_exist() | (Item.id == mandate_id)
                tx.save(_guard_item(ctx, take, mandate_id), condition=free, label="reference")
            if release is not None:
                tx.delete(Item(guard_pk(ctx.tenant_id, release), GUARD_SK))
    except TransactionCancelled as err:
        if "reference" in err.failed:
            raise Conflict(
                f"Mandate reference {take!r} is already used by another mandate of this tenant.",
                code="mandate_reference_taken",
                errors=[{"path": f"{ARG}.mandateReference", "message": "reference already used by another mandate"}],
            ) from err
        for ref in added:
            if ref in err.failed:
                raise not_found_at(f"{ARG}.{ref.path}", f"No live {ref.target_type} with id {ref.target_id} in this tenant.") from err
        if "self" in err.failed:
            raise _stale(mandate_id, int(item.version) + 1) from err
        raise Conflict("The write collided with another; retry.", code="write_conflict") from err


def _stale(mandate_id: str, current: int) -> Conflict:
    return Conflict(
        f"directDebitMandate {mandate_id} changed meanwhile (now version {current}); read it again and retry.",
        code="stale_version",
        extra={"currentVersion": current},
    )


def _index_actions(ctx: CallContext, mandate_id: str, data: dict[str, Any]) -> list[Any]:
    keys = store.index_keys(ctx.tenant_id, DIRECT_DEBIT_MANDATE, mandate_id, data)
    return [getattr(Item, name).set(value) if value is not None else getattr(Item, name).remove() for name, value in keys.items()]


def create_mandate(ctx: CallContext, payload: dict[str, Any]) -> Item:
    data = {**DEFAULTS, **payload}
    _derive(ctx, data)
    _check(data, None)
    mandate_id = ids.new_id(DIRECT_DEBIT_MANDATE.prefix)
    now = clock.now_iso()
    item = Item(
        store.entity_pk(ctx.tenant_id, mandate_id),
        ENTITY_SK,
        type=DIRECT_DEBIT_MANDATE.name,
        tenantId=ctx.tenant_id,
        id=mandate_id,
        data=data,
        version=1,
        createdAt=now,
        updatedAt=now,
        changedBy=ctx.stamp(),
        aliases={},
        **store.index_keys(ctx.tenant_id, DIRECT_DEBIT_MANDATE, mandate_id, data),
    )
    added = refs.outbound(DIRECT_DEBIT_MANDATE, data, self_id=mandate_id, arg=ARG)
    _commit(
        ctx,
        item,
        lambda tx: tx.save(item, condition=Item.pk.does_not_exist(), label="self"),
        added=added,
        removed=[],
        take=data.get("mandateReference"),
        release=None,
    )
    return item


def replace_data(ctx: CallContext, item: Item, data: dict[str, Any]) -> Item:
    """Store new data for a live mandate: stamps, index keys, reference edges and guards move along."""
    mandate_id = item.id or ""
    before = item.data_dict()
    old = set(refs.outbound(DIRECT_DEBIT_MANDATE, before, self_id=mandate_id, arg=ARG))
    new = set(refs.outbound(DIRECT_DEBIT_MANDATE, data, self_id=mandate_id, arg=ARG))
    take, release = _guard_change(before.get("mandateReference"), data.get("mandateReference"))
    version, now = int(item.version) + 1, clock.now_iso()
    actions = [
        Item.data.set(data),
        Item.version.set(version),
        Item.updatedAt.set(now),
        Item.changedBy.set(ctx.stamp()),
        *_index_actions(ctx, mandate_id, data),
    ]
    condition = (Item.version == item.version) & Item.deletedAt.does_not_exist()
    _commit(
        ctx,
        item,
        lambda tx: tx.update(item, actions=actions, condition=condition, label="self"),
        added=sorted(new - old, key=lambda r: r.path),
        removed=sorted(old - new, key=lambda r: r.path),
        take=take,
        release=release,
    )
    # A transaction answers nothing; what it wrote is known, so no second read.
    item.data, item.version, item.updatedAt = data, version, now
    return item


# --- operations ------------------------------------------------------------------------


def _create(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    return {ARG: store.to_wire(ctx, create_mandate(ctx, args[ARG]))}


def _update(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    changes = dict(args[ARG])
    mandate_id = changes.pop("id")
    version = changes.pop("version", None)
    item = store.get_item(ctx, DIRECT_DEBIT_MANDATE, mandate_id, path=f"{ARG}.id")
    if version is not None and version != item.version:
        raise _stale(mandate_id, int(item.version))
    data = item.data_dict()
    for name, value in changes.items():
        if value is None:
            data.pop(name, None)
        else:
            data[name] = value
    _derive(ctx, data)
    _check(data, mandate_id)
    return {ARG: store.to_wire(ctx, replace_data(ctx, item, data))}


def generate_reference(ctx: CallContext, mandate_id: str) -> Item:
    """Give the mandate a new generated reference (releasing its old one); a generated
    reference that is taken already is replaced by another, a few times at most."""
    item = store.get_item(ctx, DIRECT_DEBIT_MANDATE, mandate_id, path=ARG)
    for _ in range(GENERATE_ATTEMPTS):
        data = {**item.data_dict(), "mandateReference": sepa.generate_mandate_reference()}
        try:
            return replace_data(ctx, item, data)
        except Conflict as err:
            if err.code != "mandate_reference_taken":
                raise
    raise Conflict("Could not find a free mandate reference; retry.", code="write_conflict")


def _generate(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
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

register(
    Operation(
        name="accounting.directdebitmandate.create",
        kind="command",
        summary="Create a SEPA direct debit mandate (SEPA-Lastschriftmandat).",
        docs=DOC,
        args=s.obj(
            {ARG: s.obj(FIELDS, required=REQUIRED, description="The new directDebitMandate (Create mode: no id).")},
            required=[ARG],
        ),
        result=singular_result(DIRECT_DEBIT_MANDATE, ARG, "The created directDebitMandate."),
        handler=_create,
        scope="write:accounting",
        errors=(CHECK_ERROR, TAKEN_ERROR),
        example={ARG: _EXAMPLE},
    )
)
register(
    Operation(
        name="accounting.directdebitmandate.update",
        kind="command",
        summary="Change fields of a SEPA direct debit mandate.",
        docs=DOC + "\n\nChanging `mandateReference` releases the old reference for other mandates.\n\n" + UPDATE_NOTE,
        args=s.obj({ARG: s.update_payload(FIELDS, DIRECT_DEBIT_MANDATE.name, "The changes (Update mode).")}, required=[ARG]),
        result=singular_result(DIRECT_DEBIT_MANDATE, ARG, "The directDebitMandate after the change."),
        handler=_update,
        scope="write:accounting",
        errors=(CHECK_ERROR, TAKEN_ERROR, "409 `stale_version`: the entity changed since the `version` you sent; read it again."),
        example={ARG: {"id": "<id or alias>", "status": "revoked"}},
    )
)
register(
    Operation(
        name="accounting.directdebitmandate.generatereference",
        kind="command",
        summary="Generate a new unique mandate reference, store it on the mandate and return the mandate.",
        docs=DOC + '\n\nGenerates a readable reference, "PM-" followed by 16 random Crockford base32 characters (no I, L, O, U), '
        "e.g. `PM-7K2Q9WXT4M8HD3RB`, that no other mandate of the tenant holds; stores it on the mandate (releasing the "
        "reference it had) and answers the mandate. Tell the debtor the new reference before the next collection.",
        args=s.obj({ARG: s.ref(DIRECT_DEBIT_MANDATE.name, "The mandate that gets the new reference.")}, required=[ARG]),
        result=singular_result(DIRECT_DEBIT_MANDATE, ARG, "The mandate with its new reference."),
        handler=_generate,
        scope="write:accounting",
        errors=("409 `stale_version`: the mandate changed during the call; retry.",),
        example={ARG: "<id or alias>"},
    )
)
declare_show(DIRECT_DEBIT_MANDATE, "accounting.directdebitmandate.detail", ARG, DOC)
declare_owner_list(DIRECT_DEBIT_MANDATE, "accounting.directdebitmandates.list", "Lists direct debit mandates. " + DOC, what="direct debit mandates")
declare_lifecycle(DIRECT_DEBIT_MANDATE, "accounting.directdebitmandate", ARG)
