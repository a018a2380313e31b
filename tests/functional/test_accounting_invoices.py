"""Inbound invoices (Eingangsrechnungen) through HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.client import Tenant


def _object(tenant: Tenant, name: str = "WEG Rechnungsweg 1") -> dict[str, Any]:
    return dict(tenant.ok("objects.create", {"object": {"name": name, "type": "weg"}})["object"])


def _payload(object_id: str, **fields: Any) -> dict[str, Any]:
    return {"objectId": object_id, "invoiceNumber": "RE-2024-0815", "invoiceDate": "2024-03-01", **fields}


def _invoice(tenant: Tenant, object_id: str, **fields: Any) -> dict[str, Any]:
    return dict(
        tenant.ok("accounting.inboundinvoices.create", {"inboundInvoice": _payload(object_id, **fields)})[
            "inboundInvoice"
        ]
    )


def _create(tenant: Tenant, **fields: Any) -> Any:
    return tenant.command(
        "accounting.inboundinvoices.create", {"inboundInvoice": _payload(_object(tenant)["id"], **fields)}
    )


def test_references_in_an_invoice_accept_aliases(tenant: Tenant) -> None:
    obj = _object(tenant)
    supplier = tenant.contact(personType="legal", companyName="Dach GmbH")
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "1.01", "type": "apartment"}})["unit"]
    process = tenant.ok("processes.create", {"process": {"title": "Dachreparatur"}, "object": obj["id"]})["process"]
    tenant.ok(
        "aliases.upsert",
        {
            "entries": [
                {"alias": "o", "id": obj["id"], "type": "object"},
                {"alias": "s", "id": supplier["id"], "type": "contact"},
                {"alias": "u", "id": unit["id"], "type": "unit"},
                {"alias": "p", "id": process["id"], "type": "process"},
            ]
        },
    )
    invoice = tenant.ok(
        "accounting.inboundinvoices.create",
        {"inboundInvoice": _payload("o", supplierId="s", unitId="u", processId="p")},
    )["inboundInvoice"]
    assert (invoice["objectId"], invoice["supplierId"], invoice["unitId"], invoice["processId"]) == (
        obj["id"],
        supplier["id"],
        unit["id"],
        process["id"],
    )
    tenant.ok("aliases.upsert", {"entries": [{"alias": "re-1", "id": invoice["id"], "type": "inboundInvoice"}]})
    changed = tenant.ok(
        "accounting.inboundinvoices.update", {"inboundInvoice": {"id": "re-1", "supplierId": None, "unitId": None}}
    )["inboundInvoice"]
    assert "supplierId" not in changed and "unitId" not in changed
    # every reference of the update payload takes an alias, too
    other = _object(tenant, "Anderes Haus")
    unit2 = tenant.ok("units.create", {"unit": {"objectId": other["id"], "number": "2.01", "type": "apartment"}})[
        "unit"
    ]
    process2 = tenant.ok("processes.create", {"process": {"title": "Fassade"}, "object": other["id"]})["process"]
    tenant.ok(
        "aliases.upsert",
        {
            "entries": [
                {"alias": "o2", "id": other["id"], "type": "object"},
                {"alias": "u2", "id": unit2["id"], "type": "unit"},
                {"alias": "p2", "id": process2["id"], "type": "process"},
            ]
        },
    )
    moved = tenant.ok(
        "accounting.inboundinvoices.update",
        {"inboundInvoice": {"id": "re-1", "objectId": "o2", "supplierId": "s", "unitId": "u2", "processId": "p2"}},
    )
    assert [moved["inboundInvoice"][f] for f in ("objectId", "supplierId", "unitId", "processId")] == [
        other["id"],
        supplier["id"],
        unit2["id"],
        process2["id"],
    ]


def test_new_invoices_are_open_and_in_euro(tenant: Tenant) -> None:
    invoice = _invoice(tenant, _object(tenant)["id"])
    assert invoice["paymentStatus"] == "open" and invoice["currency"] == "EUR"


def test_net_plus_tax_must_equal_gross(tenant: Tenant) -> None:
    answer = _create(tenant, netAmount="1000.00", taxAmount="190.00", grossAmount="1190.01")
    assert answer.status == 400
    assert answer.body["errors"][0]["path"] == "inboundInvoice.grossAmount"
    assert (
        _create(tenant, netAmount="100", taxAmount="7.00", grossAmount="107.0").status == 200
    )  # exact in value, not in notation
    assert _create(tenant, netAmount="-50.00", taxAmount="-9.50", grossAmount="-59.50").status == 200  # a credit note


def test_the_sum_rule_holds_on_update(tenant: Tenant) -> None:
    invoice = _invoice(tenant, _object(tenant)["id"], netAmount="100.00", taxAmount="19.00", grossAmount="119.00")
    answer = tenant.command(
        "accounting.inboundinvoices.update", {"inboundInvoice": {"id": invoice["id"], "taxAmount": "7.00"}}
    )
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "inboundInvoice.grossAmount"
    fixed = tenant.ok(
        "accounting.inboundinvoices.update",
        {"inboundInvoice": {"id": invoice["id"], "taxAmount": "7.00", "grossAmount": "107.00", "taxRate": "7"}},
    )
    assert fixed["inboundInvoice"]["grossAmount"] == "107.00"


def test_partial_amounts_are_accepted(tenant: Tenant) -> None:
    assert _create(tenant, grossAmount="119.00").status == 200


def test_due_date_may_not_precede_the_invoice_date(tenant: Tenant) -> None:
    answer = _create(tenant, invoiceDate="2024-03-01", dueDate="2024-02-29")
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "inboundInvoice.dueDate"
    assert _create(tenant, invoiceDate="2024-03-01", dueDate="2024-03-01").status == 200


def test_a_paid_invoice_needs_paid_at(tenant: Tenant) -> None:
    answer = _create(tenant, paymentStatus="paid")
    assert answer.status == 400 and answer.body["errors"][0]["path"] == "inboundInvoice.paidAt"
    invoice = _invoice(tenant, _object(tenant)["id"], paymentStatus="paid", paidAt="2024-03-05")
    cleared = tenant.command(
        "accounting.inboundinvoices.update", {"inboundInvoice": {"id": invoice["id"], "paidAt": None}}
    )
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "inboundInvoice.paidAt"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("bookingAccount", "123"),
        ("bookingAccount", "123456789"),
        ("bookingAccount", "60a0"),
        ("taxRate", "16"),
        ("currency", "USD"),
        ("netAmount", "12.345"),
        ("netAmount", 12.5),
        ("paymentStatus", "overdue"),
        ("invoiceDate", "2024-02-30"),
    ],
)
def test_malformed_fields_are_400_at_their_path(tenant: Tenant, field: str, value: Any) -> None:
    answer = _create(tenant, **{field: value})
    assert answer.status == 400
    assert answer.body["errors"][0]["path"] == f"inboundInvoice.{field}"


def test_required_fields(tenant: Tenant) -> None:
    obj = _object(tenant)
    missing = tenant.command(
        "accounting.inboundinvoices.create", {"inboundInvoice": {"objectId": obj["id"], "invoiceNumber": "1"}}
    )
    assert missing.status == 400
    invoice = _invoice(tenant, obj["id"])
    cleared = tenant.command(
        "accounting.inboundinvoices.update", {"inboundInvoice": {"id": invoice["id"], "invoiceNumber": None}}
    )
    assert cleared.status == 400 and cleared.body["errors"][0]["path"] == "inboundInvoice.invoiceNumber"


def test_list_shows_the_invoices_of_one_object_only(tenant: Tenant) -> None:
    a, b = _object(tenant, "A"), _object(tenant, "B")
    first = _invoice(tenant, a["id"], invoiceNumber="A-1")
    second = _invoice(tenant, a["id"], invoiceNumber="A-2")
    _invoice(tenant, b["id"], invoiceNumber="B-1")
    listed = tenant.get("accounting.inboundinvoices.list", {"object": a["id"]})
    assert [i["id"] for i in listed["inboundInvoices"]] == [first["id"], second["id"]]
    assert listed["pagination"]["total"] == 2
    assert tenant.query("accounting.inboundinvoices.list", {}).status == 400


def test_unit_and_process_must_belong_to_the_invoice_object(tenant: Tenant) -> None:
    a, b = _object(tenant, "A"), _object(tenant, "B")
    unit_of_b = tenant.ok("units.create", {"unit": {"objectId": b["id"], "number": "9", "type": "storage"}})["unit"]
    process_of_b = tenant.ok("processes.create", {"process": {"title": "Wartung"}, "object": b["id"]})["process"]
    wrong_unit = tenant.command(
        "accounting.inboundinvoices.create", {"inboundInvoice": _payload(a["id"], unitId=unit_of_b["id"])}
    )
    wrong_process = tenant.command(
        "accounting.inboundinvoices.create", {"inboundInvoice": _payload(a["id"], processId=process_of_b["id"])}
    )
    assert wrong_unit.status == wrong_process.status == 400
    assert wrong_unit.body["errors"][0]["path"] == "inboundInvoice.unitId"
    assert wrong_process.body["errors"][0]["path"] == "inboundInvoice.processId"
    invoice = _invoice(tenant, b["id"], unitId=unit_of_b["id"], processId=process_of_b["id"])
    moved = tenant.command(
        "accounting.inboundinvoices.update", {"inboundInvoice": {"id": invoice["id"], "objectId": a["id"]}}
    )
    assert moved.status == 400 and moved.body["errors"][0]["path"] == "inboundInvoice.unitId"


def test_an_object_with_invoices_cannot_be_deleted(tenant: Tenant) -> None:
    obj = _object(tenant)
    invoice = _invoice(tenant, obj["id"])
    refused = tenant.command("objects.delete", {"object": obj["id"]})
    assert refused.status == 409 and refused.body["referencedBy"] == [
        {"type": "inboundInvoice", "id": invoice["id"], "path": "objectId"}
    ]


def test_unknown_object_is_404_at_its_path(tenant: Tenant) -> None:
    answer = tenant.command(
        "accounting.inboundinvoices.create", {"inboundInvoice": _payload("obj_01K00000000000000000000000")}
    )
    assert answer.status == 404 and answer.body["errors"][0]["path"] == "inboundInvoice.objectId"
