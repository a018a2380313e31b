"""Restore from the data pages (issue "the console speaks to people", names, not ids). A deleted
entity's own page says since when it is deleted, offers the activity pages' restore button to an
admin or owner and names what it references, a deleted one marked, with its own button (the API
restores an entity only once what it references is live): a contract deleted with its tenant comes
back in that order, each restore returning to the page it was pressed on with a notice. A live
page shows a deleted reference (only data written past the reference checks has one) the same
way. A viewer sees the marks and no button, and a post of theirs is refused; another company's
deleted id answers exactly as an unknown one."""

from __future__ import annotations

import re
import uuid

from chalicelib import clock, ids
from tests.client import Tenant
from tests.console_client import Page, Person, invite, owner_of

FORM = re.compile(r'<form method="post" action="/console/activity/restore"[^>]*data-confirm="([^"]+)"')


def _forms(page: Page) -> dict[str, tuple[str, str]]:
    """The page's restore buttons: entity id -> (its confirmation, the page it returns to)."""
    found = re.findall(
        r'data-confirm="([^"]+)">\s*<input type="hidden" name="csrf" value="[^"]*">\s*'
        r'<input type="hidden" name="entityId" value="([^"]+)">\s*<input type="hidden" name="back" value="([^"]+)">',
        page.html,
    )
    return {entity_id: (confirm, back) for confirm, entity_id, back in found}


def _contract_of(tenant: Tenant) -> tuple[dict[str, str], dict[str, str]]:
    """A lease with Erika Mustermann as its tenant: (the contract, the contact)."""
    contact = tenant.contact(firstName="Erika", lastName="Mustermann")
    obj = tenant.ok("objects.create", {"object": {"name": "Rosenweg 7", "type": "rental"}})["object"]
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "1.01", "type": "apartment"}})["unit"]
    party = {"contactId": contact["id"], "role": "tenant"}
    contract = {"unitId": unit["id"], "type": "lease", "startDate": "2024-01-01", "parties": [party]}
    return tenant.ok("contracts.create", {"contract": contract})["contract"], contact


def _both_deleted(tenant: Tenant) -> tuple[dict[str, str], dict[str, str]]:
    contract, contact = _contract_of(tenant)
    tenant.ok("contracts.delete", {"contract": contract["id"]})
    tenant.ok("contacts.delete", {"contact": contact["id"]})
    return contract, contact


def _deleted_past_the_checks(tenant: Tenant, entity_id: str) -> None:
    """Marks an entity deleted in the table, as no operation would while live entities reference it."""
    from chalicelib.store.entity_reads import entity_pk
    from chalicelib.store.model import ENTITY_SK, Item

    Item.get(entity_pk(tenant.id, entity_id), ENTITY_SK).update(actions=[Item.deletedAt.set(clock.now_iso())])


def test_a_deleted_contract_and_its_deleted_tenant_come_back_in_order_from_its_page(tenant: Tenant) -> None:
    contract, contact = _both_deleted(tenant)
    owner = owner_of(tenant)
    owner.lang = "de"
    path = f"/data/contracts/{contract['id']}"

    page = owner.get(path)
    assert page.status == 410 and "<h1>Vertrag: Erika Mustermann – 1.01, Rosenweg 7" in page.html
    assert "Erika Mustermann – 1.01, Rosenweg 7 ist gelöscht (seit" in page.text()
    assert "Verweist auf" in page.text()
    assert "worauf er verweist, wieder da ist" in page.text()
    buttons = _forms(page)
    assert set(buttons) == {contract["id"], contact["id"]}, page.html
    assert buttons[contact["id"]] == ("Erika Mustermann wiederherstellen?", path)
    assert buttons[contract["id"]][1] == path
    early = owner.post("/activity/restore", {"entityId": contract["id"], "back": path})  # before its tenant
    assert early.status == 409 and "verweist auf etwas Gelöschtes" in early.text(), early.text()

    done = owner.post("/activity/restore", {"entityId": contact["id"], "back": path})
    assert done.status == 303 and done.location == f"/console{path}?restored={contact['id']}"
    after = owner.get(done.location.removeprefix("/console"))
    assert 'role="status"' in after.html and "Erika Mustermann ist wiederhergestellt." in after.text()
    assert set(_forms(after)) == {contract["id"]} and "worauf er verweist, wieder da ist" not in after.text()
    assert f'href="/console/data/contacts/{contact["id"]}"' in after.html
    assert owner.get(f"/data/contacts/{contact['id']}").status == 200  # the link works again

    done = owner.post("/activity/restore", {"entityId": contract["id"], "back": path})
    live = owner.get(done.location.removeprefix("/console"))
    assert live.status == 200 and "<h1>Vertrag: Mietvertrag: Erika Mustermann</h1>" in live.html, live.text()
    assert "wiederhergestellt" in live.text() and not _forms(live)


