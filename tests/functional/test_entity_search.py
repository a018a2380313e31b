"""The entity search (issue 53): `search` finds entities by what people call them, folded as
German is typed, ranked exact > prefix > one typo, only within what the key may read, fresh with
the change stream, rebuilt by `pmctl search reindex`, never across tenants
(docs/concepts/search.md)."""

from __future__ import annotations

import json
import tempfile
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from chalicelib import resources
from chalicelib.entities import ENTITY_TYPES
from chalicelib.entity_search import engine, follow
from chalicelib.entity_search.engine import one_edit
from chalicelib.entity_search.fold import fold, words
from chalicelib.entity_search.opensearch_engine import OpenSearchEngine
from chalicelib.entity_search.texts import searchable_types, texts
from chalicelib.ops.pmctl import cli
from chalicelib.scopes import AREAS
from chalicelib.store.entity_reads import entity_pk, fetch_entities
from tests import opensearch_entity_fake
from tests.client import Tenant
from tests.eventually import eventually
from tests.functional.test_untrusted_text import _vendor
from tests.mcp_client import McpSession
from tests.world import World

resources.load_all()  # the catalogue the searched types derive from


@pytest.fixture(scope="module", autouse=True, params=["sqlite", "opensearch"])
def index_engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """This module's index, the process's engine until the module ends: the embedded one in a
    temporary folder, then the cloud's (OpenSearch, on tests/opensearch_entity_fake.py): every
    test here runs on both, through the public interface."""
    if request.param == "opensearch":
        client, _ = opensearch_entity_fake.fake_client()
        engine.use_engine(OpenSearchEngine(client, "pm-entities"))
        yield request.param
        engine.use(":memory:")
        return
    with tempfile.TemporaryDirectory(prefix="pm-entity-search-") as folder:
        engine.use(engine.file_in(folder))
        yield request.param
        engine.use(":memory:")


def _search(tenant: Tenant, query: str, key: str | None = None, **args: Any) -> dict[str, Any]:
    return dict(
        tenant.get("search", {"query": query, "limit": 100, "offset": 0, **args}, **({"key": key} if key else {}))
    )


def _ids(answer: dict[str, Any]) -> list[str]:
    return [r["id"] for r in answer["results"]]


def _found(tenant: Tenant, query: str, entity_id: str, key: str | None = None) -> bool:
    return entity_id in _ids(_search(tenant, query, key))


def settled(tenant: Tenant, query: str, entity_id: str) -> None:
    eventually(lambda: _found(tenant, query, entity_id), timeout=10, message=f"{query!r} finds {entity_id}")


def _indexed(tenant: Tenant) -> set[str]:
    """The ids the index holds of the tenant (a search also drops what the table says is deleted)."""
    return {entry.id for entry in engine.current().tenant_rows(tenant.id)}


# --- the folding, as unit rules --------------------------------------------------------------


def test_folding_makes_umlauts_sharp_s_and_str_one_spelling() -> None:
    assert fold("Schäfer") == fold("Schaefer") == "schaefer"
    assert fold("Straße") == fold("STRASSE") == "strasse"
    assert words("Lindenstr. 12") == ["lindenstrasse", "12"]
    assert words("Müller-Lüdenscheidt, André") == ["mueller", "luedenscheidt", "andre"]


def test_one_edit_is_a_letter_changed_added_dropped_or_two_swapped() -> None:
    assert one_edit("mustermann", "mustermaan") and one_edit("schmidt", "schmit") and one_edit("schmit", "schmidt")
    assert one_edit("meier", "meire") and not one_edit("meier", "maier1") and not one_edit("abc", "abc")


def test_the_searched_types_come_from_the_catalogue() -> None:
    assert {"contact", "object", "objectAddress", "unit", "process", "processUpdate", "document", "callRecord"} <= set(
        searchable_types()
    )
    assert {"post", "bankAccountInfo"} <= set(searchable_types()) and "webhook" not in searchable_types()
    contact = {"firstName": "Erika", "emails": [{"address": "e@example.org"}], "phones": [{"number": "030 12"}]}
    assert texts("contact", contact) == [
        ("firstName", "Erika"),
        ("emails.address", "e@example.org"),
        ("phones.number", "030 12"),
    ]


# --- matching and ranking ----------------------------------------------------------------------


