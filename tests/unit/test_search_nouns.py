"""The entity types a request names, read from its nouns (chalicelib/search/nouns.py): the rules
the tool search's reordering stands on, each on a request of its own wording."""

from __future__ import annotations

import pytest

from chalicelib.search import nouns


@pytest.mark.parametrize(
    ("request_", "resource"),
    [
        # English writes as words what German writes as one compound: the phrase names the thing
        ("rename the object group of the northern portfolio", "objectgroups"),
        ("the garage parking spaces of Lindenhof", "units"),
        # a compound that is a term is that term, not the terms inside it
        ("neue Eigentümergemeinschaft am Markt anlegen", "objects"),
        # the key a request is made with is what `info` describes
        ("is my API key limited to one object", "info"),
    ],
)
def test_the_request_names_the_resource_first(request_: str, resource: str) -> None:
    named = nouns.entities(request_)
    assert named[resource] == 1.0
    assert sorted(named, key=lambda r: -named[r])[0] == resource


def test_a_compound_term_does_not_name_what_its_parts_name() -> None:
    assert set(nouns.entities("neue Eigentümergemeinschaft am Markt anlegen")) == {"objects"}


def test_a_phrase_in_the_plural_names_many() -> None:
    assert nouns.names_many("the parking spaces of Lindenhof")
    assert not nouns.names_many("the parking space of Lindenhof")


def test_a_compound_that_begins_with_a_cue_is_a_noun_and_the_cue_inflected_is_none() -> None:
    assert "processes.updates" in nouns.entities("den Verlaufseintrag vom Montag")
    assert nouns.entities("hochladen") == {}


def test_a_resource_s_hyphenated_noun_names_it() -> None:
    assert sorted(nouns.entities("den API-Schlüssel des Buchhaltungsbots")) == ["apikeys"]


def test_a_resource_s_english_name_is_its_singular() -> None:
    assert sorted(nouns.entities("the last delivery of the CRM hook")) == ["webhooks.deliveries"]


def test_the_unreliable_terms_listed_are_those_the_example_requests_show() -> None:
    # listed in nouns.py so that no search reads every example request first; due again after the
    # example requests, the thesaurus or the resources' wording change
    found = nouns.unreliable_terms()
    assert found == nouns.UNRELIABLE_TERMS, f"set UNRELIABLE_TERMS to {sorted(found)}"


@pytest.mark.parametrize(
    ("request_", "resource"),
    [
        ("the owner's lease for flat 4", "contracts"),  # a possessor qualifies
        ("show the caretaker assignment at Parkallee 3", "responsibilities"),  # the last of a row of nouns
        ("recover the deleted post", "posts"),  # an English word is no compound ("cover")
    ],
)
def test_the_noun_a_request_asks_for_is_the_one_qualified(request_: str, resource: str) -> None:
    named = nouns.entities(request_)
    assert [r for r, share in named.items() if share == 1.0] == [resource]
