"""The demo Hausverwaltung a sandbox tenant starts with (issue 36): a seeded, deterministic generator of
a plausible German property management company, written as export lines (exports/lines.py) so that the
same code path that re-imports an export (pmctl import: the upserts, documents by upload) loads it.

- `demo_lines(seed)`: the lines in load order (referenced entities before referencing ones; companies
  before the persons whose `companyId` names them). Every reference is written as the referenced
  entity's alias, every alias starts `demo-` (the example integration's names).
- `demo_files(seed)`: the documents' PDFs by the file name their lines carry in `file`. Only it renders
  them (fpdf2 takes most of a second to import), so document lines carry no `size`: the upload sets it.
- `DEMO_TOTALS`: how many entities of each type the lines hold. The structure (objects, units, who owns
  or rents what) is the same for every seed; the seed decides names, addresses, dates, amounts and IBANs,
  so a sandbox reset with any seed restores these totals.
- `size`: `full` (the default: the five objects of DEMO_TOTALS) or `small` (SMALL_TOTALS: the same staff
  and one small WEG, which still holds every entity type, PDFs and IBANs included, in a fifteenth of the
  lines), for tests that plant a sandbox to look at something other than the demo's size
  (PM_DEMO_SIZE, config.demo_size()).

Names and addresses come from Faker's de_DE provider, IBANs from schwifty (real German bank codes from
its bank registry, national check digits included), PDFs from fpdf2. Nothing depends on the clock: every
date lies in fixed ranges around the demo's present, the turn of 2025/2026. Faker, schwifty and fpdf2
are imported when a demo is built, not with this module, so nothing that merely imports it pays for them
at a cold start."""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
import textwrap
import unicodedata
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from faker import Faker
    from schwifty.domain import Bank

ALIAS_PREFIX = "demo"
# Contracts, mandates and bank account uses start before this day: a mandate's signature date may not lie
# in the future, whenever the demo is loaded.
LAST_START = dt.date(2025, 6, 30)
PDF_CREATED = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)  # fpdf2 writes the creation date into the bytes
PDF_LINE_CHARS = 85  # what fits on an A4 line in 11 pt Helvetica

# The entity types in load order, each with the upsert that takes its lines (documents are uploaded).
UPSERTS: dict[str, str | None] = {
    "contact": "contacts.upsert",
    "object": "objects.upsert",
    "bankAccountInfo": "accounting.bankaccountinfos.upsert",
    "advisor": "advisors.upsert",
    "unitGroup": "unitgroups.upsert",
    "post": "posts.upsert",
    "responsibility": "responsibilities.upsert",
    "unit": "units.upsert",
    "contract": "contracts.upsert",
    "bankAccountUse": "accounting.bankaccountuse.upsert",
    "directDebitMandate": "accounting.directdebitmandates.upsert",
    "process": "processes.upsert",
    "callRecord": "callrecords.upsert",
    "processUpdate": "processes.updates.upsert",
    "document": None,
}


@dataclass(frozen=True)
class ObjectPlan:
    """One object's shape: the seed fills in the rest."""

    kind: str  # the object type: "weg" or "rental"
    houses: tuple[str, ...]  # the buildings' letters (Haus A, Haus B); parking is in a Tiefgarage
    apartments: int
    commercial: int
    parking: int


OBJECT_PLANS = (
    ObjectPlan("weg", ("A", "B"), apartments=30, commercial=2, parking=16),
    ObjectPlan("weg", ("A", "B"), apartments=22, commercial=2, parking=12),
    ObjectPlan("weg", ("A",), apartments=18, commercial=1, parking=9),
    ObjectPlan("rental", ("A", "B"), apartments=32, commercial=3, parking=13),
    ObjectPlan("rental", ("A",), apartments=26, commercial=2, parking=12),
)

# The small demo (size `small`): one WEG (a WEG's data holds every entity type, advisors included)
# with a house of three apartments above a shop, and two parking spaces.
SMALL_PLANS = (ObjectPlan("weg", ("A",), apartments=3, commercial=1, parking=2),)
PLANS = {"full": OBJECT_PLANS, "small": SMALL_PLANS}

# What demo_lines yields per type, for every seed (tests/unit/test_demo_data.py checks it).
DEMO_TOTALS: dict[str, int] = {
    "contact": 233,
    "object": 5,
    "bankAccountInfo": 168,
    "advisor": 9,
    "unitGroup": 13,
    "post": 10,
    "responsibility": 20,
    "unit": 200,
    "contract": 208,
    "bankAccountUse": 263,
    "directDebitMandate": 162,
    "process": 17,
    "callRecord": 27,
    "processUpdate": 39,
    "document": 15,
}
SMALL_TOTALS: dict[str, int] = {
    "contact": 24,
    "object": 1,
    "bankAccountInfo": 6,
    "advisor": 3,
    "unitGroup": 2,
    "post": 2,
    "responsibility": 4,
    "unit": 6,
    "contract": 6,
    "bankAccountUse": 6,
    "directDebitMandate": 5,
    "process": 3,
    "callRecord": 5,
    "processUpdate": 7,
    "document": 3,
}
TOTALS = {"full": DEMO_TOTALS, "small": SMALL_TOTALS}

# Domain words: the few fixed phrases a Hausverwaltung's data is made of.
POSITIONS = ("links", "Mitte", "rechts")
LEGAL_FORMS = ("GmbH", "GmbH & Co. KG", "KG", "e.K.")
COMMERCIAL_TRADES = ("Bäckerei", "Physiotherapie", "Steuerberatung", "Friseursalon", "Blumenladen", "Architekturbüro")
GERMAN_BANKS = ("Sparkasse", "Volksbank", "Raiffeisenbank", "Commerzbank", "Deutsche Bank", "Postbank", "GLS")
HEATING_TYPES = ("gas", "districtHeating", "heatPump", "oil")
HEATING_NAMES = {"gas": "Erdgas", "districtHeating": "Fernwärme", "heatPump": "Wärmepumpe", "oil": "Heizöl"}
EFFICIENCY_CLASSES = ("A", "B", "C", "D", "E", "F")


def demo_lines(seed: str = "demo", size: str = "full") -> list[dict[str, Any]]:
    """The demo's export lines, in load order."""
    return _Demo(seed, size).build().lines()


def demo_files(seed: str = "demo", size: str = "full") -> dict[str, bytes]:
    """The documents' PDFs by file name (the `file` of the document lines)."""
    built = _Demo(seed, size).build()
    return {name: _pdf(*page) for name, page in built.pages.items()}