def test_german_as_typed_finds_both_ways_and_ranks_exact_above_prefix_above_typo(tenant: Tenant) -> None:
    schaefer = tenant.contact(firstName="Erika", lastName="Schäfer", emails=[{"address": "erika@example.org"}])
    schaefer2 = tenant.contact(lastName="Schaefer", phones=[{"number": "+49 30 1234567"}])
    schaeferling = tenant.contact(lastName="Schaeferling")
    schaefr = tenant.contact(lastName="Schafer")  # one letter off "schaefer"
    linden = tenant.ok("objects.create", {"object": {"name": "Lindenstraße 12", "type": "weg"}})["object"]
    strasse = tenant.ok("objects.create", {"object": {"name": "Gartenstrasse 3", "type": "weg"}})["object"]
    settled(tenant, "Gartenstrasse", strasse["id"])
    settled(tenant, "Schafer", schaefr["id"])

    for typed in ("Schaefer", "Schäfer", "SCHÄFER"):
        ranked = _ids(_search(tenant, typed, types=["contact"]))
        assert set(ranked[:2]) == {schaefer["id"], schaefer2["id"]}, typed  # exact, both spellings
        assert ranked[2] == schaeferling["id"], typed  # then the prefix
        assert ranked[3] == schaefr["id"], typed  # then one typo
    assert _found(tenant, "Erika Schaefer", schaefer["id"]) and _found(tenant, "schäfer erika", schaefer["id"])
    assert not _found(tenant, "Erika Schäfer", schaefer2["id"])  # every word must match
    assert _found(tenant, "Linden", linden["id"])
    assert _found(tenant, "Lindenstrasse 12", linden["id"]) and _found(tenant, "lindenstr. 12", linden["id"])
    assert _found(tenant, "Gartenstraße", strasse["id"]) and _found(tenant, "Gartenstr.", strasse["id"])
    assert _found(tenant, "Lindenstrase", linden["id"])  # one typo in a long word
    assert not _found(tenant, "Lindnstrase", linden["id"])  # two are too many
    assert _found(tenant, "erika@example.org", schaefer["id"])
    assert _found(tenant, "4930 1234567".replace(" ", ""), schaefer2["id"])

    best = _search(tenant, "Schäfer", types=["contact"])["results"][0]
    assert best["matched"] == {"field": "lastName", "text": best["name"].split()[-1]}
    assert best["type"] == "contact" and best["objectId"] is None and best["aliases"] == []
    assert best["score"] > _search(tenant, "Schäferl", types=["contact"])["results"][0]["score"]
    objects = _search(tenant, "12", types=["object"])
    assert objects["results"][0]["objectId"] == linden["id"] and objects["pagination"]["total"] == 1


def test_paging_types_and_object_narrow_the_results(tenant: Tenant) -> None:
    obj = tenant.ok("objects.create", {"object": {"name": "Birkenweg 1", "type": "weg"}})["object"]
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "Birkenweg-W1", "type": "apartment"}})
    made = [tenant.contact(lastName=f"Birkenweg{n}") for n in range(3)]
    settled(tenant, "Birkenweg-W1", unit["unit"]["id"])
    settled(tenant, "Birkenweg2", made[2]["id"])
    everything = _search(tenant, "Birkenweg")
    assert everything["pagination"]["total"] == 5
    page = tenant.get("search", {"query": "Birkenweg", "limit": 2, "offset": 2})
    assert _ids(page) == _ids(everything)[2:4] and page["pagination"]["nextOffset"] == 4
    assert set(_ids(_search(tenant, "Birkenweg", objectId=obj["id"]))) == {obj["id"], unit["unit"]["id"]}
    assert _ids(_search(tenant, "Birkenweg", types=["unit"])) == [unit["unit"]["id"]]
    refused = tenant.query("search", {"query": "x", "limit": 10, "offset": 0, "types": ["webhook"]})
    assert refused.status == 400 and refused.body["errors"][0]["path"] == "types[0]", refused.body
    assert tenant.query("search", {"query": "", "limit": 10, "offset": 0}).status == 400
    assert tenant.query("search", {"query": "x" * 201, "limit": 10, "offset": 0}).status == 400
    assert tenant.query("search", {"query": "x", "limit": 101, "offset": 0}).status == 400


# --- only what the key may read ---------------------------------------------------------------


@pytest.fixture(scope="module")
def world(api: Any, index_engine: str) -> World:
    """A tenant with one entity of every type, built per engine (so indexed into it)."""
    built = World(api.signup(company="Suchwelt GmbH"))
    built.build()
    return built


