"""The console's data pages, without a browser: each type's list and detail with the tenant's data
(made through REST, as an agent would), search by name (the `search` query, whose index follows
the change stream: a search waits for what was just made), the header's search across every type,
paging, links object -> unit -> contract and back, child lists, filtered lists,
another tenant's ids as not found, and nothing that posts (a viewer reads everything)."""

from __future__ import annotations

import base64
import re
import urllib.parse
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from chalicelib.console.pages import data
from tests.client import Tenant
from tests.console_client import Page, Person, invite, owner_of
from tests.eventually import eventually
from tests.uploads import pdf


@dataclass
class World:
    object: dict[str, Any]
    unit: dict[str, Any]
    contact: dict[str, Any]
    company: dict[str, Any]
    contract: dict[str, Any]
    process: dict[str, Any]
    document: dict[str, Any]


def make_world(tenant: Tenant) -> World:
    """One of each type, referencing each other, made through REST."""
    new_object = {"name": "WEG Lindenstraße 12", "number": "1042", "type": "weg"}
    obj = tenant.ok("objects.create", {"object": new_object})["object"]
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "1.02", "type": "apartment"}})["unit"]
    new_company = {"personType": "legal", "companyName": "Hausmeister Blitz GmbH"}
    company = tenant.ok("contacts.create", {"contact": new_company})["contact"]
    contact = tenant.contact(firstName="Erika", lastName="Weber", companyId=company["id"])
    contract = tenant.ok(
        "contracts.create",
        {
            "contract": {
                "unitId": unit["id"],
                "type": "lease",
                "startDate": "2024-01-01",
                "parties": [{"contactId": contact["id"], "role": "tenant"}],
            }
        },
    )["contract"]
    process = tenant.ok(
        "processes.create",
        {"process": {"title": "Wasserschaden Bad", "contractId": contract["id"]}, "object": obj["id"]},
    )["process"]
    upload = {
        "locationId": unit["id"],
        "resource": {"fileName": "Mietvertrag.pdf", "content": base64.b64encode(pdf()).decode()},
        "document": {"title": "Mietvertrag Weber", "documentType": "leaseContract"},
    }
    document = tenant.ok("documents.upload", upload)["document"]
    return World(obj, unit, contact, company, contract, process, document)


def found_page(person: Person, path: str, text: str) -> Page:
    """The page of a search once its index holds what the test just made (`text` on it)."""
    pages: list[Page] = []

    def shows() -> bool:
        pages[:] = [person.get(path)]
        return text in pages[0].text() or text in pages[0].html

    eventually(shows, timeout=10, message=f"{path} shows {text!r}")
    return pages[0]


def links(page: Page) -> set[str]:
    return set(re.findall(r'href="/console(/data/[^"?]+)"', page.html))


def main_of(page: Page) -> str:
    found = re.search(r"<main[^>]*>(.*)</main>", page.html, re.S)
    assert found, page.html
    return found.group(1)


def test_each_type_lists_and_shows_the_tenants_data(tenant: Tenant) -> None:
    world = make_world(tenant)
    owner = owner_of(tenant)
    expected = {
        "objects": (world.object, "WEG Lindenstraße 12"),
        "units": (world.unit, "1.02"),
        "contacts": (world.contact, "Erika Weber"),
        "contracts": (world.contract, "Lease: Erika Weber"),
        "processes": (world.process, "Wasserschaden Bad"),
        "documents": (world.document, "Mietvertrag Weber"),
    }
    for plural, (entity, name) in expected.items():
        listed = owner.get(f"/data/{plural}")
        assert listed.status == 200, listed.text()
        assert name in listed.text() and f"/data/{plural}/{entity['id']}" in links(listed)
        shown = owner.get(f"/data/{plural}/{entity['id']}")
        assert shown.status == 200, shown.text()
        assert f"<h1>{data.TYPES[plural].key.capitalize()}: {name}</h1>" in shown.html
        for field, label in (("id", "ID"), ("createdAt", "Created at"), ("version", "Version")):
            assert f"<dt>{label}</dt>" in shown.html and f">{field}<" not in shown.html  # labels, not API names
        assert entity["id"] in shown.text()
    document = owner.get(f"/data/documents/{world.document['id']}")
    assert "Mietvertrag.pdf" in document.text() and "application/pdf" in document.text()
    assert "Download the file" in document.text()  # the presigned link is offered, not printed


