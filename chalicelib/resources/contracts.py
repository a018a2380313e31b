"""Contracts: leases (Mietverträge) and ownerships (Eigentum an einer Einheit in einer WEG).
A contract belongs to a unit; its object follows from the unit."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from chalicelib import schemas as s
from chalicelib.context import CallContext
from chalicelib.declare import declare_create, declare_lifecycle, declare_list, declare_show, declare_update
from chalicelib.entities import EntityType, Period, declare
from chalicelib.errors import invalid_at
from chalicelib.resources.units import UNIT
from chalicelib.store import entities as store

CONTRACT_TYPES = {"lease": ("Mietvertrag", "Lease"), "ownership": ("Sondereigentum (WEG)", "Unit ownership (WEG)")}
ROLES = {
    "tenant": ("Mieter", "Tenant"),
    "coTenant": ("Mitmieter", "Co-tenant"),
    "owner": ("Eigentümer", "Owner"),
    "coOwner": ("Miteigentümer", "Co-owner"),
    "guarantor": ("Bürge", "Guarantor"),
    "subtenant": ("Untermieter", "Subtenant"),
}
LEASE_ROLES = {"tenant", "coTenant", "guarantor", "subtenant"}
OWNERSHIP_ROLES = {"owner", "coOwner"}
LEASE_ONLY = ("rent", "rentType", "deposit")

PARTY = s.obj(
    {
        "contactId": s.ref("contact", "The contact who is party to the contract."),
        "role": s.enum(
            "`tenant`: Mieter (main tenant); `coTenant`: Mitmieter; `subtenant`: Untermieter; `guarantor`: Bürge; "
            "`owner`: Eigentümer; `coOwner`: Miteigentümer (a further owner of the same unit).",
            ROLES,
        ),
        "share": s.decimal(
            'The party\'s fraction of the ownership or the rent liability, 0 to 1, e.g. "0.5".', places=4
        ),
    },
    required=["contactId", "role"],
)

RENT = s.obj(
    {
        "baseRent": s.decimal("Monthly Kaltmiete / Nettokaltmiete (base rent)."),
        "serviceChargeAdvance": s.decimal("Monthly Nebenkostenvorauszahlung (advance on operating costs, BetrKV)."),
        "heatingAdvance": s.decimal("Monthly Heizkostenvorauszahlung (advance on heating and hot-water costs)."),
        "otherAdvance": s.decimal("Other monthly advances or surcharges (e.g. parking, furniture)."),
        "currency": s.enum("Currency of the amounts.", ["EUR"], codes=True),
    },
    description="Monthly rent of a lease; amounts are decimal strings.",
)

DEPOSIT = s.obj(
    {
        "amount": s.decimal(
            "Amount of the Mietkaution (at most three monthly base rents for residential leases, § 551 BGB)."
        ),
        "type": s.enum(
            "`cash`: Barkaution; `bankGuarantee`: Bankbürgschaft; "
            "`depositAccount`: verpfändetes Kautionskonto / Mietkautionskonto; "
            "`suretyBond`: Bürgschaft (Mietkautionsbürgschaft / Kautionsversicherung).",
            {
                "cash": ("Barkaution", "Cash deposit"),
                "bankGuarantee": ("Bankbürgschaft", "Bank guarantee"),
                "depositAccount": ("Mietkautionskonto (verpfändet)", "Pledged deposit account"),
                "suretyBond": ("Kautionsbürgschaft", "Surety bond"),
            },
        ),
        "paidAt": s.date("When the deposit was paid or provided."),
    },
    description="Security deposit (Mietsicherheit / Kaution) of a lease.",
)

FIELDS: dict[str, Any] = {
    "unitId": s.ref("unit", "The unit the contract is about."),
    "objectId": s.ref("object", "The unit's object. Set by the service from `unitId`; never sent."),
    "type": s.enum(
        "`lease`: Mietvertrag (rental agreement); `ownership`: Eigentum (the owners of a unit in a WEG).",
        CONTRACT_TYPES,
    ),
    "parties": {**s.array(PARTY, "The contract parties with their roles, 1 to 20.", max_items=20), "minItems": 1},
    "startDate": s.date("First day of the contract (Mietbeginn / Eigentumsübergang)."),
    "endDate": s.date("Last day of the contract (Mietende / Eigentumsende); open-ended when absent."),
    "rent": RENT,
    "rentType": s.enum(
        "`standard`: fixed rent; `index`: Indexmiete (§ 557b BGB, tied to the consumer price index); "
        "`graduated`: Staffelmiete (§ 557a BGB).",
        {
            "standard": ("Feste Miete", "Fixed rent"),
            "index": ("Indexmiete", "Index-linked rent"),
            "graduated": ("Staffelmiete", "Graduated rent"),
        },
    ),
    "deposit": DEPOSIT,
    "noticePeriodMonths": s.integer("Notice period in months (Kündigungsfrist), 0 to 60.", minimum=0, maximum=60),
    "vatApplicable": s.boolean("Rent is subject to VAT (Umsatzsteuer-Option for commercial leases, § 9 UStG)."),
    "notes": s.text("Free-text notes."),
}
FIELDS = s.labelled(
    FIELDS,
    {
        "unitId": ("Einheit", "Unit"),
        "objectId": ("Objekt", "Object"),
        "type": ("Vertragsart", "Contract type"),
        "parties": ("Vertragsparteien", "Contract parties"),
        "contactId": ("Kontakt", "Contact"),
        "role": ("Rolle im Vertrag", "Role in the contract"),
        "share": ("Anteil", "Share"),
        "startDate": ("Vertragsbeginn", "Contract start"),
        "endDate": ("Vertragsende", "Contract end"),
        "rent": ("Miete", "Rent"),
        "baseRent": ("Grundmiete", "Base rent"),
        "serviceChargeAdvance": ("Nebenkostenvorauszahlung", "Service charge advance"),
        "heatingAdvance": ("Heizkostenvorauszahlung", "Heating advance"),
        "otherAdvance": ("Sonstige Vorauszahlung", "Other advance"),
        "currency": ("Währung", "Currency"),
        "rentType": ("Mietart", "Rent type"),
        "deposit": ("Kaution", "Deposit"),
        "deposit.amount": ("Kautionsbetrag", "Deposit amount"),
        "deposit.type": ("Art der Kaution", "Deposit type"),
        "deposit.paidAt": ("Geleistet am", "Provided on"),
        "noticePeriodMonths": ("Kündigungsfrist (Monate)", "Notice period (months)"),
        "vatApplicable": ("Umsatzsteuerpflichtig", "VAT applies"),
        "notes": ("Notizen", "Notes"),
    },
)


def _check(data: dict[str, Any], contract_id: str | None) -> None:
    kind, parties = data["type"], data["parties"]
    allowed = LEASE_ROLES if kind == "lease" else OWNERSHIP_ROLES
    seen: set[str] = set()
    for i, party in enumerate(parties):
        if party["role"] not in allowed:
            raise invalid_at(
                f"contract.parties[{i}].role",
                f"a {kind} takes the roles {', '.join(sorted(allowed))}, not {party['role']}",
            )
        if party["contactId"] in seen:
            raise invalid_at(f"contract.parties[{i}].contactId", "the contact is a party already")
        seen.add(party["contactId"])
        if party.get("share") is not None and Decimal(party["share"]) > 1:
            raise invalid_at(f"contract.parties[{i}].share", "a share lies between 0 and 1")
    main_role = "tenant" if kind == "lease" else "owner"
    if not any(p["role"] == main_role for p in parties):
        raise invalid_at("contract.parties", f"a {kind} needs at least one party with role {main_role}")
    if kind != "lease":
        for name in LEASE_ONLY:
            if data.get(name) is not None:
                raise invalid_at(f"contract.{name}", f"{name} belongs to leases only")


def _derive(ctx: CallContext, data: dict[str, Any]) -> None:
    """objectId follows from the unit (one read, which also checks that the unit is live)."""
    unit_id = data.get("unitId")
    if unit_id is None:
        raise invalid_at("contract.unitId", "a contract needs unitId")
    unit = store.get_item(ctx, UNIT, unit_id, path="contract.unitId")
    data["objectId"] = unit.data_dict()["objectId"]


CONTRACT = declare(
    EntityType(
        name="contract",
        plural="contracts",
        prefix="ctr",
        area="contracts",
        fields=FIELDS,
        filters=("objectId", "unitId"),
        readonly=("objectId",),
        required=("unitId", "type", "startDate", "parties"),
        periods=(Period("startDate", "endDate"),),
        check=_check,
        derive=_derive,
    )
)

DOC = """A contract belongs to one unit: a lease (`type: lease`, Mietvertrag) or an ownership (`type: ownership`,
the owners of a unit in a WEG). `objectId` is read-only: the service sets it from the unit, and it follows
when `unitId` changes.