def _first_word(world: World, type_name: str) -> str | None:
    (item,) = fetch_entities([entity_pk(world.tenant.id, world.ids[type_name])])
    (row,) = follow.entries(world.tenant.id, [(type_name, world.ids[type_name], item.data_dict())])
    found = [w for _, text in row.fields for w in words(text)]
    return found[0] if found else None


def test_keys_of_another_object_or_area_find_nothing_of_any_searchable_type(world: World) -> None:
    tenant = world.tenant
    other = tenant.ok("objects.create", {"object": {"name": "Anderswo", "type": "weg"}})["object"]
    elsewhere = tenant.new_key(["read"], objects=[other["id"]])
    first = {t: _first_word(world, t) for t in searchable_types() if t in world.ids}
    swept = {t: w for t, w in first.items() if w}
    assert len(swept) >= 15 and {"signatory", "advisor", "contact", "unit"} <= set(swept), swept
    areas = {ENTITY_TYPES[t].area for t in swept}
    # per area a key that reads every other area
    other_areas = {area: tenant.new_key([f"read:{a}" for a in AREAS if a != area]) for area in areas}
    for type_name, word in swept.items():
        settled(tenant, word, world.ids[type_name])
        for key in (elsewhere, other_areas[ENTITY_TYPES[type_name].area]):
            answer = _search(tenant, word, key, types=[type_name])
            assert answer["results"] == [] and answer["pagination"]["total"] == 0, (type_name, word, answer)


def test_a_limited_key_finds_what_lies_within_its_objects_and_totals_count_only_that(tenant: Tenant) -> None:
    a = tenant.ok("objects.create", {"object": {"name": "Ahornallee 1", "type": "weg"}})["object"]
    b = tenant.ok("objects.create", {"object": {"name": "Ahornallee 2", "type": "weg"}})["object"]
    unit_a = tenant.ok("units.create", {"unit": {"objectId": a["id"], "number": "Ahorn-1", "type": "apartment"}})
    unit_b = tenant.ok("units.create", {"unit": {"objectId": b["id"], "number": "Ahorn-2", "type": "apartment"}})
    settled(tenant, "Ahorn 2", unit_b["unit"]["id"])
    key = tenant.new_key(["read"], objects=[a["id"]])
    answer = _search(tenant, "Ahorn", key)
    assert set(_ids(answer)) == {a["id"], unit_a["unit"]["id"]} and answer["pagination"]["total"] == 2
    units_only = tenant.new_key(["read:units"])
    assert set(_ids(_search(tenant, "Ahorn", units_only))) == {unit_a["unit"]["id"], unit_b["unit"]["id"]}


def test_another_tenants_contact_of_the_same_name_is_never_found(tenant: Tenant, other_tenant: Tenant) -> None:
    name = f"Zwilling{uuid.uuid4().hex[:6]}"
    mine, theirs = tenant.contact(lastName=name), other_tenant.contact(lastName=name)
    settled(tenant, name, mine["id"])
    settled(other_tenant, name, theirs["id"])
    assert _ids(_search(tenant, name)) == [mine["id"]]
    assert _ids(_search(other_tenant, name)) == [theirs["id"]]
    assert _ids(_search(tenant, name[:-1] + "x")) == [mine["id"]]  # the typo's terms are any tenant's; rows are not


def test_over_mcp_a_key_that_omits_untrusted_text_reads_other_parties_names_as_placeholders(
    api: Any, tenant: Tenant
) -> None:
    _, vendor_key = _vendor(tenant)
    name = f"Vendorsen{uuid.uuid4().hex[:6]}"
    made = tenant.ok("contacts.create", {"contact": {"personType": "natural", "lastName": name}}, key=vendor_key)[
        "contact"
    ]
    signs = tenant.ok("signatories.create", {"signatory": {"contactId": made["id"], "role": "managingDirector"}})
    settled(tenant, name, made["id"])
    settled(tenant, name, signs["signatory"]["id"])
    omitting = tenant.ok(
        "apikeys.create", {"apiKey": {"agentName": "locked-bot", "scopes": ["read"], "untrustedText": "omit"}}
    )
    with McpSession(api.base, omitting["apiKey"]["key"]) as mcp:
        answer = mcp.ok("meta.tool.execute", {"name": "search", "arguments": {"query": name, "limit": 10, "offset": 0}})
    found, through = sorted(answer["results"], key=lambda r: r["type"])  # the contact, its signatory
    assert found["id"] == made["id"] and found["matched"]["field"] == "lastName"
    assert through["id"] == signs["signatory"]["id"] and through["matched"]["field"] == "contact.lastName"
    for result in (found, through):
        assert result["name"].startswith("[text omitted") and result["matched"]["text"].startswith("[text omitted")
    assert _search(tenant, name)["results"][0]["name"] == name  # over REST, as written