def test_nested_values_are_labelled_text_with_links_to_what_they_reference(tenant: Tenant) -> None:
    world = make_world(tenant)
    owner = owner_of(tenant)
    contract = owner.get(f"/data/contracts/{world.contract['id']}")
    assert "contactId" not in contract.html and "{" not in contract.text()  # no JSON for people
    assert f"Contact: Erika Weber {world.contact['id']}" in contract.text()
    assert "Role in the contract: Tenant" in contract.text()  # the label says whose role, the value in words
    assert f"/data/contacts/{world.contact['id']}" in links(contract)


def test_links_lead_from_an_object_to_its_unit_and_contract_and_back(tenant: Tenant) -> None:
    world = make_world(tenant)
    owner = owner_of(tenant)
    obj_page = f"/data/objects/{world.object['id']}"
    unit_page, contract_page = f"/data/units/{world.unit['id']}", f"/data/contracts/{world.contract['id']}"
    process_page, document_page = f"/data/processes/{world.process['id']}", f"/data/documents/{world.document['id']}"

    obj = owner.get(obj_page)
    assert {unit_page, contract_page, process_page} <= links(obj)  # its units, contracts, processes
    assert "Documents (0)" in obj.text()  # the document is filed at the unit, not the object

    unit = owner.get(unit_page)
    assert {obj_page, contract_page, document_page} <= links(unit)
    assert f"WEG Lindenstraße 12 {world.object['id']}" in unit.text()  # a reference shows its name, then its id

    contract = owner.get(contract_page)
    assert {unit_page, obj_page, process_page, f"/data/contacts/{world.contact['id']}"} <= links(contract)

    process = owner.get(process_page)
    assert {obj_page, contract_page} <= links(process)
    document = owner.get(document_page)
    assert unit_page in links(document)

    contact = owner.get(f"/data/contacts/{world.contact['id']}")
    assert f"/data/contacts/{world.company['id']}" in links(contact)  # its company
    company = owner.get(f"/data/contacts/{world.company['id']}")
    assert f"/data/contacts/{world.contact['id']}" in links(company)  # the company's people


def test_a_child_list_shows_the_first_rows_and_links_to_the_filtered_list(
    tenant: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data, "CHILD_ROWS", 2)
    mine = tenant.ok("objects.create", {"object": {"name": "Haus A", "type": "rental"}})["object"]
    other = tenant.ok("objects.create", {"object": {"name": "Haus B", "type": "rental"}})["object"]
    for number in ("1", "2", "3"):
        tenant.ok("units.create", {"unit": {"objectId": mine["id"], "number": f"A-{number}", "type": "apartment"}})
    tenant.ok("units.create", {"unit": {"objectId": other["id"], "number": "B-1", "type": "apartment"}})
    owner = owner_of(tenant)

    obj = owner.get(f"/data/objects/{mine['id']}")
    assert "Units (3)" in obj.text() and "Show all 3" in obj.text()
    filtered_url = f"/data/units?objectId={mine['id']}"
    assert f'href="/console{filtered_url}"' in obj.html

    filtered = owner.get(filtered_url)
    assert filtered.status == 200
    assert all(number in filtered.text() for number in ("A-1", "A-2", "A-3")) and "B-1" not in filtered.text()
    assert f"Filtered by Object: {mine['id']}" in filtered.text()
    searched = found_page(owner, f"{filtered_url}&q=a-2", "A-2")  # a search within the object keeps it
    assert "A-1" not in searched.text()
    assert f'name="objectId" value="{mine["id"]}"' in searched.html


