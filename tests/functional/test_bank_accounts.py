"""Bank account infos (of contacts and of objects) and bank account uses of contracts, through HTTP."""

from __future__ import annotations

from typing import Any

from tests.client import Tenant

IBAN = "DE89370400440532013000"  # Commerzbank Köln, COBADEFFXXX
IBAN_SPACED = "de89 3704 0044 0532 0130 00"
OTHER_IBAN = "DE02120300000000202051"  # Deutsche Kreditbank Berlin, BYLADEM1001
FOREIGN_IBAN = "GB82WEST12345698765432"  # a bank schwifty's registry does not know
BAD_CHECKSUM_IBAN = "DE88370400440532013000"


def _object(tenant: Tenant, name: str = "WEG Musterstraße 12") -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": name, "type": "weg"}})["object"])


def _alias(tenant: Tenant, entity: dict[str, Any], type_name: str, alias: str) -> str:
    return tenant.alias(alias, entity["id"], type_name)


def _account_of_contact(tenant: Tenant, contact_id: str, **fields: Any) -> dict[str, Any]:
    payload = {"iban": IBAN, "accountHolder": "Erika Mustermann", **fields}
    return dict(
        tenant.ok("accounting.bankaccountinfos.create.contact", {"bankAccountInfo": payload, "contact": contact_id})[
            "bankAccountInfo"
        ]
    )


def _account_of_object(tenant: Tenant, object_id: str, **fields: Any) -> dict[str, Any]:
    payload = {"iban": IBAN, "accountHolder": "WEG Musterstraße 12", **fields}
    return dict(
        tenant.ok("accounting.bankaccountinfos.create.object", {"bankAccountInfo": payload, "object": object_id})[
            "bankAccountInfo"
        ]
    )


def _contract(tenant: Tenant) -> dict[str, Any]:
    obj = _object(tenant)
    person = tenant.contact(lastName="Mieterin")
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "1.01", "type": "apartment"}})["unit"]
    contract = {
        "unitId": unit["id"],
        "type": "lease",
        "startDate": "2024-01-01",
        "parties": [{"contactId": person["id"], "role": "tenant"}],
    }
    return dict(tenant.ok("contracts.create", {"contract": contract})["contract"])


# --- bank account infos ----------------------------------------------------------------


def test_an_account_belongs_to_the_contact_or_the_object_it_was_made_for(tenant: Tenant) -> None:
    """Beyond the lifecycle sweep (test_lifecycles.py, which makes accounts of contacts): each create
    command gives the account its owner, by alias, and only that one; an object's account lives
    through delete and restore as a contact's does, and the filters find each by its owner."""
    owner = _alias(tenant, tenant.contact(lastName="Kontoinhaberin"), "contact", "owner-1")
    weg = _alias(tenant, _object(tenant), "object", "weg-12")
    of_contact = _account_of_contact(tenant, owner)
    of_object = _account_of_object(tenant, weg, label="Hausgeldkonto")
    assert of_contact["contactId"] == tenant.get("contacts.show", {"contact": owner})["contact"]["id"]
    assert of_object["objectId"] == tenant.get("objects.show", {"object": weg})["object"]["id"]
    assert "objectId" not in of_contact and "contactId" not in of_object

    def listed(**owned_by: str) -> list[str]:
        query = {**owned_by, "limit": 10, "offset": 0}
        return [a["id"] for a in tenant.get("accounting.bankaccountinfos.list", query)["bankAccountInfos"]]

    assert listed(contact=owner) == [of_contact["id"]] and listed(object=weg) == [of_object["id"]]
    tenant.ok("accounting.bankaccountinfos.delete", {"bankAccountInfo": of_object["id"]})
    assert listed(object=weg) == []
    restored = tenant.ok("accounting.bankaccountinfos.restore", {"bankAccountInfo": of_object["id"]})["bankAccountInfo"]
    assert restored["objectId"] == of_object["objectId"] and listed(object=weg) == [of_object["id"]]


def test_iban_is_stored_compact_and_bic_and_bank_name_come_from_it(tenant: Tenant) -> None:
    account = _account_of_contact(tenant, tenant.contact()["id"], iban=IBAN_SPACED)
    assert account["id"].startswith("bai_")
    assert account["iban"] == IBAN
    assert account["bic"] == "COBADEFFXXX"
    assert account["bankName"] == "Commerzbank"