# --- fresh with the stream, rebuilt by pmctl ----------------------------------------------------


def test_a_created_renamed_and_deleted_entity_is_found_then_gone(tenant: Tenant) -> None:
    contact = tenant.contact(lastName="Vogelsang")
    settled(tenant, "Vogelsang", contact["id"])
    tenant.ok(
        "contacts.update", {"contact": {"id": contact["id"], "lastName": "Finkenschlag", "version": contact["version"]}}
    )
    settled(tenant, "Finkenschlag", contact["id"])
    assert not _found(tenant, "Vogelsang", contact["id"])
    tenant.ok("contacts.delete", {"contact": contact["id"]})
    eventually(
        lambda: not _found(tenant, "Finkenschlag", contact["id"]), timeout=10, message="the deleted contact gone"
    )
    tenant.ok("contacts.restore", {"contact": contact["id"]})
    settled(tenant, "Finkenschlag", contact["id"])


def test_a_signatory_is_found_by_its_contacts_name_and_follows_a_rename(tenant: Tenant) -> None:
    contact = tenant.contact(firstName="Gundula", lastName="Zeichnerin")
    signatory = tenant.ok("signatories.create", {"signatory": {"contactId": contact["id"], "role": "managingDirector"}})
    signatory_id = signatory["signatory"]["id"]
    settled(tenant, "Zeichnerin", signatory_id)
    found = {r["id"]: r for r in _search(tenant, "Gundula Zeichnerin")["results"]}
    assert found[signatory_id]["name"] == "Gundula Zeichnerin" and found[signatory_id]["type"] == "signatory"
    assert found[signatory_id]["matched"]["field"].startswith("contact.") and contact["id"] in found
    tenant.ok("contacts.update", {"contact": {"id": contact["id"], "lastName": "Unterschrift"}})
    settled(tenant, "Unterschrift", signatory_id)
    assert not _found(tenant, "Zeichnerin", signatory_id)