def test_search_finds_by_name_without_regard_to_case(tenant: Tenant) -> None:
    world = make_world(tenant)
    tenant.ok("objects.create", {"object": {"name": "Rosenweg 7", "type": "rental"}})
    tenant.contact(firstName="Hans", lastName="Schmidt")
    owner = owner_of(tenant)

    found_page(owner, "/data/objects?q=Rosenweg", "Rosenweg 7")  # the index holds the last object made
    found_page(owner, "/data/contacts?q=Schmidt", "Hans Schmidt")  # ... and the last contact
    found = owner.get("/data/objects?q=LINDEN")
    assert found.status == 200
    assert "WEG Lindenstraße 12" in found.text() and "Rosenweg 7" not in found.text()
    assert "Matches for “LINDEN”: 1." in found.text()
    assert "WEG Lindenstraße 12" in owner.get("/data/objects?q=1042").text()  # the object number too

    contacts = owner.get("/data/contacts?q=weber").text()
    assert "Erika Weber" in contacts and "Schmidt" not in contacts
    assert "Hausmeister Blitz GmbH" in owner.get("/data/contacts?q=blitz").text()
    assert "Lease: Erika Weber" in owner.get("/data/contracts?q=Weber").text()  # a contract by its party
    assert "Wasserschaden Bad" in owner.get("/data/processes?q=wasser").text()
    assert "Mietvertrag Weber" in owner.get("/data/documents?q=mietvertrag").text()
    assert world.unit["id"] in owner.get("/data/units?q=1.02").html

    nothing = owner.get("/data/objects?q=Kastanienallee")
    assert "No matches." in nothing.text() and "Matches for “Kastanienallee”: 0." in nothing.text()


def test_a_list_filtered_by_another_parent_offers_no_search(tenant: Tenant) -> None:
    """`search` narrows by object only: a company's contacts or a unit's contracts (short, paged
    lists) offer no search box, and a `q` in their address is not applied."""
    world = make_world(tenant)
    owner = owner_of(tenant)
    filtered = owner.get(f"/data/contacts?companyId={world.company['id']}&q=nobody")
    assert filtered.status == 200 and "Erika Weber" in filtered.text()
    assert 'role="search"' not in main_of(filtered)


def test_the_header_search_finds_every_type_grouped_and_linked(tenant: Tenant) -> None:
    world = make_world(tenant)
    signatory = {"contactId": world.contact["id"], "role": "managingDirector"}
    signer = tenant.ok("signatories.create", {"signatory": signatory})
    owner = owner_of(tenant)
    assert 'action="/console/search"' in owner.get("/").html  # the field in every page's header
    page = found_page(owner, "/search?q=Weber", "Signatories")
    text = page.text()
    assert "Contacts (1)" in text and "Contracts (1)" in text and "Signatories (1)" in text, text
    assert f'href="/console/data/contacts/{world.contact["id"]}"' in page.html
    assert f'href="/console/data/contracts/{world.contract["id"]}"' in page.html
    assert 'href="/console/data/contacts?q=Weber"' in page.html  # all matches of a type: its list's search
    assert signer["signatory"]["id"] not in page.html  # a type without a page of its own: named, not linked
    lindenstrasse = found_page(owner, "/search?q=Lindenstr.", "Objects")
    assert f'href="/console/data/objects/{world.object["id"]}"' in lindenstrasse.html
    units = found_page(owner, "/search?q=1.02", "Units (1)")
    assert "in WEG Lindenstraße 12" in units.text()  # a unit with the object it is in
    nothing = owner.get("/search?q=Kastanienallee&lang=de")
    assert "Keine Treffer." in nothing.text() and "Treffer für „Kastanienallee“: 0." in nothing.text()


def test_lists_are_paged(tenant: Tenant, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data, "PAGE_SIZE", 2)
    for name in ("Haus 1", "Haus 2", "Haus 3"):
        tenant.ok("objects.create", {"object": {"name": name, "type": "rental"}})
    owner = owner_of(tenant)
    first = owner.get("/data/objects")
    assert "Entries 1–2 of 3" in first.text()
    assert 'href="/console/data/objects?offset=2"' in first.html
    second = owner.get("/data/objects?offset=2")
    assert "Entries 3–3 of 3" in second.text() and "Haus 3" in second.text() and "Haus 1" not in second.text()
    searched = found_page(owner, "/data/objects?q=haus", "Matches for “haus”: 3.")  # search results page the same way
    assert 'href="/console/data/objects?q=haus&amp;offset=2"' in searched.html
    assert owner.get("/data/objects?offset=nonsense").status == 200