def seed_number(seed: str) -> int:
    """The seed string as a number, the same in every process (hash() is salted per process)."""
    return int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big")


# --- what is built -------------------------------------------------------------------------------


@dataclass
class Contact:
    alias: str
    name: str  # as it appears as an account holder and in texts
    phone: str
    address: dict[str, Any]
    legal: bool


@dataclass
class Unit:
    alias: str
    number: str
    kind: str  # the unit type: apartment, commercial, parking
    house: str  # letter of the building, "TG" for the Tiefgarage
    floor: int
    position: str
    area: Decimal


@dataclass
class Contract:
    alias: str
    unit: Unit
    kind: str  # lease or ownership
    start: dt.date
    parties: list[Contact]  # the main party (owner, tenant) first
    deposit: bool = False


@dataclass
class Obj:
    index: int
    alias: str
    plan: ObjectPlan
    name: str
    address: dict[str, Any]
    construction_year: int
    heating: str
    efficiency_class: str
    energy_value: Decimal
    creditor_id: str
    landlord: Contact | None = None  # the owner of a rental building
    units: list[Unit] = field(default_factory=list)
    contracts: list[Contract] = field(default_factory=list)  # the current ones
    accounts: dict[str, str] = field(default_factory=dict)  # account type -> alias of the object's account

    @property
    def short_address(self) -> str:
        return f"{self.address['street']} {self.address['houseNumber']}"

    @property
    def full_address(self) -> str:
        return f"{self.short_address}, {self.address['postalCode']} {self.address['city']}"


@dataclass
class Staff:
    """The management company and the service providers the objects share."""

    managers: list[Contact]
    accountant: Contact
    caretakers: list[Contact]
    cleaners: list[Contact]
    plumber: Contact
    heating: Contact


@dataclass
class Built:
    by_type: dict[str, list[dict[str, Any]]]
    pages: dict[str, Page]  # a document's file name -> what its PDF shows

    def lines(self) -> list[dict[str, Any]]:
        return [line for etype in UPSERTS for line in self.by_type[etype]]


# A process and its updates (type, text, author, visibility); a document's type, category, title, date, text.
Case = tuple[dict[str, Any], list[tuple[str, str, Contact, str]]]
Paper = tuple[str, str, str, dt.date, list[str]]
# What a document's PDF shows: its title, the object's name and address, the lines of text.
Page = tuple[str, str, str, list[str]]


# --- the generator ------------------------------------------------------------------------------