def test_reindex_rebuilds_an_emptied_index_exactly(tenant: Tenant) -> None:
    obj = tenant.ok("objects.create", {"object": {"name": "Eichenhof", "type": "weg"}})["object"]
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "E-7", "type": "apartment"}})["unit"]
    gone = tenant.contact(lastName="Weggezogen")
    joerg = tenant.contact(firstName="Jörg", lastName="Eichhorn", emails=[{"address": "joerg@example.org"}])
    signs = tenant.ok("signatories.create", {"signatory": {"contactId": joerg["id"], "role": "managingDirector"}})
    tenant.ok("contacts.delete", {"contact": gone["id"]})
    settled(tenant, "E-7", unit["id"])
    settled(tenant, "Eichhorn", signs["signatory"]["id"])
    eventually(lambda: gone["id"] not in _indexed(tenant), timeout=10, message="the deleted contact gone")
    before = engine.current().tenant_rows(tenant.id)
    assert len(before) == 4  # the object, the unit, the live contact, its signatory
    engine.current().clear_tenant(tenant.id)
    assert engine.current().tenant_rows(tenant.id) == [] and _search(tenant, "Eichenhof")["results"] == []
    result = CliRunner().invoke(cli, ["search", "reindex", "--tenant", tenant.id], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"{tenant.id}: 4 entities indexed" in result.output
    assert engine.current().tenant_rows(tenant.id) == before
    assert _ids(_search(tenant, "Eichenhof")) == [obj["id"]]


def test_verify_names_what_the_index_misses_holds_stale_or_holds_beyond_the_table(tenant: Tenant) -> None:
    obj = tenant.ok("objects.create", {"object": {"name": "Buchenhain", "type": "weg"}})["object"]
    kept, altered = tenant.contact(lastName="Bleibtreu"), tenant.contact(lastName="Altname")
    settled(tenant, "Bleibtreu", kept["id"])
    settled(tenant, "Altname", altered["id"])
    settled(tenant, "Buchenhain", obj["id"])

    def verify(*more: str) -> Any:
        return CliRunner().invoke(cli, ["search", "verify", "--tenant", tenant.id, *more], catch_exceptions=False)

    agreeing = verify()
    assert agreeing.exit_code == 0 and "the index agrees with the table" in agreeing.output, agreeing.output
    index = engine.current()
    index.drop_rows(tenant.id, [obj["id"]])  # missing
    (row,) = [e for e in index.tenant_rows(tenant.id) if e.id == altered["id"]]
    index.put_rows([engine.Entry(tenant.id, row.type, row.id, row.object_id, "Anders", (("lastName", "Anders"),))])
    index.put_rows([engine.Entry(tenant.id, "contact", "con_01NEVERINTHETABLE0000000", None, "Geist", ())])  # extra
    differing = verify("--json")
    assert differing.exit_code == 1
    assert json.loads(differing.output) == {
        tenant.id: {"missing": [obj["id"]], "stale": [altered["id"]], "extra": ["con_01NEVERINTHETABLE0000000"]}
    }
    CliRunner().invoke(cli, ["search", "reindex", "--tenant", tenant.id], catch_exceptions=False)
    assert verify().exit_code == 0


def test_what_is_found_by_a_contacts_name_needs_the_key_to_read_that_contact(tenant: Tenant) -> None:
    """A signatory or an invoice is found by the name of the contact it names: a key that may not read
    that contact (no read:contacts; or, limited to objects, a contact outside its reach) must not
    learn the name through them, neither as a result's name nor by what a query finds."""
    a = tenant.ok("objects.create", {"object": {"name": "Birkenweg 3", "type": "weg"}})["object"]
    signer = tenant.contact(lastName="Unterzeichner")
    signatory = tenant.ok("signatories.create", {"signatory": {"contactId": signer["id"], "role": "managingDirector"}})
    supplier = tenant.contact(lastName="Heizungsbauer")
    invoice = tenant.ok(
        "accounting.inboundinvoices.create",
        {
            "inboundInvoice": {
                "objectId": a["id"],
                "supplierId": supplier["id"],
                "invoiceNumber": "RE-77",
                "invoiceDate": "2024-03-01",
                "dueDate": "2024-03-15",
                "netAmount": "100.00",
                "taxAmount": "19.00",
                "grossAmount": "119.00",
                "taxRate": "19",
            }
        },
    )["inboundInvoice"]
    settled(tenant, "Unterzeichner", signatory["signatory"]["id"])
    signatories_only = tenant.new_key(["read:signatories"])
    assert _search(tenant, "Unterzeichner", signatories_only)["results"] == []
    settled(tenant, "Heizungsbauer", invoice["id"])  # an invoice is found by its supplier's name
    limited = tenant.new_key(["read"], objects=[a["id"]])
    assert invoice["id"] not in _ids(_search(tenant, "Heizungsbauer", limited)), "the supplier is out of reach"
    both = tenant.new_key(["read:signatories", "read:contacts"])
    assert signatory["signatory"]["id"] in _ids(_search(tenant, "Unterzeichner", both))


def test_a_contract_is_found_by_its_parties_names_and_follows_a_rename(tenant: Tenant) -> None:
    """ "Mieter Müller suchen": a lease is found by the names of its parties, named by them, and within
    an object-limited key's reach only where every party is (a party outside would be learnt)."""
    obj = tenant.ok("objects.create", {"object": {"name": "Ulmenhof", "type": "rental"}})["object"]
    unit = tenant.ok("units.create", {"unit": {"objectId": obj["id"], "number": "U-1", "type": "apartment"}})["unit"]
    tenant_party = tenant.contact(firstName="Ottilie", lastName="Mietpartei")
    guarantor = tenant.contact(firstName="Bernd", lastName="Bürgschaft")
    contract = tenant.ok(
        "contracts.create",
        {
            "contract": {
                "unitId": unit["id"],
                "type": "lease",
                "startDate": "2024-01-01",
                "parties": [
                    {"contactId": tenant_party["id"], "role": "tenant"},
                    {"contactId": guarantor["id"], "role": "guarantor"},
                ],
            }
        },
    )["contract"]
    settled(tenant, "Buergschaft", contract["id"])
    found = {r["id"]: r for r in _search(tenant, "Mietpartei", types=["contract"])["results"]}
    assert list(found) == [contract["id"]]
    assert found[contract["id"]]["name"] == "Ottilie Mietpartei, Bernd Bürgschaft"
    assert found[contract["id"]]["objectId"] == obj["id"]
    assert found[contract["id"]]["matched"] == {"field": "contact.lastName", "text": "Mietpartei"}
    tenant.ok("contacts.update", {"contact": {"id": guarantor["id"], "lastName": "Garant"}})
    settled(tenant, "Garant", contract["id"])
    assert not _found(tenant, "Bürgschaft", contract["id"])
    limited = tenant.new_key(["read"], objects=[obj["id"]])
    assert _ids(_search(tenant, "Mietpartei", limited, types=["contract"])) == [contract["id"]]


def test_a_documents_pdf_is_found_by_its_text_with_the_words_around_the_match(api: Any, tenant: Tenant) -> None:
    """The text of a PDF's first pages, read when the file arrives, on the direct path and the bulk
    one; the answer shows the words around the match, never the whole text; a PDF without text (a
    scan) is found by its title only; over MCP a key that omits untrusted text reads no excerpt."""
    import base64

    from tests.uploads import pdf, pdf_saying, post_file, wait_settled

    building = tenant.ok("objects.create", {"object": {"name": "Ahornweg 3", "type": "weg"}})["object"]
    filler = " ".join(f"Zeile{n}" for n in range(200))
    letter = pdf_saying(f"Heizkostenabrechnung 2025. {filler} Der Wärmemengenzähler Nr. 4711 wurde getauscht. {filler}")
    uploaded = tenant.ok(
        "documents.upload",
        {
            "locationId": building["id"],
            "resource": {
                "fileName": "hk.pdf",
                "contentType": "application/pdf",
                "content": base64.b64encode(letter).decode(),
            },
            "document": {"title": "Abrechnung"},
        },
    )["document"]
    scan = tenant.ok(
        "documents.upload",
        {
            "locationId": building["id"],
            "resource": {
                "fileName": "scan.pdf",
                "contentType": "application/pdf",
                "content": base64.b64encode(pdf()).decode(),
            },
            "document": {"title": "Eingescannter Bescheid"},
        },
    )["document"]
    settled(tenant, "Waermemengenzaehler 4711", uploaded["id"])  # folded as typed, words in any order
    (hit,) = [r for r in _search(tenant, "Wärmemengenzähler")["results"] if r["id"] == uploaded["id"]]
    excerpt = hit["matched"]["text"]
    assert hit["matched"]["field"] == "content" and hit["name"] == "Abrechnung", hit
    assert "Wärmemengenzähler" in excerpt and excerpt.startswith("… ") and excerpt.endswith(" …"), excerpt
    assert len(excerpt.split()) <= 24 + 2 and "Heizkostenabrechnung" not in excerpt, excerpt
    settled(tenant, "Bescheid", scan["id"])
    assert _found(tenant, "Abrechnung", uploaded["id"]) and not _found(tenant, "Abrechnung", scan["id"])

    bulk_pdf = pdf_saying("Deckblatt", "Protokoll der Eigentümerversammlung: Beschluss über die Dachsanierung")
    created = tenant.ok(
        "documents.uploads.create",
        {
            "uploads": [
                {
                    "locationId": building["id"],
                    "fileName": "etv.pdf",
                    "contentType": "application/pdf",
                    "size": len(bulk_pdf),
                }
            ]
        },
    )
    (upload,) = created["uploads"]
    assert post_file(upload, bulk_pdf) in (200, 204)
    wait_settled(tenant, created["batch"]["id"])
    settled(tenant, "Dachsanierung", upload["documentId"])  # on the second page

    omitting = tenant.ok(
        "apikeys.create", {"apiKey": {"agentName": "pdf-bot", "scopes": ["read"], "untrustedText": "omit"}}
    )
    with McpSession(api.base, omitting["apiKey"]["key"]) as mcp:
        query = {"query": "Wärmemengenzähler", "limit": 10, "offset": 0}
        answer = mcp.ok("meta.tool.execute", {"name": "search", "arguments": query})
    (withheld,) = [r for r in answer["results"] if r["id"] == uploaded["id"]]
    assert withheld["matched"] == {"field": "content", "text": ""}, withheld


def test_a_deployment_without_an_index_says_so_instead_of_finding_nobody(tenant: Tenant) -> None:
    """PM_ENTITY_SEARCH_ENGINE=off (a stack without an OpenSearch domain): the stream's changes are
    dropped and a search answers 503 naming the reason, never an empty list that reads as "nobody"."""
    before = engine.use_engine(engine.NoEngine())
    assert before is not None  # the module's engine (index_engine), put back below
    try:
        tenant.contact(lastName="Niemand")
        answer = tenant.query("search", {"query": "Niemand", "limit": 10, "offset": 0})
    finally:
        engine.use_engine(before)
    assert answer.status == 503 and "OpenSearch" in answer.body["detail"], answer.body