def test_given_bic_and_bank_name_are_kept(tenant: Tenant) -> None:
    account = _account_of_contact(tenant, tenant.contact()["id"], bic="coba deff", bankName="Commerzbank Köln")
    assert account["bic"] == "COBADEFF" and account["bankName"] == "Commerzbank Köln"


def test_an_unknown_bank_leaves_bic_and_bank_name_out(tenant: Tenant) -> None:
    account = _account_of_contact(tenant, tenant.contact()["id"], iban=FOREIGN_IBAN)
    assert account["iban"] == FOREIGN_IBAN
    assert "bic" not in account and "bankName" not in account


def test_iban_with_a_bad_checksum_is_400_at_its_path(tenant: Tenant) -> None:
    contact = tenant.contact()
    answer = tenant.command(
        "accounting.bankaccountinfos.create.contact",
        {"bankAccountInfo": {"iban": BAD_CHECKSUM_IBAN, "accountHolder": "X"}, "contact": contact["id"]},
    )
    assert answer.status == 400
    assert answer.body["errors"][0]["path"] == "bankAccountInfo.iban"
    assert "checksum" in answer.body["errors"][0]["message"]
    assert tenant.get("accounting.bankaccountinfos.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 0


def test_invalid_bic_is_400_at_its_path(tenant: Tenant) -> None:
    obj = _object(tenant)
    answer = tenant.command(
        "accounting.bankaccountinfos.create.object",
        {"bankAccountInfo": {"iban": IBAN, "bic": "COBADEFFX", "accountHolder": "X"}, "object": obj["id"]},
    )
    assert answer.status == 400
    assert answer.body["errors"][0]["path"] == "bankAccountInfo.bic"


def test_update_checks_iban_and_bic_too(tenant: Tenant) -> None:
    account = _account_of_contact(tenant, tenant.contact()["id"])
    bad_iban = tenant.command(
        "accounting.bankaccountinfos.update", {"bankAccountInfo": {"id": account["id"], "iban": BAD_CHECKSUM_IBAN}}
    )
    bad_bic = tenant.command(
        "accounting.bankaccountinfos.update", {"bankAccountInfo": {"id": account["id"], "bic": "12345678"}}
    )
    assert bad_iban.status == bad_bic.status == 400
    assert bad_iban.body["errors"][0]["path"] == "bankAccountInfo.iban"
    assert bad_bic.body["errors"][0]["path"] == "bankAccountInfo.bic"


def test_a_new_iban_brings_its_own_bic_and_bank_name(tenant: Tenant) -> None:
    account = _account_of_contact(tenant, tenant.contact()["id"])
    moved = tenant.ok(
        "accounting.bankaccountinfos.update", {"bankAccountInfo": {"id": account["id"], "iban": OTHER_IBAN}}
    )["bankAccountInfo"]
    assert moved["iban"] == OTHER_IBAN
    assert moved["bic"] != "COBADEFFXXX" and moved["bankName"] != "Commerzbank"
    same = tenant.ok(
        "accounting.bankaccountinfos.update",
        {"bankAccountInfo": {"id": account["id"], "iban": OTHER_IBAN, "label": "x"}},
    )["bankAccountInfo"]
    assert same["bic"] == moved["bic"]
    foreign = tenant.ok(
        "accounting.bankaccountinfos.update", {"bankAccountInfo": {"id": account["id"], "iban": FOREIGN_IBAN}}
    )["bankAccountInfo"]
    assert "bic" not in foreign and "bankName" not in foreign


def test_iban_filter_finds_the_account_however_the_iban_is_written(tenant: Tenant) -> None:
    contact = tenant.contact()
    wanted = _account_of_contact(tenant, contact["id"])
    _account_of_contact(tenant, contact["id"], iban=OTHER_IBAN)
    for written in (IBAN, IBAN_SPACED, "DE89 3704 0044 0532 0130 00"):
        listed = tenant.get("accounting.bankaccountinfos.list", {"iban": written, "limit": 10, "offset": 0})
        assert [a["id"] for a in listed["bankAccountInfos"]] == [wanted["id"]], written
        assert listed["pagination"] == {"total": 1, "limit": 10, "offset": 0}
    assert (
        tenant.get("accounting.bankaccountinfos.list", {"iban": "DE00 nothing", "limit": 10, "offset": 0})[
            "bankAccountInfos"
        ]
        == []
    )


def test_filters_combine(tenant: Tenant) -> None:
    alice, bob = tenant.contact(lastName="Alice"), tenant.contact(lastName="Bob")
    obj = _object(tenant)
    a1 = _account_of_contact(tenant, alice["id"])
    _account_of_contact(tenant, bob["id"])
    _account_of_object(tenant, obj["id"])
    by_contact_and_iban = tenant.get(
        "accounting.bankaccountinfos.list", {"contact": alice["id"], "iban": IBAN, "limit": 10, "offset": 0}
    )
    assert [a["id"] for a in by_contact_and_iban["bankAccountInfos"]] == [a1["id"]]
    assert (
        tenant.get("accounting.bankaccountinfos.list", {"iban": IBAN, "limit": 10, "offset": 0})["pagination"]["total"]
        == 3
    )
    assert (
        tenant.get(
            "accounting.bankaccountinfos.list", {"contact": alice["id"], "object": obj["id"], "limit": 10, "offset": 0}
        )["pagination"]["total"]
        == 0
    )


def test_object_bankaccountinfos_lists_the_accounts_of_one_object(tenant: Tenant) -> None:
    weg, other = _object(tenant, "WEG A"), _object(tenant, "WEG B")
    _alias(tenant, weg, "object", "weg-a")
    house = _account_of_object(tenant, weg["id"], label="Hausgeldkonto", accountType="current")
    reserve = _account_of_object(tenant, weg["id"], iban=OTHER_IBAN, label="Rücklagenkonto", accountType="reserve")
    _account_of_object(tenant, other["id"])
    _account_of_contact(tenant, tenant.contact()["id"])
    listed = tenant.get("accounting.object.bankaccountinfos", {"object": "weg-a"})
    assert [a["id"] for a in listed["bankAccountInfos"]] == [house["id"], reserve["id"]]
    assert all(a["objectId"] == weg["id"] for a in listed["bankAccountInfos"])
    assert listed["pagination"]["total"] == 2
    assert tenant.query("accounting.object.bankaccountinfos", {}).status == 400
    assert tenant.query("accounting.object.bankaccountinfos", {"object": "no-such-alias"}).status == 404


def test_the_owner_cannot_be_sent_in_the_payload_or_changed(tenant: Tenant) -> None:
    contact, obj = tenant.contact(), _object(tenant)
    both = tenant.command(
        "accounting.bankaccountinfos.create.contact",
        {"bankAccountInfo": {"iban": IBAN, "accountHolder": "X", "objectId": obj["id"]}, "contact": contact["id"]},
    )
    assert both.status == 400
    account = _account_of_contact(tenant, contact["id"])
    moved = tenant.command(
        "accounting.bankaccountinfos.update",
        {"bankAccountInfo": {"id": account["id"], "contactId": tenant.contact()["id"]}},
    )
    assert moved.status == 400


def test_the_owner_must_exist(tenant: Tenant) -> None:
    answer = tenant.command(
        "accounting.bankaccountinfos.create.contact",
        {"bankAccountInfo": {"iban": IBAN, "accountHolder": "X"}, "contact": "con_01K00000000000000000000000"},
    )
    assert answer.status == 404
    assert answer.body["errors"][0]["path"] == "bankAccountInfo.contactId"


def test_required_fields_cannot_be_cleared(tenant: Tenant) -> None:
    account = _account_of_contact(tenant, tenant.contact()["id"])
    answer = tenant.command(
        "accounting.bankaccountinfos.update", {"bankAccountInfo": {"id": account["id"], "accountHolder": None}}
    )
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "bankAccountInfo.accountHolder"


def test_a_contact_with_a_bank_account_cannot_be_deleted(tenant: Tenant) -> None:
    contact = tenant.contact()
    account = _account_of_contact(tenant, contact["id"])
    refused = tenant.command("contacts.delete", {"contact": contact["id"]})
    assert refused.status == 409 and refused.body["code"] == "still_referenced"
    assert refused.body["referencedBy"] == [{"type": "bankAccountInfo", "id": account["id"], "path": "contactId"}]


# --- bank account uses -----------------------------------------------------------------


def _use(
    tenant: Tenant, contract_id: str, account_id: str, purpose: str, valid_from: str, valid_to: str | None = None
) -> dict[str, Any]:
    payload = {
        "bankAccountInfoId": account_id,
        "purpose": purpose,
        "validFrom": valid_from,
        **({"validTo": valid_to} if valid_to else {}),
    }
    return dict(
        tenant.ok("accounting.bankaccountuse.create", {"bankAccountUse": payload, "contract": contract_id})[
            "bankAccountUse"
        ]
    )


def _for_date(tenant: Tenant, contract: str, purpose: str, valid_on: str) -> Any:
    return tenant.query(
        "accounting.contract.bankaccountuse.fordate", {"contract": contract, "purpose": purpose, "validOn": valid_on}
    )


def test_bank_account_use_references_accept_aliases(tenant: Tenant) -> None:
    contract = _alias(tenant, _contract(tenant), "contract", "mv-2")
    account = _alias(tenant, _account_of_contact(tenant, tenant.contact()["id"]), "bankAccountInfo", "konto-2")
    other = _alias(
        tenant, _account_of_contact(tenant, tenant.contact()["id"], iban=OTHER_IBAN), "bankAccountInfo", "konto-3"
    )
    use = tenant.ok(
        "accounting.bankaccountuse.create",
        {
            "bankAccountUse": {"bankAccountInfoId": account, "purpose": "rent", "validFrom": "2024-01-01"},
            "contract": contract,
        },
    )
    assert use["bankAccountUse"]["id"].startswith("bau_")
    assert use["bankAccountUse"]["contractId"] == tenant.get("contracts.show", {"contract": contract})["contract"]["id"]
    _alias(tenant, use["bankAccountUse"], "bankAccountUse", "use-2")
    changed = tenant.ok(
        "accounting.bankaccountuse.update", {"bankAccountUse": {"id": "use-2", "bankAccountInfoId": other}}
    )["bankAccountUse"]
    assert (
        changed["bankAccountInfoId"]
        == tenant.get("accounting.bankaccountinfos.detail", {"bankAccountInfo": other})["bankAccountInfo"]["id"]
    )
    found = tenant.get(
        "accounting.contract.bankaccountuse.fordate", {"contract": contract, "purpose": "rent", "validOn": "2024-02-01"}
    )
    assert found["bankAccountUse"]["id"] == changed["id"]


def test_fordate_picks_the_latest_start_among_overlapping_periods(tenant: Tenant) -> None:
    contract = _contract(tenant)
    old = _account_of_contact(tenant, tenant.contact()["id"])
    new = _account_of_contact(tenant, tenant.contact()["id"], iban=OTHER_IBAN)
    first = _use(tenant, contract["id"], old["id"], "rent", "2024-01-01")  # open-ended
    second = _use(tenant, contract["id"], new["id"], "rent", "2024-06-01", "2024-08-31")
    deposit = _use(tenant, contract["id"], old["id"], "deposit", "2024-07-01")

    def picked(valid_on: str, purpose: str = "rent") -> str:
        answer = _for_date(tenant, contract["id"], purpose, valid_on)
        assert answer.status == 200, answer.body
        return str(answer.body["bankAccountUse"]["id"])

    assert picked("2024-01-01") == first["id"]
    assert picked("2024-05-31") == first["id"]
    assert picked("2024-06-01") == second["id"]  # both valid: the later start wins
    assert picked("2024-08-31") == second["id"]  # validTo is inclusive
    assert picked("2024-09-01") == first["id"]  # the second ended, the first is open-ended
    assert picked("2024-07-15", "deposit") == deposit["id"]
    shown = _for_date(tenant, contract["id"], "rent", "2024-06-15").body["bankAccountUse"]
    assert shown["bankAccountInfoId"] == new["id"] and shown["purpose"] == "rent"


def test_fordate_ties_go_to_the_most_recently_created(tenant: Tenant) -> None:
    contract = _contract(tenant)
    account = _account_of_contact(tenant, tenant.contact()["id"])
    _use(tenant, contract["id"], account["id"], "serviceCharges", "2024-03-01")
    later = _use(tenant, contract["id"], account["id"], "serviceCharges", "2024-03-01")
    assert _for_date(tenant, contract["id"], "serviceCharges", "2024-04-01").body["bankAccountUse"]["id"] == later["id"]


def test_fordate_is_404_when_no_use_is_valid(tenant: Tenant) -> None:
    contract = _contract(tenant)
    account = _account_of_contact(tenant, tenant.contact()["id"])
    ended = _use(tenant, contract["id"], account["id"], "rent", "2024-01-01", "2024-03-31")
    for purpose, valid_on in (("rent", "2023-12-31"), ("rent", "2024-04-01"), ("refund", "2024-02-01")):
        answer = _for_date(tenant, contract["id"], purpose, valid_on)
        assert answer.status == 404, (purpose, valid_on)
        assert answer.body["code"] == "no_valid_bank_account_use"
    tenant.ok("accounting.bankaccountuse.update", {"bankAccountUse": {"id": ended["id"], "validTo": None}})
    assert _for_date(tenant, contract["id"], "rent", "2024-04-01").status == 200
    tenant.ok("accounting.bankaccountuse.delete", {"bankAccountUse": ended["id"]})
    assert _for_date(tenant, contract["id"], "rent", "2024-04-01").body["code"] == "no_valid_bank_account_use"


def test_fordate_of_an_unknown_contract_is_404_at_its_path(tenant: Tenant) -> None:
    answer = _for_date(tenant, "ctr-nowhere", "rent", "2024-01-01")
    assert answer.status == 404 and answer.body["errors"][0]["path"] == "contract"


def test_fordate_checks_its_arguments(tenant: Tenant) -> None:
    contract = _contract(tenant)
    assert _for_date(tenant, contract["id"], "groceries", "2024-01-01").status == 400
    assert _for_date(tenant, contract["id"], "rent", "01.01.2024").status == 400
    assert (
        tenant.query(
            "accounting.contract.bankaccountuse.fordate", {"contract": contract["id"], "purpose": "rent"}
        ).status
        == 400
    )


def test_valid_to_before_valid_from_is_400(tenant: Tenant) -> None:
    contract = _contract(tenant)
    account = _account_of_contact(tenant, tenant.contact()["id"])
    answer = tenant.command(
        "accounting.bankaccountuse.create",
        {
            "bankAccountUse": {
                "bankAccountInfoId": account["id"],
                "purpose": "rent",
                "validFrom": "2024-05-01",
                "validTo": "2024-04-30",
            },
            "contract": contract["id"],
        },
    )
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "bankAccountUse.validTo"
    use = _use(tenant, contract["id"], account["id"], "rent", "2024-05-01")
    answer = tenant.command(
        "accounting.bankaccountuse.update",
        {"bankAccountUse": {"id": use["id"], "validFrom": "2025-01-01", "validTo": "2024-12-31"}},
    )
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "bankAccountUse.validTo"


def test_the_contract_of_a_use_is_fixed(tenant: Tenant) -> None:
    contract = _contract(tenant)
    account = _account_of_contact(tenant, tenant.contact()["id"])
    use = _use(tenant, contract["id"], account["id"], "rent", "2024-05-01")
    answer = tenant.command(
        "accounting.bankaccountuse.update", {"bankAccountUse": {"id": use["id"], "contractId": contract["id"]}}
    )
    assert answer.status == 400


def test_a_used_bank_account_cannot_be_deleted(tenant: Tenant) -> None:
    contract = _contract(tenant)
    account = _account_of_contact(tenant, tenant.contact()["id"])
    use = _use(tenant, contract["id"], account["id"], "payout", "2024-05-01")
    refused = tenant.command("accounting.bankaccountinfos.delete", {"bankAccountInfo": account["id"]})
    assert refused.status == 409 and refused.body["referencedBy"] == [
        {"type": "bankAccountUse", "id": use["id"], "path": "bankAccountInfoId"}
    ]
