"""SEPA direct debit mandates through HTTP: checks, unique references, generated references."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest

from chalicelib import sepa
from tests.client import Tenant

IBAN = "DE89370400440532013000"
OTHER_IBAN = "DE02120300000000202051"
CREDITOR_ID = "DE98ZZZ09999999999"
GENERATED = re.compile(r"^PM-[0-9A-HJKMNP-TV-Z]{16}$")


def _mandate_payload(contact_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "contactId": contact_id,
        "iban": IBAN,
        "accountHolder": "Erika Mustermann",
        "creditorId": CREDITOR_ID,
        "signatureDate": "2024-01-15",
        **fields,
    }


def _mandate(tenant: Tenant, contact_id: str | None = None, **fields: Any) -> dict[str, Any]:
    contact_id = contact_id or tenant.contact()["id"]
    return dict(
        tenant.ok(
            "accounting.directdebitmandate.create", {"directDebitMandate": _mandate_payload(contact_id, **fields)}
        )["directDebitMandate"]
    )


def _create(tenant: Tenant, **fields: Any) -> Any:
    return tenant.command(
        "accounting.directdebitmandate.create",
        {"directDebitMandate": _mandate_payload(tenant.contact()["id"], **fields)},
    )


def _generate(tenant: Tenant, mandate: str) -> dict[str, Any]:
    return dict(
        tenant.ok("accounting.directdebitmandate.generatereference", {"directDebitMandate": mandate})[
            "directDebitMandate"
        ]
    )


def _contract(tenant: Tenant, object_id: str, contact_id: str) -> dict[str, Any]:
    unit = tenant.ok("units.create", {"unit": {"objectId": object_id, "number": "1.01", "type": "apartment"}})["unit"]
    contract = {
        "unitId": unit["id"],
        "type": "lease",
        "startDate": "2024-01-01",
        "parties": [{"contactId": contact_id, "role": "tenant"}],
    }
    return dict(tenant.ok("contracts.create", {"contract": contract})["contract"])


def _world(tenant: Tenant, suffix: str) -> dict[str, str]:
    """A debtor, an object, a contract and a bank account, each with an alias ending in `suffix`."""
    debtor = tenant.contact()
    obj = tenant.ok("objects.create", {"object": {"name": f"Haus {suffix}", "type": "rental"}})["object"]
    contract = _contract(tenant, obj["id"], debtor["id"])
    account = tenant.ok(
        "accounting.bankaccountinfos.create.contact",
        {"bankAccountInfo": {"iban": IBAN, "accountHolder": "E. M."}, "contact": debtor["id"]},
    )
    ids = {
        "contactId": debtor["id"],
        "objectId": obj["id"],
        "contractId": contract["id"],
        "bankAccountInfoId": account["bankAccountInfo"]["id"],
    }
    types = {
        "contactId": "contact",
        "objectId": "object",
        "contractId": "contract",
        "bankAccountInfoId": "bankAccountInfo",
    }
    tenant.ok(
        "aliases.upsert",
        {"entries": [{"alias": f"{field}-{suffix}", "id": ids[field], "type": types[field]} for field in ids]},
    )
    return ids


def test_references_in_a_mandate_accept_aliases(tenant: Tenant) -> None:
    first, second = _world(tenant, "a"), _world(tenant, "b")
    aliases = {field: f"{field}-a" for field in first}
    mandate = tenant.ok(
        "accounting.directdebitmandate.create", {"directDebitMandate": {**_mandate_payload("x"), **aliases}}
    )["directDebitMandate"]
    assert {field: mandate[field] for field in first} == first
    tenant.ok("aliases.upsert", {"entries": [{"alias": "mandat-a", "id": mandate["id"], "type": "directDebitMandate"}]})
    moved = tenant.ok(
        "accounting.directdebitmandate.update",
        {"directDebitMandate": {"id": "mandat-a", **{field: f"{field}-b" for field in second}}},
    )
    assert {field: moved["directDebitMandate"][field] for field in second} == second
    assert (
        tenant.get("accounting.directdebitmandate.detail", {"directDebitMandate": "mandat-a"})["directDebitMandate"][
            "id"
        ]
        == mandate["id"]
    )
    assert GENERATED.match(_generate(tenant, "mandat-a")["mandateReference"])


def test_iban_bic_and_creditor_id_are_normalised(tenant: Tenant) -> None:
    mandate = _mandate(
        tenant, iban="de89 3704 0044 0532 0130 00", bic="cobadeffxxx", creditorId="de98 zzz 0999 9999 999"
    )
    assert (mandate["iban"], mandate["bic"], mandate["creditorId"]) == (IBAN, "COBADEFFXXX", CREDITOR_ID)
    assert mandate["type"] == "CORE" and mandate["status"] == "active"
    assert "mandateReference" not in mandate
    found = tenant.get(
        "accounting.directdebitmandates.list", {"iban": "DE89 3704 0044 0532 0130 00", "limit": 10, "offset": 0}
    )
    assert [m["id"] for m in found["directDebitMandates"]] == [mandate["id"]]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("iban", "DE88370400440532013000"),  # check digits wrong
        ("bic", "COBADEFF1"),
        ("creditorId", "DE97ZZZ09999999999"),  # check digits wrong
        ("creditorId", "DE98ZZZ0999999999"),  # a German national identifier has 11 digits
        ("creditorId", "ZZZ"),
        ("mandateReference", "Müller-2024"),  # no umlauts in the SEPA character set
        ("mandateReference", "x" * 36),
        ("mandateReference", "A_B"),
        ("mandateReference", "   "),
        ("signatureDate", (dt.date.today() + dt.timedelta(days=3)).isoformat()),
        ("validUntil", "2023-12-31"),  # before the signature
        ("type", "COR1"),
    ],
)
def test_invalid_values_are_400_at_their_path(tenant: Tenant, field: str, value: str) -> None:
    answer = _create(tenant, **{field: value})
    assert answer.status == 400, answer.body
    assert answer.body["errors"][0]["path"] == f"directDebitMandate.{field}"


def test_valid_creditor_ids_and_references(tenant: Tenant) -> None:
    # the business code is left out of the check: any code passes with the same check digits
    assert _create(tenant, creditorId="DE98ABC09999999999").status == 200
    reference = "A-Z a-z 0-9 /?:().,'+"
    assert _create(tenant, mandateReference=reference).body["directDebitMandate"]["mandateReference"] == reference
    assert _create(tenant, mandateReference="y" * 35).status == 200
    assert _create(tenant, signatureDate=dt.date.today().isoformat()).status == 200


def test_a_taken_reference_is_409(tenant: Tenant) -> None:
    first = _mandate(tenant, mandateReference="MANDAT-0001")
    taken = _create(tenant, mandateReference="MANDAT-0001")
    assert taken.status == 409
    assert taken.body["code"] == "mandate_reference_taken"
    assert [e["path"] for e in taken.body["errors"]] == ["directDebitMandate.mandateReference"]
    same_but_lower = _create(tenant, mandateReference="mandat-0001")  # banks do not tell case apart
    assert same_but_lower.status == 409
    assert tenant.get("accounting.directdebitmandates.list", {"limit": 10, "offset": 0})["pagination"]["total"] == 1
    second = _mandate(tenant, mandateReference="MANDAT-0002")
    moved = tenant.command(
        "accounting.directdebitmandate.update",
        {"directDebitMandate": {"id": second["id"], "mandateReference": "Mandat-0001"}},
    )
    assert moved.status == 409 and moved.body["code"] == "mandate_reference_taken"
    assert (
        tenant.get("accounting.directdebitmandate.detail", {"directDebitMandate": second["id"]})["directDebitMandate"][
            "mandateReference"
        ]
        == "MANDAT-0002"
    )
    assert first["mandateReference"] == "MANDAT-0001"


def test_spaces_count_in_references(tenant: Tenant) -> None:
    _mandate(tenant, mandateReference="123AAA45678")
    assert _create(tenant, mandateReference="123AAA 45678").status == 200


def test_references_are_unique_per_tenant_only(tenant: Tenant, other_tenant: Tenant) -> None:
    _mandate(tenant, mandateReference="SHARED-1")
    assert _create(other_tenant, mandateReference="SHARED-1").status == 200


def test_changing_a_reference_releases_the_old_one(tenant: Tenant) -> None:
    mandate = _mandate(tenant, mandateReference="OLD-REF")
    changed = tenant.ok(
        "accounting.directdebitmandate.update",
        {"directDebitMandate": {"id": mandate["id"], "mandateReference": "NEW-REF"}},
    )
    assert changed["directDebitMandate"]["mandateReference"] == "NEW-REF"
    assert _create(tenant, mandateReference="OLD-REF").status == 200
    assert _create(tenant, mandateReference="NEW-REF").status == 409
    cleared = tenant.ok(
        "accounting.directdebitmandate.update", {"directDebitMandate": {"id": mandate["id"], "mandateReference": None}}
    )
    assert "mandateReference" not in cleared["directDebitMandate"]
    assert _create(tenant, mandateReference="NEW-REF").status == 200


def test_changing_only_the_case_keeps_the_reference(tenant: Tenant) -> None:
    mandate = _mandate(tenant, mandateReference="abc-1")
    changed = tenant.ok(
        "accounting.directdebitmandate.update",
        {"directDebitMandate": {"id": mandate["id"], "mandateReference": "ABC-1"}},
    )
    assert changed["directDebitMandate"]["mandateReference"] == "ABC-1"
    assert _create(tenant, mandateReference="Abc-1").status == 409


def test_other_updates_keep_the_reference(tenant: Tenant) -> None:
    mandate = _mandate(tenant, mandateReference="KEEP-1")
    updated = tenant.ok(
        "accounting.directdebitmandate.update",
        {"directDebitMandate": {"id": mandate["id"], "status": "revoked", "version": 1}},
    )
    assert (
        updated["directDebitMandate"]["mandateReference"] == "KEEP-1" and updated["directDebitMandate"]["version"] == 2
    )
    assert _create(tenant, mandateReference="KEEP-1").status == 409
    stale = tenant.command(
        "accounting.directdebitmandate.update",
        {"directDebitMandate": {"id": mandate["id"], "status": "active", "version": 1}},
    )
    assert stale.status == 409 and stale.body["code"] == "stale_version"


def test_a_deleted_mandate_keeps_its_reference_reserved(tenant: Tenant) -> None:
    mandate = _mandate(tenant, mandateReference="RESERVED-1")
    tenant.ok("accounting.directdebitmandate.delete", {"directDebitMandate": mandate["id"]})
    assert _create(tenant, mandateReference="RESERVED-1").status == 409
    restored = tenant.ok("accounting.directdebitmandate.restore", {"directDebitMandate": mandate["id"]})
    assert restored["directDebitMandate"]["mandateReference"] == "RESERVED-1"


def test_a_failed_write_takes_no_reference(tenant: Tenant) -> None:
    answer = tenant.command(
        "accounting.directdebitmandate.create",
        {"directDebitMandate": _mandate_payload("con_01K00000000000000000000000", mandateReference="GHOST-1")},
    )
    assert answer.status == 404 and answer.body["errors"][0]["path"] == "directDebitMandate.contactId"
    assert _create(tenant, mandateReference="GHOST-1").status == 200


def test_generatereference_stores_a_readable_reference_and_releases_the_old_one(tenant: Tenant) -> None:
    mandate = _mandate(tenant, mandateReference="BEFORE-1")
    generated = _generate(tenant, mandate["id"])
    assert GENERATED.match(generated["mandateReference"])
    assert generated["version"] == 2
    shown = tenant.get("accounting.directdebitmandate.detail", {"directDebitMandate": mandate["id"]})[
        "directDebitMandate"
    ]
    assert shown["mandateReference"] == generated["mandateReference"]
    assert _create(tenant, mandateReference="BEFORE-1").status == 200
    assert _create(tenant, mandateReference=generated["mandateReference"]).status == 409


@pytest.mark.slow
def test_generatereference_never_repeats_within_a_tenant(tenant: Tenant) -> None:
    # 1,000 generations through the store: tests/unit/test_sepa.py; here a few through HTTP
    mandates = [_mandate(tenant)["id"] for _ in range(4)]
    references = [_generate(tenant, mandates[i % len(mandates)])["mandateReference"] for i in range(40)]
    assert len(set(references)) == 40
    assert all(GENERATED.match(r) for r in references)
    current = [
        tenant.get("accounting.directdebitmandate.detail", {"directDebitMandate": m})["directDebitMandate"][
            "mandateReference"
        ]
        for m in mandates
    ]
    assert current == references[-4:]


def test_generatereference_retries_when_a_generated_reference_is_taken(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    holder = _mandate(tenant, mandateReference="PM-0000000000000000")
    mandate = _mandate(tenant)
    offered = iter(["PM-0000000000000000", "pm-0000000000000000", "PM-1111111111111111"])
    monkeypatch.setattr(sepa, "generate_mandate_reference", lambda: next(offered))
    generated = _generate(tenant, mandate["id"])
    assert generated["mandateReference"] == "PM-1111111111111111"
    assert (
        tenant.get("accounting.directdebitmandate.detail", {"directDebitMandate": holder["id"]})["directDebitMandate"][
            "mandateReference"
        ]
        == "PM-0000000000000000"
    )


def test_generatereference_of_an_unknown_mandate_is_404(tenant: Tenant) -> None:
    answer = tenant.command(
        "accounting.directdebitmandate.generatereference", {"directDebitMandate": "ddm_01K00000000000000000000000"}
    )
    assert answer.status == 404 and answer.body["errors"][0]["path"] == "directDebitMandate"


def test_list_filters_by_contact_object_and_iban(tenant: Tenant) -> None:
    alice, bob = tenant.contact(lastName="Alice"), tenant.contact(lastName="Bob")
    obj = tenant.ok("objects.create", {"object": {"name": "Haus", "type": "rental"}})["object"]
    a = _mandate(tenant, alice["id"], objectId=obj["id"])
    b = _mandate(tenant, bob["id"], iban=OTHER_IBAN, objectId=obj["id"])

    def listed(**params: Any) -> list[str]:
        return [
            m["id"]
            for m in tenant.get("accounting.directdebitmandates.list", {**params, "limit": 10, "offset": 0})[
                "directDebitMandates"
            ]
        ]

    assert listed(contact=alice["id"]) == [a["id"]]
    assert listed(object=obj["id"]) == [a["id"], b["id"]]
    assert listed(iban=OTHER_IBAN.lower()) == [b["id"]]
    spaced = " ".join(OTHER_IBAN[i : i + 4] for i in range(0, len(OTHER_IBAN), 4)).lower()
    assert listed(iban=spaced) == [b["id"]]
    tenant.alias("bob", bob["id"], "contact")
    tenant.alias("haus", obj["id"], "object")
    assert listed(contact="bob", object="haus") == [b["id"]]
    assert listed(iban=IBAN, contact=bob["id"]) == []


def test_the_debtor_cannot_be_cleared(tenant: Tenant) -> None:
    mandate = _mandate(tenant)
    answer = tenant.command(
        "accounting.directdebitmandate.update", {"directDebitMandate": {"id": mandate["id"], "contactId": None}}
    )
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "directDebitMandate.contactId"


def test_a_debtor_with_a_mandate_cannot_be_deleted_and_merges_move_it(tenant: Tenant) -> None:
    debtor, target = tenant.contact(), tenant.contact()
    mandate = _mandate(tenant, debtor["id"], mandateReference="MERGE-1")
    assert tenant.command("contacts.delete", {"contact": debtor["id"]}).status == 409
    tenant.ok("contacts.merge", {"sourceContact": debtor["id"], "targetContact": target["id"]})
    moved = tenant.get("accounting.directdebitmandate.detail", {"directDebitMandate": mandate["id"]})[
        "directDebitMandate"
    ]
    assert moved["contactId"] == target["id"] and moved["mandateReference"] == "MERGE-1"
    assert _create(tenant, mandateReference="MERGE-1").status == 409
