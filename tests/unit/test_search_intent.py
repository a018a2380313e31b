"""What a request asks to do, read from its verbs (chalicelib/search/intent.py), and what each tool
serves: the rules the tool search's reordering stands on, each on a request of its own wording."""

from __future__ import annotations

import pytest

from chalicelib.search import intent


@pytest.mark.parametrize(
    ("request_", "asked"),
    [
        # a verb's cue inside a longer verb is that other verb: wieder-her-stellen, de-aktivieren
        ("den gelöschten Aushang wiederherstellen", {"restore"}),
        ("Zugang des Hausmeisters deaktivieren", {"disable"}),
        # a compound ending in a read's noun reads: "Aufrufstatistik", "Kontoübersicht"
        ("Aufrufstatistik des Schlüssels", {"usage"}),
        # a nominalised verb beside a verb names a thing; alone, it is the action asked for
        ("die Zuordnung des Kautionskontos löschen", {"delete"}),
        ("Löschung der Telefonnotiz vom Montag", {"delete"}),
        # the person an action is done to asks for no action
        ("assignee of the heating ticket", set()),
        # the upserts' requests: many at once, by the caller's own ids
        # (a phrase's words are the phrase's alone: "create or update" asks for neither the create nor the update)
        ("create or update our tenants by their CRM numbers", {"bulk"}),
        ("Kontakte aus dem ERP per Fremdschlüssel abgleichen", {"bulk"}),
        ("rotate the signing secret", {"rotate"}),
        ("resend every event since the receiver was down", {"retry", "recover"}),
        ("send the failed delivery again", {"retry"}),
        ("set up a new bank account for the HOA", {"create"}),
        # a deletion named with a reason to undo it asks for the thing back
        ("die Löschung der Gruppe Sanierung aufheben", {"restore"}),
        ("Vertragslöschung rückgängig machen", {"restore"}),
        # a negated verb asks for nothing; the negation ends with its clause
        ("Rechnung stornieren – Status auf storniert setzen, nicht löschen", {"update"}),
        ("do not delete it, just archive it", {"update"}),
        # "wie finde ich heraus" asks a question, not for a search
        ("wie finde ich heraus, wem das Konto gehört", set()),
        ("pause the webhook", {"update"}),
    ],
)
def test_intents_of_a_request(request_: str, asked: set[str]) -> None:
    assert intent.intents(request_) == asked


def test_an_upsert_is_the_tool_for_many_by_own_ids_and_only_partly_for_one_create_or_change() -> None:
    assert intent.fits("contacts.upsert", {"bulk"}) == 1.0
    assert intent.fits("contacts.upsert", {"create"}) == 0.5
    assert intent.fits("contacts.create", {"create"}) == 1.0
    assert intent.fits("contacts.upsert", {"delete"}) == 0.0


def test_a_tool_whose_action_is_no_read_is_not_served_as_a_list() -> None:
    assert intent.tool_intents("webhooks.secret.rotate") >= {"rotate"}
    assert "list" not in intent.tool_intents("webhooks.secret.rotate")
    assert intent.tool_intents("webhooks.deliveries.recover") >= {"retry", "recover"}
    assert intent.tool_intents("apikeys.create") >= {"create", "rotate"}


@pytest.mark.parametrize(
    "request_",
    [
        "notify our receiver whenever a lease changes",  # a verb's third person describes
        "the updates of the heating case",  # a noun's plural
    ],
)
def test_a_cue_in_the_third_person_or_plural_asks_for_no_action(request_: str) -> None:
    assert intent.intents(request_) & {"create", "update", "delete", "restore"} == set()


def test_undoing_a_deletion_asks_for_the_thing_back_and_a_download_is_a_read() -> None:
    assert intent.intents("Löschen der Handwerkerrechnung rückgängig machen") == {"restore"}
    assert intent.intents("wo finde ich die Mailadresse der Eigentümerin") == set()
    assert intent.intents("das Protokoll der ETV herunterladen") == {"show"}