class _Demo:
    """One build: a seeded Faker for names and addresses, a seeded Random for every other choice."""

    def __init__(self, seed: str, size: str = "full") -> None:
        from faker import Faker  # cold start: only a demo build needs it

        if size not in PLANS:
            raise ValueError(f"no demo of size {size!r}: one of {', '.join(PLANS)}")
        self.plans = PLANS[size]
        number = seed_number(seed)
        self.fake: Faker = Faker("de_DE")
        self.fake.seed_instance(number)
        self.rng = random.Random(number)
        self.banks = _german_banks()
        self.by_type: dict[str, list[dict[str, Any]]] = {etype: [] for etype in UPSERTS}
        self.persons: list[dict[str, Any]] = []  # contact lines with a companyId: after all companies
        self.pages: dict[str, Page] = {}
        self.contacts: dict[str, Contact] = {}
        self.contact_accounts: dict[str, tuple[str, str]] = {}  # contact alias -> (account alias, IBAN)
        self.call_count = 0

    def build(self) -> Built:
        staff = self._staff()
        for index, plan in enumerate(self.plans, start=1):
            self._object(index, plan, staff)
        self.by_type["contact"].extend(self.persons)
        return Built(self.by_type, self.pages)

    # --- lines ---

    def _add(self, etype: str, alias: str, data: dict[str, Any]) -> None:
        line = {"type": etype, "upsert": UPSERTS[etype], "alias": alias, "aliases": [alias], "data": data}
        if etype == "contact" and "companyId" in data:
            self.persons.append(line)
        else:
            self.by_type[etype].append(line)

    # --- small draws ---

    def _day(self, first: dt.date, last: dt.date) -> dt.date:
        return first + dt.timedelta(days=self.rng.randint(0, (last - first).days))

    def _moment(self, first: dt.date, last: dt.date) -> str:
        return self._office_hours(_working_day(self._day(first, last)))

    def _office_hours(self, day: dt.date) -> str:
        """A time of the day's office hours, as the API writes timestamps."""
        return f"{day.isoformat()}T{self.rng.randint(8, 17):02d}:{self.rng.choice((0, 15, 30, 45)):02d}:00Z"

    def _amount(self, low: str, high: str) -> Decimal:
        cents = self.rng.randint(int(Decimal(low) * 100), int(Decimal(high) * 100))
        return Decimal(cents) / 100

    def _address(self) -> dict[str, Any]:
        return {
            "street": self.fake.street_name(),
            "houseNumber": str(self.rng.randint(1, 140)),
            "postalCode": self.fake.postcode(),
            "city": self.fake.city(),
            "countryCode": "DE",
        }

    # --- contacts ---

    def _next_contact_alias(self) -> str:
        return f"{ALIAS_PREFIX}-con-{len(self.contacts) + 1}"

    def _known(self, contact: Contact) -> Contact:
        self.contacts[contact.alias] = contact
        return contact

    def _company(self, trade: str, *, address: dict[str, Any] | None = None) -> Contact:
        last = self.fake.last_name()
        form = self.rng.choice(LEGAL_FORMS)
        name = f"{trade} {last} {form}"
        alias = self._next_contact_alias()
        phone = self.fake.phone_number()
        place = address or self._address()
        data = {
            "personType": "legal",
            "salutation": "company",
            "companyName": name,
            "legalForm": form,
            "emails": [{"address": f"info@{_slug(last)}-{_slug(trade)}.example", "type": "work", "primary": True}],
            "phones": [{"number": phone, "type": "landline", "primary": True}],
            "address": place,
            "language": "de",
            "vatId": f"DE{self.rng.randint(100_000_000, 999_999_999)}",
        }
        self._add("contact", alias, data)
        return self._known(Contact(alias, name, phone, place, legal=True))

    def _person(
        self,
        *,
        address: dict[str, Any] | None = None,
        company: Contact | None = None,
        last_name: str | None = None,
        female: bool | None = None,
    ) -> Contact:
        female = self.rng.random() < 0.5 if female is None else female
        first = self.fake.first_name_female() if female else self.fake.first_name_male()
        last = last_name or self.fake.last_name()
        alias = self._next_contact_alias()
        phone = self.fake.phone_number()
        place = address or (company.address if company else self._address())
        data: dict[str, Any] = {"personType": "natural", "salutation": "ms" if female else "mr"}
        if self.rng.random() < 0.06:
            data["title"] = "Dr."
        domain = self.fake.safe_domain_name()
        data |= {
            "firstName": first,
            "lastName": last,
            "emails": [{"address": f"{_slug(first)}.{_slug(last)}@{domain}", "type": "work" if company else "private"}],
            "phones": [{"number": phone, "type": "landline" if company else "mobile", "primary": True}],
            "address": place,
            "language": "de",
        }
        if company is None:
            data["dateOfBirth"] = self._day(dt.date(1940, 1, 1), dt.date(2001, 12, 31)).isoformat()
        else:
            data["companyId"] = company.alias
        self._add("contact", alias, data)
        return self._known(Contact(alias, f"{first} {last}", phone, place, legal=False))

    def _staff(self) -> Staff:
        management = self._company("Hausverwaltung")
        managers = [self._person(company=management) for _ in range(2)]
        accountant = self._person(company=management)
        self._person(company=management)  # the office's technician: a contact, not yet given a role
        caretakers = [self._company("Hausmeisterservice") for _ in range(3)]
        cleaners = [self._company("Gebäudereinigung") for _ in range(2)]
        plumber, heating = self._company("Sanitärtechnik"), self._company("Heizungsbau")
        for provider in (*caretakers, *cleaners, plumber, heating):
            self._person(company=provider)  # the provider's contact person
        return Staff(managers, accountant, caretakers, cleaners, plumber, heating)

    def _resident_address(self, obj: Obj, unit: Unit) -> dict[str, Any]:
        return {**obj.address, "addition": f"Whg. {unit.number}"}

    # --- the object ---

    def _object(self, index: int, plan: ObjectPlan, staff: Staff) -> None:
        obj = self._object_line(index, plan)
        if plan.kind == "rental":
            obj.landlord = self._company("Wohnbau")
        self._object_accounts(obj)
        groups = self._unit_groups(obj)
        obj.units = self._units(obj, groups)
        contracts = self._ownerships(obj) if plan.kind == "weg" else self._leases(obj)
        obj.contracts = contracts
        self._payments(obj)
        self._responsibilities(obj, staff)
        if plan.kind == "weg":
            self._advisors(obj)
        self._posts(obj)
        self._processes(obj, staff)
        self._documents(obj, staff)

    def _object_line(self, index: int, plan: ObjectPlan) -> Obj:
        address = self._address()
        street = f"{address['street']} {address['houseNumber']}"
        name = f"WEG {street}" if plan.kind == "weg" else f"Wohnanlage {street}"
        heating = self.rng.choice(HEATING_TYPES)
        obj = Obj(
            index=index,
            alias=f"{ALIAS_PREFIX}-obj-{index}",
            plan=plan,
            name=name,
            address=address,
            construction_year=self.rng.randint(1955, 2015),
            heating=heating,
            efficiency_class=self.rng.choice(EFFICIENCY_CLASSES),
            energy_value=self._amount("45", "210"),
            creditor_id=_creditor_id(self.rng.randint(10**10, 10**11 - 1)),
        )
        certificate_until = self._day(dt.date(2027, 1, 1), dt.date(2034, 12, 31))
        data = {
            "name": name,
            "number": f"HV-{1000 + index}",
            "type": plan.kind,
            "address": address,
            "constructionYear": obj.construction_year,
            "plotArea": str(self._amount("900", "4800").quantize(Decimal("1"))),
            "landRegistry": {
                "court": f"Amtsgericht {address['city']}",
                "district": address["city"],
                "sheet": str(self.rng.randint(1000, 19999)),
                "parcel": f"{self.rng.randint(1, 40)}/{self.rng.randint(1, 400)}",
            },
            "heatingType": heating,
            "energyCertificate": {
                "kind": self.rng.choice(("demand", "consumption")),
                "value": str(obj.energy_value),
                "efficiencyClass": obj.efficiency_class,
                "validUntil": certificate_until.isoformat(),
            },
            "managementStart": self._day(dt.date(2008, 1, 1), dt.date(2022, 1, 1)).replace(day=1).isoformat(),
        }
        if obj.construction_year < 1990 and self.rng.random() < 0.6:
            data["modernisationYear"] = self.rng.randint(2005, 2024)
        self._add("object", obj.alias, data)
        return obj

    def _object_accounts(self, obj: Obj) -> None:
        """The WEG's Hausgeld- and Rücklagenkonto, a rental building's Miet- and Kautionskonto."""
        if obj.plan.kind == "weg":
            wanted = (("current", "Hausgeldkonto"), ("reserve", "Rücklagenkonto"))
            holder = obj.name
        else:
            wanted = (("current", "Mietkonto"), ("deposit", "Kautionskonto"))
            holder = obj.landlord.name if obj.landlord else obj.name
        for account_type, label in wanted:
            alias = f"{ALIAS_PREFIX}-bai-obj-{obj.index}-{account_type}"
            data = {"objectId": obj.alias, **self._bank_account(holder), "label": label, "accountType": account_type}
            self._add("bankAccountInfo", alias, data)
            obj.accounts[account_type] = alias

    def _bank_account(self, holder: str) -> dict[str, Any]:
        bank = self.rng.choice(self.banks)
        iban = _iban(self.rng, bank)
        return {"iban": iban, "bic": str(bank.bic), "bankName": bank.name, "accountHolder": holder}

    def _unit_groups(self, obj: Obj) -> dict[str, str]:
        """Letter (or "TG") -> alias of the unit group."""
        groups = {}
        for letter in obj.plan.houses:
            alias = f"{ALIAS_PREFIX}-ug-{obj.index}-{letter.lower()}"
            self._add("unitGroup", alias, {"objectId": obj.alias, "name": f"Haus {letter}", "type": "building"})
            groups[letter] = alias
        alias = f"{ALIAS_PREFIX}-ug-{obj.index}-tg"
        self._add("unitGroup", alias, {"objectId": obj.alias, "name": "Tiefgarage", "type": "garage"})
        groups["TG"] = alias
        return groups

    # --- units ---

    def _units(self, obj: Obj, groups: dict[str, str]) -> list[Unit]:
        units = self._apartments(obj) + self._commercial_units(obj) + self._parking_spaces(obj)
        shares = _co_ownership_shares([u.area for u in units]) if obj.plan.kind == "weg" else None
        for number, unit in enumerate(units, start=1):
            unit.alias = f"{ALIAS_PREFIX}-unit-{obj.index}-{number:03d}"
            data: dict[str, Any] = {
                "objectId": obj.alias,
                "unitGroupId": groups[unit.house],
                "number": unit.number,
                "type": unit.kind,
                "floor": unit.floor,
                "position": unit.position,
                "area": str(unit.area),
            }
            if unit.kind == "apartment":
                data["rooms"] = str(_rooms(unit.area))
            if unit.kind != "parking":
                data["heatingArea"] = str(unit.area)
            if shares is not None:
                data |= {"coOwnershipShare": str(shares[number - 1]), "coOwnershipBase": 1000}
            self._add("unit", unit.alias, data)
        return units

    def _apartments(self, obj: Obj) -> list[Unit]:
        """Three apartments a floor, the houses filled in turn; house A's ground floor holds the shops."""
        houses = obj.plan.houses
        per_house = [
            obj.plan.apartments // len(houses) + (i < obj.plan.apartments % len(houses)) for i in range(len(houses))
        ]
        units = []
        for house_index, letter in enumerate(houses):
            lowest = 1 if house_index == 0 and obj.plan.commercial else 0
            for slot in range(per_house[house_index]):
                floor, position = lowest + slot // len(POSITIONS), slot % len(POSITIONS)
                area = self._amount("38", "125").quantize(Decimal("0.1"))
                number = f"{letter} {floor}.{position + 1:02d}"
                units.append(Unit("", number, "apartment", letter, floor, POSITIONS[position], area))
        return units

    def _commercial_units(self, obj: Obj) -> list[Unit]:
        return [
            Unit("", f"GE {k}", "commercial", obj.plan.houses[0], 0, POSITIONS[k % 3], self._amount("55", "220"))
            for k in range(1, obj.plan.commercial + 1)
        ]

    def _parking_spaces(self, obj: Obj) -> list[Unit]:
        return [
            Unit("", f"TG {k:02d}", "parking", "TG", -1, f"Stellplatz {k}", Decimal("12.50"))
            for k in range(1, obj.plan.parking + 1)
        ]

    # --- contracts ---

    def _contract(self, contract: Contract, data: dict[str, Any]) -> Contract:
        payload = {"unitId": contract.unit.alias, "type": contract.kind, "startDate": contract.start.isoformat()}
        self._add("contract", contract.alias, payload | data)
        return contract

    def _ownerships(self, obj: Obj) -> list[Contract]:
        """Every unit of a WEG has its owners; most parking spaces belong to an apartment's owners."""
        dwellings = [u for u in obj.units if u.kind != "parking"]
        contracts = [self._ownership(obj, unit, i) for i, unit in enumerate(dwellings)]
        for k, unit in enumerate(u for u in obj.units if u.kind == "parking"):
            if k % 3 != 2 and k < len(contracts):
                owners = contracts[k].parties
                start = contracts[k].start
            else:
                owners, start = [self._person()], self._day(dt.date(1998, 1, 1), LAST_START)
            contracts.append(self._ownership_contract(obj, unit, start, owners))
        return contracts

    def _ownership(self, obj: Obj, unit: Unit, i: int) -> Contract:
        start = self._day(dt.date(1998, 1, 1), LAST_START)
        occupied = self.rng.random() < 0.5  # an owner-occupier lives in the unit, a landlord elsewhere
        home = self._resident_address(obj, unit) if occupied and unit.kind == "apartment" else self._address()
        if i % 10 == 9:
            company = self._company("Immobilien")
            self._person(company=company)
            owners = [company]
        elif i % 4 == 1:
            first = self._person(address=home, female=False)
            partner_name = first.name.split()[-1]
            owners = [first, self._person(address=home, last_name=partner_name, female=True)]
        else:
            owners = [self._person(address=home)]
        return self._ownership_contract(obj, unit, start, owners)

    def _ownership_contract(self, obj: Obj, unit: Unit, start: dt.date, owners: list[Contact]) -> Contract:
        share = str(Decimal(1) / len(owners))
        parties = [
            {"contactId": owner.alias, "role": "owner" if k == 0 else "coOwner", "share": share}
            for k, owner in enumerate(owners)
        ]
        contract = Contract(_contract_alias(unit), unit, "ownership", start, owners)
        return self._contract(contract, {"parties": parties})

    def _leases(self, obj: Obj) -> list[Contract]:
        """Every unit of a rental building is let; some apartments had a tenant before; most parking
        spaces are let to an apartment's tenant."""
        contracts = []
        for i, unit in enumerate(u for u in obj.units if u.kind == "apartment"):
            start = self._day(dt.date(2003, 1, 1), LAST_START)
            if i % 8 == 0:
                self._former_lease(obj, unit, start)
            tenant = self._person(address=self._resident_address(obj, unit))
            tenants = [tenant]
            if i % 3 == 0:
                tenants.append(self._person(address=tenant.address))
            contracts.append(self._apartment_lease(unit, start, tenants))
        for unit in (u for u in obj.units if u.kind == "commercial"):
            tenant = self._company(self.rng.choice(COMMERCIAL_TRADES), address={**obj.address, "addition": unit.number})
            self._person(company=tenant)
            contracts.append(self._commercial_lease(unit, tenant))
        apartment_tenants = [c.parties[0] for c in contracts if c.unit.kind == "apartment"]
        for k, unit in enumerate(u for u in obj.units if u.kind == "parking"):
            tenant = apartment_tenants[k] if k % 3 != 2 else self._person()
            contracts.append(self._parking_lease(unit, tenant))
        return contracts

    def _rent(self, area: Decimal, per_square_metre: tuple[str, str]) -> tuple[Decimal, dict[str, Any]]:
        base = _money(area * self._amount(*per_square_metre))
        rent = {
            "baseRent": str(base),
            "serviceChargeAdvance": str(_money(area * self._amount("2.20", "3.20"))),
            "heatingAdvance": str(_money(area * self._amount("1.00", "1.60"))),
            "currency": "EUR",
        }
        return base, rent

    def _apartment_lease(self, unit: Unit, start: dt.date, tenants: list[Contact]) -> Contract:
        base, rent = self._rent(unit.area, ("8.50", "14.50"))
        deposit = {
            "amount": str(base * 3),  # at most three base rents (§ 551 BGB), and commonly exactly that
            "type": self.rng.choice(("cash", "depositAccount", "suretyBond")),
            "paidAt": (start - dt.timedelta(days=self.rng.randint(3, 30))).isoformat(),
        }
        parties = [{"contactId": t.alias, "role": "tenant" if k == 0 else "coTenant"} for k, t in enumerate(tenants)]
        data = {
            "parties": parties,
            "rent": rent,
            "rentType": self.rng.choice(("standard", "standard", "index", "graduated")),
            "deposit": deposit,
            "noticePeriodMonths": 3,
        }
        return self._contract(Contract(_contract_alias(unit), unit, "lease", start, tenants, deposit=True), data)

    def _commercial_lease(self, unit: Unit, tenant: Contact) -> Contract:
        start = self._day(dt.date(2008, 1, 1), LAST_START)
        base, rent = self._rent(unit.area, ("12.00", "20.00"))
        data = {
            "parties": [{"contactId": tenant.alias, "role": "tenant"}],
            "rent": rent,
            "rentType": "index",
            "deposit": {"amount": str(base * 3), "type": "bankGuarantee", "paidAt": start.isoformat()},
            "noticePeriodMonths": 6,
            "vatApplicable": True,
        }
        return self._contract(Contract(_contract_alias(unit), unit, "lease", start, [tenant], deposit=True), data)

    def _parking_lease(self, unit: Unit, tenant: Contact) -> Contract:
        start = self._day(dt.date(2010, 1, 1), LAST_START)
        data = {
            "parties": [{"contactId": tenant.alias, "role": "tenant"}],
            "rent": {"baseRent": str(self._amount("45", "95").quantize(Decimal("1"))) + ".00", "currency": "EUR"},
            "rentType": "standard",
            "noticePeriodMonths": 1,
        }
        return self._contract(Contract(_contract_alias(unit), unit, "lease", start, [tenant]), data)

    def _former_lease(self, obj: Obj, unit: Unit, successor_start: dt.date) -> None:
        """A lease that ended before the current one: the unit's history, with its own former tenant."""
        end = successor_start - dt.timedelta(days=1)
        start = self._day(dt.date(1995, 1, 1), end - dt.timedelta(days=400))
        tenant = self._person()  # moved away: a new address
        base, rent = self._rent(unit.area, ("6.50", "10.50"))
        data = {
            "parties": [{"contactId": tenant.alias, "role": "tenant"}],
            "endDate": end.isoformat(),
            "rent": rent,
            "rentType": "standard",
            "deposit": {"amount": str(base * 2), "type": "cash", "paidAt": start.isoformat()},
            "noticePeriodMonths": 3,
            "notes": "Mietverhältnis beendet, Kaution abgerechnet.",
        }
        alias = f"{_contract_alias(unit)}-alt"
        self._contract(Contract(alias, unit, "lease", start, [tenant]), data)

    # --- money: accounts, their uses, mandates ---

    def _account_of(self, contact: Contact) -> tuple[str, str]:
        """The contact's account (one per contact, opened when first needed): alias and IBAN."""
        if contact.alias not in self.contact_accounts:
            alias = contact.alias.replace("-con-", "-bai-con-")
            data = {"contactId": contact.alias, **self._bank_account(contact.name), "accountType": "current"}
            data["label"] = "Geschäftskonto" if contact.legal else "Girokonto"
            self._add("bankAccountInfo", alias, data)
            self.contact_accounts[contact.alias] = (alias, data["iban"])
        return self.contact_accounts[contact.alias]

    def _payments(self, obj: Obj) -> None:
        """Each contract pays from its main party's account (a lease's deposit lies in the object's
        Kautionskonto); four in five main parties pay by SEPA direct debit."""
        for k, contract in enumerate(obj.contracts):
            payer = contract.parties[0]
            account, iban = self._account_of(payer)
            suffix = contract.alias.removeprefix(f"{ALIAS_PREFIX}-ctr-")
            purpose = "rent" if contract.kind == "lease" else "serviceCharges"
            self._use(f"{suffix}-{purpose}", contract, account, purpose)
            if contract.deposit and "deposit" in obj.accounts:
                self._use(f"{suffix}-deposit", contract, obj.accounts["deposit"], "deposit")
            if k % 5 != 4:
                self._mandate(obj, contract, suffix, account, iban)

    def _use(self, suffix: str, contract: Contract, account: str, purpose: str) -> None:
        data = {
            "contractId": contract.alias,
            "bankAccountInfoId": account,
            "purpose": purpose,
            "validFrom": contract.start.isoformat(),
        }
        self._add("bankAccountUse", f"{ALIAS_PREFIX}-bau-{suffix}", data)

    def _mandate(self, obj: Obj, contract: Contract, suffix: str, account: str, iban: str) -> None:
        payer = contract.parties[0]
        signed = max(contract.start - dt.timedelta(days=self.rng.randint(0, 21)), dt.date(2009, 11, 2))
        data = {
            "contactId": payer.alias,
            "objectId": obj.alias,
            "contractId": contract.alias,
            "bankAccountInfoId": account,
            "iban": iban,
            "accountHolder": payer.name,
            "creditorId": obj.creditor_id,
            "mandateReference": f"DEMO-{suffix.upper()}",
            "signatureDate": signed.isoformat(),  # SEPA direct debits exist since November 2009
            "type": "B2B" if payer.legal else "CORE",
            "sequence": "RCUR",
            "status": "active",
        }
        self._add("directDebitMandate", f"{ALIAS_PREFIX}-ddm-{suffix}", data)

    # --- who looks after the object ---

    def _responsibilities(self, obj: Obj, staff: Staff) -> None:
        manager = staff.managers[obj.index % len(staff.managers)]
        caretaker = staff.caretakers[obj.index % len(staff.caretakers)]
        cleaner = staff.cleaners[obj.index % len(staff.cleaners)]
        since = self._day(dt.date(2015, 1, 1), dt.date(2024, 12, 31)).replace(day=1)
        assignments = (
            ("propertyManager", manager, "Objektbetreuung, Ansprechpartner für Eigentümer und Mieter."),
            ("accountant", staff.accountant, "Hausgeld- und Mietenbuchhaltung, Abrechnungen."),
            ("caretaker", caretaker, "Hausmeisterdienst: Kontrollgänge Mo, Mi, Fr; Notdienst über die Zentrale."),
            ("cleaning", cleaner, "Treppenhausreinigung wöchentlich, Glasreinigung vierteljährlich."),
        )
        for category, contact, notes in assignments:
            data = {
                "objectId": obj.alias,
                "contactId": contact.alias,
                "categoryId": category,
                "validFrom": since.isoformat(),
                "notes": notes,
            }
            self._add("responsibility", f"{ALIAS_PREFIX}-rsp-{obj.index}-{category}", data)

    def _advisors(self, obj: Obj) -> None:
        """The Verwaltungsbeirat: a chair and two members, owners of the WEG."""
        owners = [c.parties[0] for c in obj.contracts if not c.parties[0].legal]
        board = self.rng.sample(list({o.alias: o for o in owners}.values()), 3)
        since = self._day(dt.date(2019, 1, 1), dt.date(2024, 12, 31))
        for k, member in enumerate(board, start=1):
            data = {
                "objectId": obj.alias,
                "contactId": member.alias,
                "role": "advisoryBoardChair" if k == 1 else "advisoryBoardMember",
                "since": since.isoformat(),
            }
            self._add("advisor", f"{ALIAS_PREFIX}-adv-{obj.index}-{k}", data)

    # --- what happens at the object ---

    def _posts(self, obj: Obj) -> None:
        meeting = self._day(dt.date(2026, 3, 2), dt.date(2026, 5, 29))
        water_off = self._day(dt.date(2026, 1, 12), dt.date(2026, 2, 27))
        if obj.plan.kind == "weg":
            posts = [
                (
                    "Einladung zur Eigentümerversammlung",
                    f"Die ordentliche Eigentümerversammlung findet am {_german(meeting)} um 18:00 Uhr statt. "
                    "Die Einladung mit Tagesordnung erhalten Sie per Post.",
                    "event",
                    "owners",
                ),
                (
                    "Wartung der Heizungsanlage",
                    "Die jährliche Wartung der Heizungsanlage erfolgt in der kommenden Woche. "
                    "Es kann kurzzeitig zu Unterbrechungen der Warmwasserversorgung kommen.",
                    "maintenance",
                    "allResidents",
                ),
            ]
        else:
            posts = [
                (
                    "Treppenhausreinigung: neue Firma",
                    "Ab dem 1. Januar übernimmt eine neue Firma die Reinigung der Treppenhäuser. "
                    "Der Reinigungsplan hängt im Eingangsbereich aus.",
                    "announcement",
                    "allResidents",
                ),
                (
                    f"Wasserabstellung am {_german(water_off)}",
                    "Wegen Arbeiten an der Hauptleitung ist das Wasser von 9 bis 13 Uhr abgestellt. "
                    "Bitte halten Sie die Wasserhähne geschlossen.",
                    "maintenance",
                    "tenants",
                ),
            ]
        for k, (title, body, category, audience) in enumerate(posts, start=1):
            data = {
                "objectId": obj.alias,
                "title": title,
                "body": body,
                "category": category,
                "audience": audience,
                "visibleFrom": self._moment(dt.date(2025, 11, 1), dt.date(2025, 12, 15)),
                "visibleUntil": f"{(meeting if category == 'event' else water_off).isoformat()}T23:59:00Z",
            }
            self._add("post", f"{ALIAS_PREFIX}-post-{obj.index}-{k}", data)

    def _processes(self, obj: Obj, staff: Staff) -> None:
        manager = staff.managers[obj.index % len(staff.managers)]
        dwellings = [c for c in obj.contracts if c.unit.kind == "apartment"]
        damaged = self.rng.choice(dwellings)
        cases = [self._water_damage(obj, damaged, staff.plumber, manager)]
        if obj.plan.kind == "weg":
            cases.append(self._owners_meeting(obj, manager))
        else:
            cases.append(self._utility_statement(obj, staff.accountant))
            cases.append(self._noise_complaint(obj, self.rng.choice(dwellings), manager))
        cases.append(self._heating_service(obj, staff.heating))
        for k, (data, updates) in enumerate(cases, start=1):
            alias = f"{ALIAS_PREFIX}-prc-{obj.index}-{k}"
            self._add("process", alias, {"objectId": obj.alias, **data})
            self._timeline(alias, updates)
            self._process_call(obj, alias, data)
        for _ in range(2):
            self._inquiry_call(obj)

    def _timeline(self, process: str, updates: list[tuple[str, str, Contact, str]]) -> None:
        """A process's updates, a few days apart, in the order they happened."""
        day = self._day(dt.date(2025, 9, 1), dt.date(2025, 10, 31))
        for j, (kind, text, author, visibility) in enumerate(updates, start=1):
            day = _working_day(day + dt.timedelta(days=self.rng.randint(1, 12)))  # later than the one before
            data = {
                "processId": process,
                "text": text,
                "type": kind,
                "authorId": author.alias,
                "visibility": visibility,
                "occurredAt": self._office_hours(day),
            }
            self._add("processUpdate", f"{process.replace('-prc-', '-pru-')}-{j}", data)

    def _water_damage(self, obj: Obj, contract: Contract, plumber: Contact, manager: Contact) -> Case:
        reporter = contract.parties[0]
        data = {
            "title": f"Wasserschaden Whg. {contract.unit.number}",
            "description": f"{reporter.name} meldet einen Wasserfleck an der Decke im Bad.\n"
            "Vermutlich undichte Leitung in der Wohnung darüber.",
            "category": "damage",
            "priority": "urgent",
            "status": "waiting",
            "contractId": contract.alias,
            "reportedById": reporter.alias,
            "assigneeId": plumber.alias,
            "dueDate": self._day(dt.date(2026, 1, 5), dt.date(2026, 1, 30)).isoformat(),
        }
        updates = [
            (
                "call",
                f"{reporter.name} meldet telefonisch einen Wasserfleck an der Badezimmerdecke.",
                reporter,
                "internal",
            ),
            ("visit", f"Ortstermin mit {plumber.name}: Leck an der Steigleitung gefunden.", manager, "portal"),
            ("email", "Schadensmeldung an die Gebäudeversicherung gesendet; Gutachter angefragt.", manager, "internal"),
        ]
        return data, updates

    def _owners_meeting(self, obj: Obj, manager: Contact) -> Case:
        meeting = self._day(dt.date(2026, 3, 2), dt.date(2026, 5, 29))
        data = {
            "title": "Eigentümerversammlung 2026",
            "description": "Ordentliche Eigentümerversammlung vorbereiten: Raum, Einladung, Tagesordnung, "
            "Beschlussanträge, Jahresabrechnung 2025 und Wirtschaftsplan 2026.",
            "category": "meeting",
            "priority": "normal",
            "status": "inProgress",
            "assigneeId": manager.alias,
            "dueDate": meeting.isoformat(),
        }
        updates = [
            ("note", f"Gemeindesaal für den {_german(meeting)}, 18:00 Uhr, reserviert.", manager, "internal"),
            ("note", "Beschlussantrag des Verwaltungsbeirats zur Fassadensanierung aufgenommen.", manager, "internal"),
            ("letter", "Einladung mit Tagesordnung an alle Eigentümer versandt.", manager, "portal"),
        ]
        return data, updates

    def _utility_statement(self, obj: Obj, accountant: Contact) -> Case:
        data = {
            "title": "Nebenkostenabrechnung 2025",
            "description": "Betriebskostenabrechnung 2025 für alle Mieter erstellen und bis Jahresende versenden.",
            "category": "accounting",
            "priority": "normal",
            "status": "inProgress",
            "assigneeId": accountant.alias,
            "dueDate": "2026-11-30",
        }
        updates = [
            ("note", "Belege des Versorgers und der Dienstleister angefordert.", accountant, "internal"),
            ("note", "Ablesewerte der Heizkostenverteiler liegen vor.", accountant, "internal"),
        ]
        return data, updates

    def _noise_complaint(self, obj: Obj, contract: Contract, manager: Contact) -> Case:
        reporter = contract.parties[0]
        data = {
            "title": f"Beschwerde: Ruhestörung Haus {contract.unit.house}",
            "category": "complaint",
            "priority": "low",
            "status": "done",
            "contractId": contract.alias,
            "reportedById": reporter.alias,
            "assigneeId": manager.alias,
        }
        updates = [
            ("email", f"{reporter.name} beschwert sich über nächtlichen Lärm im Haus.", reporter, "internal"),
            ("letter", "Hinweis auf die Hausordnung an alle Mieter des Hauses versandt.", manager, "portal"),
            ("statusChange", "Keine weiteren Beschwerden: erledigt.", manager, "internal"),
        ]
        return data, updates

    def _heating_service(self, obj: Obj, heating: Contact) -> Case:
        data = {
            "title": "Wartung der Heizungsanlage",
            "description": f"Jährliche Wartung der Heizungsanlage ({HEATING_NAMES[obj.heating]}).",
            "category": "maintenance",
            "priority": "normal",
            "status": "open",
            "assigneeId": heating.alias,
            "dueDate": self._day(dt.date(2026, 2, 2), dt.date(2026, 3, 31)).isoformat(),
        }
        updates = [("note", f"Angebot bei {heating.name} angefordert.", heating, "internal")]
        return data, updates

    # --- calls ---

    def _call(self, data: dict[str, Any]) -> None:
        self.call_count += 1
        self._add("callRecord", f"{ALIAS_PREFIX}-call-{self.call_count}", data)

    def _process_call(self, obj: Obj, process: str, case: dict[str, Any]) -> None:
        """The call a process began with (its reporter's) or led to (to whom handles it)."""
        inbound = "reportedById" in case
        contact = case["reportedById"] if inbound else case["assigneeId"]
        self._call(
            {
                "contactId": contact,
                "objectId": obj.alias,
                "processId": process,
                "direction": "inbound" if inbound else "outbound",
                "phoneNumber": self.contacts[contact].phone,
                "startedAt": self._moment(dt.date(2025, 9, 1), dt.date(2025, 12, 19)),
                "durationSeconds": self.rng.randint(45, 900),
                "subject": case["title"],
                "outcome": "reached",
            }
        )

    def _inquiry_call(self, obj: Obj) -> None:
        caller = self.rng.choice(obj.contracts).parties[0]
        subject = self.rng.choice(("Frage zur Abrechnung", "Schlüssel nachbestellen", "Mülltonnen", "Adressänderung"))
        self._call(
            {
                "contactId": caller.alias,
                "objectId": obj.alias,
                "direction": "inbound",
                "phoneNumber": caller.phone,
                "startedAt": self._moment(dt.date(2025, 9, 1), dt.date(2025, 12, 19)),
                "durationSeconds": self.rng.randint(30, 600),
                "subject": subject,
                "notes": f"{caller.name} ruft an: {subject}. Rückruf zugesagt.",
                "outcome": self.rng.choice(("reached", "callbackRequested")),
            }
        )

    # --- documents ---

    def _documents(self, obj: Obj, staff: Staff) -> None:
        if obj.plan.kind == "weg":
            papers = [self._energy_certificate(obj), self._economic_plan(obj), self._meeting_minutes(obj)]
        else:
            papers = [self._energy_certificate(obj), self._utility_statement_paper(obj), self._service_contract(obj)]
        for k, (doc_type, category, title, day, lines) in enumerate(papers, start=1):
            alias = f"{ALIAS_PREFIX}-doc-{obj.index}-{k}"
            file_name = f"{alias}.pdf"
            self.pages[file_name] = (title, obj.name, obj.full_address, lines)
            data = {
                "locationId": obj.alias,
                "title": title,
                "documentType": doc_type,
                "category": category,
                "documentDate": day.isoformat(),
                "visibility": "portal",
                "fileName": f"{_slug(title)}-{obj.index}.pdf",
                "contentType": "application/pdf",
            }
            line = {"type": "document", "upsert": None, "alias": alias, "aliases": [alias], "data": data}
            self.by_type["document"].append({**line, "file": file_name})

    def _energy_certificate(self, obj: Obj) -> Paper:
        day = self._day(dt.date(2018, 1, 1), dt.date(2024, 12, 31))
        lines = [
            f"Baujahr Gebäude: {obj.construction_year}",
            f"Wesentlicher Energieträger: {HEATING_NAMES[obj.heating]}",
            f"Endenergiebedarf: {_german_number(obj.energy_value)} kWh/(m²·a)",
            f"Energieeffizienzklasse: {obj.efficiency_class}",
            f"Ausgestellt am {_german(day)}, gültig zehn Jahre.",
        ]
        return "energyCertificate", "technical", "Energieausweis für Wohngebäude", day, lines

    def _economic_plan(self, obj: Obj) -> Paper:
        items = {
            "Gebäudeversicherung": self._amount("4000", "12000"),
            "Hausmeister": self._amount("6000", "15000"),
            "Treppenhausreinigung": self._amount("3000", "9000"),
            "Heizung und Warmwasser": self._amount("20000", "60000"),
            "Verwaltervergütung": self._amount("8000", "20000"),
            "Erhaltungsrücklage": self._amount("10000", "40000"),
        }
        lines = [f"{name}: {_german_number(amount)} EUR" for name, amount in items.items()]
        lines.append(f"Summe: {_german_number(sum(items.values(), Decimal(0)))} EUR")
        lines.append("Verteilung nach Miteigentumsanteilen, Hausgeld fällig zum 3. Werktag eines Monats.")
        return "economicPlan", "finance", "Wirtschaftsplan 2026", dt.date(2025, 11, 14), lines

    def _meeting_minutes(self, obj: Obj) -> Paper:
        day = self._day(dt.date(2025, 4, 1), dt.date(2025, 6, 30))
        present = self.rng.randint(540, 880)
        lines = [
            f"Versammlung am {_german(day)}, Beginn 18:00 Uhr, Ende 20:15 Uhr.",
            f"Anwesend oder vertreten: {present} von 1.000 Miteigentumsanteilen; die Versammlung ist beschlussfähig.",
            "TOP 1: Jahresabrechnung 2024 - einstimmig genehmigt.",
            "TOP 2: Entlastung des Verwaltungsbeirats - mehrheitlich beschlossen.",
            "TOP 3: Angebote zur Fassadensanierung einholen - mehrheitlich beschlossen.",
            "TOP 4: Verschiedenes - Müllplatz, Fahrradkeller, Grünpflege.",
        ]
        return "meetingMinutes", "meetings", "Protokoll der Eigentümerversammlung 2025", day, lines

    def _utility_statement_paper(self, obj: Obj) -> Paper:
        lines = [
            "Abrechnungszeitraum: 01.01.2024 bis 31.12.2024",
            f"Grundsteuer: {_german_number(self._amount('3000', '9000'))} EUR",
            f"Wasser und Abwasser: {_german_number(self._amount('8000', '20000'))} EUR",
            f"Müllabfuhr: {_german_number(self._amount('3000', '8000'))} EUR",
            f"Hausmeister und Gartenpflege: {_german_number(self._amount('6000', '14000'))} EUR",
            "Verteilung nach Wohnfläche; die Einzelabrechnungen gehen den Mietern gesondert zu.",
        ]
        return "utilityStatement", "billing", "Nebenkostenabrechnung 2024", dt.date(2025, 9, 30), lines

    def _service_contract(self, obj: Obj) -> Paper:
        day = self._day(dt.date(2020, 1, 1), dt.date(2024, 12, 31))
        lines = [
            f"Gegenstand: Wartung der Heizungsanlage ({HEATING_NAMES[obj.heating]}), einmal jährlich.",
            f"Pauschale: {_german_number(self._amount('450', '1400'))} EUR netto pro Jahr.",
            "Laufzeit: ein Jahr, verlängert sich jeweils um ein weiteres Jahr.",
            f"Vertragsbeginn: {_german(day)}",
        ]
        return "maintenanceContract", "technical", "Wartungsvertrag Heizungsanlage", day, lines