`parties` (1 to 20) name contacts with a role: a lease needs at least one `tenant` (Mieter) and may add
`coTenant` (Mitmieter), `subtenant` (Untermieter) and `guarantor` (Bürge); an ownership needs at least one
`owner` (Eigentümer) and may add `coOwner` (Miteigentümer). Each contact appears once; `share` (0 to 1)
is the party's fraction of the ownership or the rent liability.

`startDate` is the first day (Mietbeginn / Eigentumsübergang), `endDate` the last day and may not lie before
it. Leases only: `rent` (monthly Kaltmiete `baseRent`, Nebenkostenvorauszahlung `serviceChargeAdvance`,
Heizkostenvorauszahlung `heatingAdvance`, `otherAdvance`; decimal strings, EUR), `rentType` (`standard`,
Indexmiete `index`, Staffelmiete `graduated`) and `deposit` (Kaution: amount, kind: Barkaution, Bankbürgschaft,
Kautionskonto, Bürgschaft; `paidAt`). `noticePeriodMonths` is the Kündigungsfrist, `vatApplicable` marks
commercial leases with VAT (Umsatzsteuer-Option).

A unit with live contracts cannot be deleted; a contact that is a party cannot be deleted either."""

declare_list(
    CONTRACT,
    name="contracts",
    docs="Lists the contracts of the tenant, optionally of one object or one unit. " + DOC,
    filters={
        "objectId": s.ref("object", "Only contracts of units of this object."),
        "unitId": s.ref("unit", "Only contracts of this unit."),
    },
)
declare_show(CONTRACT, name="contracts.show", arg="contract", docs=DOC)
declare_create(
    CONTRACT,
    name="contracts.create",
    arg="contract",
    docs=DOC,
    example={
        "unitId": "<unit id or alias>",
        "type": "lease",
        "startDate": "2024-01-01",
        "parties": [{"contactId": "<contact id or alias>", "role": "tenant"}],
        "rent": {"baseRent": "850.00", "serviceChargeAdvance": "180.00", "heatingAdvance": "95.00", "currency": "EUR"},
        "rentType": "index",
        "deposit": {"amount": "2550.00", "type": "depositAccount", "paidAt": "2023-12-15"},
        "noticePeriodMonths": 3,
    },
)
declare_update(
    CONTRACT,
    name="contracts.update",
    arg="contract",
    docs=DOC + "\n\nChanging `unitId` moves the contract to that unit and sets `objectId` from it.",
    example={"endDate": "2026-06-30"},
)
declare_lifecycle(CONTRACT, prefix="contracts", arg="contract")