def test_a_live_page_offers_restore_beside_a_deleted_reference(tenant: Tenant) -> None:
    contract, contact = _contract_of(tenant)
    _deleted_past_the_checks(tenant, contact["id"])
    owner = owner_of(tenant)
    path = f"/data/contracts/{contract['id']}"

    shown = owner.get(path)
    assert shown.status == 200 and "Erika Mustermann (deleted)" in shown.text()
    assert _forms(shown) == {contact["id"]: ("Restore Erika Mustermann?", path)}

    done = owner.post("/activity/restore", {"entityId": contact["id"], "back": path})
    assert done.status == 303 and done.location == f"/console{path}?restored={contact['id']}"
    after = owner.get(done.location.removeprefix("/console"))
    assert "Erika Mustermann is restored." in after.text() and "(deleted)" not in after.text()
    assert not _forms(after)


def test_a_deleted_entitys_own_page_says_since_when_and_offers_restore(tenant: Tenant) -> None:
    contact = tenant.contact(firstName="Erika", lastName="Mustermann")
    tenant.ok("contacts.delete", {"contact": contact["id"]})
    owner = owner_of(tenant)
    path = f"/data/contacts/{contact['id']}"

    for lang, words in (("de", "Erika Mustermann ist gelöscht (seit"), ("en", "Erika Mustermann is deleted (since")):
        owner.lang = lang
        page = owner.get(path)
        assert page.status == 410 and words in page.text(), page.text()
        assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"', page.html)
        assert _forms(page) == {
            contact["id"]: (("Erika Mustermann wiederherstellen?", "Restore Erika Mustermann?")[lang == "en"], path)
        }
        assert f'href="/console/activity?entityId={contact["id"]}"' in page.html  # its history

    done = owner.post("/activity/restore", {"entityId": contact["id"], "back": path})
    assert done.location == f"/console{path}?restored={contact['id']}"
    after = owner.get(done.location.removeprefix("/console"))
    assert after.status == 200 and "Erika Mustermann is restored." in after.text()
    assert "<h1>Contact: Erika Mustermann</h1>" in after.html


def test_a_viewer_sees_the_marks_without_a_button_and_cannot_post_a_restore(tenant: Tenant) -> None:
    contract, contact = _both_deleted(tenant)
    live, party = _contract_of(tenant)
    _deleted_past_the_checks(tenant, party["id"])
    viewer: Person = invite(owner_of(tenant), f"viewer-{uuid.uuid4().hex[:8]}@example.org", "viewer")

    shown = viewer.get(f"/data/contracts/{live['id']}")
    assert "Erika Mustermann (deleted)" in shown.text() and not FORM.search(shown.html)
    for path in (f"/data/contracts/{contract['id']}", f"/data/contacts/{contact['id']}"):
        own = viewer.get(path)
        assert own.status == 410 and "is deleted (since" in own.text() and "Erika Mustermann" in own.text()
        assert 'method="post"' not in own.html.split("<main", 1)[1], path

    back = f"/data/contracts/{contract['id']}"
    assert viewer.post("/activity/restore", {"entityId": contact["id"], "back": back}).status == 403
    forged = viewer.post("/activity/restore", {"entityId": contact["id"], "back": back, "csrf": "0" * 32})
    assert forged.status == 403
    assert tenant.query("contacts.show", {"contact": contact["id"]}).status != 200


def test_a_forged_restore_without_the_form_token_is_refused_for_an_owner_too(tenant: Tenant) -> None:
    contact = tenant.contact(firstName="Erika", lastName="Mustermann")
    tenant.ok("contacts.delete", {"contact": contact["id"]})
    owner = owner_of(tenant)
    back = f"/data/contacts/{contact['id']}"
    assert owner.post("/activity/restore", {"entityId": contact["id"], "back": back, "csrf": "0" * 32}).status == 403
    assert tenant.query("contacts.show", {"contact": contact["id"]}).status != 200


def test_another_companys_deleted_id_looks_exactly_like_an_unknown_one(tenant: Tenant, other_tenant: Tenant) -> None:
    theirs = other_tenant.contact(firstName="Erika", lastName="Geheim")
    other_tenant.ok("contacts.delete", {"contact": theirs["id"]})
    unknown = ids.new_id(ids.prefix_of(theirs["id"]) or "")
    owner = owner_of(tenant)

    def answer(entity_id: str) -> tuple[int, str]:
        page = owner.get(f"/data/contacts/{entity_id}")
        return page.status, page.html.replace(entity_id, "ID")

    foreign = answer(theirs["id"])
    assert foreign == answer(unknown)
    assert foreign[0] == 404 and "Geheim" not in foreign[1] and "deleted" not in foreign[1]


def test_a_malformed_or_mistyped_id_of_a_deleted_entity_is_plainly_not_found(tenant: Tenant) -> None:
    _, contact = _both_deleted(tenant)
    owner = owner_of(tenant)
    for path in (
        f"/data/contracts/{contact['id']}",  # a contact's id on the contracts' pages
        f"/data/contacts/{contact['id']}x",
        "/data/contacts/con_nonsense",
    ):
        page = owner.get(path)
        assert page.status == 404 and "There is no such record" in page.text(), path
        assert "Mustermann" not in page.text() and not FORM.search(page.html), path