# --- helpers ------------------------------------------------------------------------------------


def _working_day(day: dt.date) -> dt.date:
    """The day, or the Monday after when it falls on a weekend."""
    return day + dt.timedelta(days=7 - day.weekday()) if day.weekday() >= 5 else day


def _contract_alias(unit: Unit) -> str:
    return unit.alias.replace("-unit-", "-ctr-")


def _money(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _rooms(area: Decimal) -> Decimal:
    """Rooms by living area, in half rooms: about one room per 25 m²."""
    halves = max(2, min(10, int(area / Decimal("12.5"))))
    return Decimal(halves) / 2


def _co_ownership_shares(areas: list[Decimal]) -> list[Decimal]:
    """The units' MEA of 1000, by area, in hundredths; the last unit takes the rounding, so that the
    shares add up to exactly 1000."""
    total = sum(areas, Decimal(0))
    shares = [_money(area * 1000 / total) for area in areas]
    shares[-1] = Decimal(1000) - sum(shares[:-1], Decimal(0))
    return shares


def _creditor_id(national: int) -> str:
    """A German creditor identifier (Gläubiger-ID): DE, ISO 7064 mod 97-10 check digits over the
    11-digit national identifier and the country, business code ZZZ (as sepa.normalise_creditor_id checks)."""
    digits = "".join(str(int(ch, 36)) for ch in f"{national:011d}DE00")
    return f"DE{98 - int(digits) % 97:02d}ZZZ{national:011d}"


def _german_banks() -> list[Bank]:
    """Real German banks with a BIC from schwifty's registry: the head offices of the common kinds
    (Sparkassen, Volksbanken, the big private banks), sorted so that a seed always picks the same."""
    from schwifty import registry  # cold start: only a demo build needs it

    banks = [
        bank
        for bank in registry.get_banks_by_country("DE")
        if bank.primary and bank.bic and any(kind in bank.name for kind in GERMAN_BANKS)
    ]
    return sorted(banks, key=lambda bank: bank.bank_code)


def _iban(rng: random.Random, bank: Bank) -> str:
    """A valid IBAN of the bank: schwifty draws the account number with our Random (so the seed decides
    it) and splices in the check digit of the bank's own method, which IBAN.validate(validate_bban=True)
    verifies."""
    from schwifty import IBAN  # cold start: only a demo build needs it

    return str(IBAN.random("DE", random=rng, bank_code=bank.bank_code).compact)


_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def _slug(text: str) -> str:
    """ASCII, lower case, words joined by hyphens: for e-mail addresses and file names."""
    ascii_text = unicodedata.normalize("NFKD", text.translate(_UMLAUTS)).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def _german(day: dt.date) -> str:
    return day.strftime("%d.%m.%Y")


def _german_number(value: Decimal) -> str:
    """1234.5 -> 1.234,50"""
    return f"{value:,.2f}".replace(",", "_").replace(".", ",").replace("_", ".")


def _pdf(title: str, object_name: str, address: str, lines: list[str]) -> bytes:
    """A one-page PDF: the title, the object's name and address, the lines. Lines are wrapped here and
    written with cell(): fpdf2's own line breaking (multi_cell) measures every character and would take
    most of a demo build's time."""
    from fpdf import FPDF  # cold start: only a demo build needs it
    from fpdf.enums import XPos, YPos  # cold start: as above

    pdf = FPDF(format="A4")
    pdf.set_creation_date(PDF_CREATED)  # else every build writes other bytes
    pdf.set_title(title)
    pdf.set_author(object_name)
    pdf.add_page()
    pdf.set_font("helvetica", "B", 16)
    pdf.cell(0, 10, _latin1(title), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_font("helvetica", size=11)
    for text in (object_name, address, ""):
        pdf.cell(0, 6, _latin1(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    for line in lines:
        for part in textwrap.wrap(line, PDF_LINE_CHARS):
            pdf.cell(0, 6, _latin1(part), new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        pdf.ln(1)
    return bytes(pdf.output())


def _latin1(text: str) -> str:
    """fpdf2's core fonts take latin-1: umlauts and ² render, anything beyond becomes '?'."""
    return text.encode("latin-1", "replace").decode("latin-1")