def test_another_tenants_ids_and_unknown_pages_are_not_found(tenant: Tenant, other_tenant: Tenant) -> None:
    theirs = make_world(other_tenant)
    owner = owner_of(tenant)
    for plural in data.TYPES:
        entity = getattr(theirs, data.TYPES[plural].key)
        page = owner.get(f"/data/{plural}/{entity['id']}")
        assert page.status == 404, (plural, page.text())
        assert "There is no such record" in page.text() and entity["id"] not in page.text()
    assert owner.get(f"/data/units/{theirs.object['id']}").status == 404  # the wrong type of id
    assert owner.get("/data/objects/no-such-alias").status == 404
    assert owner.get("/data/apikeys").status == 404
    assert owner.get("/data/objects").text().count("WEG Lindenstraße") == 0
    filtered = owner.get(f"/data/units?objectId={theirs.object['id']}")  # a filter finds none of theirs
    assert "1.02" not in filtered.text() and "No entries yet." in filtered.text()


def test_nothing_posts_and_a_viewer_reads_every_page(tenant: Tenant) -> None:
    world = make_world(tenant)
    owner = owner_of(tenant)
    viewer: Person = invite(owner, f"viewer-{uuid.uuid4().hex[:8]}@example.org", "viewer")
    for plural in data.TYPES:
        entity = getattr(world, data.TYPES[plural].key)
        for path in (f"/data/{plural}", f"/data/{plural}/{entity['id']}", f"/data/{plural}?q=a"):
            page = viewer.get(path)
            assert page.status == 200, (path, page.text())
            assert 'method="post"' not in main_of(page).lower(), path
        assert viewer.post(f"/data/{plural}", {}).status == 405


def test_the_pages_speak_german(tenant: Tenant) -> None:
    world = make_world(tenant)
    owner = owner_of(tenant)
    owner.lang = "de-DE"
    listed = owner.get("/data/contracts")
    assert "<h1>Verträge</h1>" in listed.html and "Mietvertrag: Erika Weber" in listed.text()
    shown = owner.get(f"/data/processes/{world.process['id']}")
    assert "<h1>Vorgang: Wasserschaden Bad</h1>" in shown.html
    assert "Priorität" in shown.text() and "Offen" in shown.text() and "Dokumente (0)" in shown.text()
    document = owner.get(f"/data/documents/{world.document['id']}").text()
    assert "Mietvertrag" in document.replace("Mietvertrag Weber", "") and "leaseContract" not in document
    assert "Verträge" in document and ">contracts<" not in document  # its type and category in words


def test_the_search_finds_full_names_with_umlauts_folded(tenant: Tenant) -> None:
    """Issue 37, 8 (the acceptance test): an agent key creates and changes a contact "Jürgen
    Schäfer"; the full name, "Schaefer" and any case find him."""
    bot = tenant.new_key(["read", "write"], agent="crm-sync")
    made = tenant.ok(
        "contacts.create", {"contact": {"personType": "natural", "firstName": "Jürgen", "lastName": "Schafer"}}, key=bot
    )
    jurgen = made["contact"]
    tenant.ok("contacts.update", {"contact": {"id": jurgen["id"], "lastName": "Schäfer"}}, key=bot)
    tenant.contact(firstName="Jürgen", lastName="Müller")
    owner = owner_of(tenant)
    found_page(owner, "/data/contacts?q=M%C3%BCller", "Jürgen Müller")  # the index holds both
    found_page(owner, "/data/contacts?q=Sch%C3%A4fer", "Jürgen Schäfer")  # ... and the rename
    for query in ("Jürgen Schäfer", "Schaefer", "jürgen schäfer", "JUERGEN SCHAEFER", "Schäfer", "schäfer"):
        found = owner.get("/data/contacts?" + urllib.parse.urlencode({"q": query}))
        assert found.status == 200 and jurgen["id"] in found.html, query
        assert "Müller" not in found.text(), query
    assert "Jürgen" not in owner.get("/data/contacts?q=Sch%C3%A4fer+M%C3%BCller").text()
