"""Every field of every entity type has a label in German and English, declared beside its schema
(schemas.labelled in the resource module): the console's diffs and data pages show it, never the
API's field name."""

from __future__ import annotations

from typing import Any

from chalicelib import resources
from chalicelib.entities import ENTITY_TYPES
from chalicelib.schemas import ENUM_CODES, ENUM_LABELS, LABEL, value_label, value_text


def _unlabelled(fields: dict[str, Any], path: str) -> list[str]:
    missing = []
    for name, schema in fields.items():
        label = schema.get(LABEL)
        if not (isinstance(label, dict) and str(label.get("de", "")).strip() and str(label.get("en", "")).strip()):
            missing.append(f"{path}{name}")
        if schema.get("type") == "object":
            missing += _unlabelled(schema.get("properties", {}), f"{path}{name}.")
        items = schema.get("items") or {}
        if schema.get("type") == "array" and items.get("type") == "object":
            missing += _unlabelled(items.get("properties", {}), f"{path}{name}[].")
    return missing


def test_every_field_of_every_entity_type_has_a_german_and_an_english_label() -> None:
    resources.load_all()
    assert ENTITY_TYPES
    missing = [found for etype in ENTITY_TYPES.values() for found in _unlabelled(etype.fields, f"{etype.name}.")]
    assert missing == []


def test_the_show_queries_answer_the_labelled_fields() -> None:
    """The registry's result schemas are built from the same fields: the label travels with them."""
    from chalicelib import registry

    resources.load_all()
    contact = registry.REGISTRY["contacts.show"].result["properties"]["contact"]["properties"]  # type: ignore[index]
    assert contact["lastName"][LABEL] == {"de": "Nachname", "en": "Last name"}


def test_the_docs_show_each_fields_german_and_english_label() -> None:
    """An operation's Markdown page (docs.render) names each labelled field in both languages, in
    the arguments' and the result's tables; a field without a label (an operation's own
    argument) leaves the column empty."""
    from chalicelib import docs, registry

    resources.load_all()
    created = docs.render(registry.REGISTRY["contacts.create"])
    assert "| name | label | type | required | description |" in created
    assert "| `contact.lastName` | Nachname / Last name | string |" in created
    shown = docs.render(registry.REGISTRY["contacts.show"])
    assert "| field | label | type | required | description |" in shown
    assert "| `contact.lastName` | Nachname / Last name |" in shown
    assert "| `contact` |  | " in docs.render(registry.REGISTRY["contacts.delete"])


# --- words for enum values ----------------------------------------------------------------

# The enums whose values are codes people read as they are (schemas.enum(..., codes=True)): a new
# one is a decision, made here, not a missing translation.
CODES = {
    "inboundInvoice.taxRate",
    "inboundInvoice.currency",
    "contract.rent.currency",
    "object.energyCertificate.efficiencyClass",
}
# German words spelt like their value (case aside), rightly: the word is the same in German.
SAME_IN_GERMAN = {"normal", "fax"}


def _enums(schema: dict[str, Any], path: str) -> list[tuple[str, dict[str, Any]]]:
    """(path, schema) of every enum under an entity type's field, in objects and arrays too."""
    found = [(path, schema)] if "enum" in schema else []
    if schema.get("type") == "object":
        for name, sub in schema.get("properties", {}).items():
            found += _enums(sub, f"{path}.{name}")
    if schema.get("type") == "array":
        found += _enums(schema.get("items") or {}, path)
    return found


def _entity_enums() -> list[tuple[str, dict[str, Any]]]:
    resources.load_all()
    return [
        found
        for etype in ENTITY_TYPES.values()
        for name, schema in etype.fields.items()
        for found in _enums(schema, f"{etype.name}.{name}")
    ]


def test_every_enum_value_of_every_entity_field_has_german_and_english_words_unless_its_enum_is_codes() -> None:
    enums = _entity_enums()
    assert len(enums) > 30
    missing = []
    for path, schema in enums:
        if path in CODES:
            assert schema.get(ENUM_CODES) is True and ENUM_LABELS not in schema, path
            continue
        assert ENUM_CODES not in schema, f"{path} is marked as codes: give its values words, or add it to CODES"
        words = schema.get(ENUM_LABELS) or {}
        assert set(words) == set(schema["enum"]), path
        missing += [
            f"{path}={value}"
            for value in schema["enum"]
            if not all(str(words[value].get(lang, "")).strip() for lang in ("de", "en"))
        ]
    assert missing == []
    assert {path for path, schema in enums if schema.get(ENUM_CODES)} == CODES


def test_no_german_word_is_merely_the_api_value() -> None:
    """`inProgress` reads "In Bearbeitung", not "inProgress": a German word spelt like its value is
    an untranslated one, unless the word is the same in German (SAME_IN_GERMAN)."""
    copied = [
        f"{path}={value}"
        for path, schema in _entity_enums()
        for value, words in (schema.get(ENUM_LABELS) or {}).items()
        if words["de"].casefold() == value.casefold() and value not in SAME_IN_GERMAN
    ]
    assert copied == []


def test_value_label_reads_the_words_and_a_code_stays_as_it_is() -> None:
    resources.load_all()
    contact = ENTITY_TYPES["contact"].fields
    assert value_label(contact["personType"], "natural", "de") == "Natürliche Person"
    assert value_label(contact["personType"], "natural", "en") == "Natural person"
    role = ENTITY_TYPES["contract"].fields["parties"]["items"]["properties"]["role"]
    assert value_text(role, "coTenant", "de") == "Mitmieter"
    currency = ENTITY_TYPES["contract"].fields["rent"]["properties"]["currency"]
    assert value_label(currency, "EUR", "de") is None and value_text(currency, "EUR", "de") == "EUR"
    assert value_text(contact["personType"], "unheardOf", "en") == "unheardOf"  # an old value, as it is


def test_the_docs_show_each_enum_value_with_its_words() -> None:
    from chalicelib import docs, registry

    resources.load_all()
    created = docs.render(registry.REGISTRY["contacts.create"])
    assert "`natural` (Natürliche Person / Natural person) \\| `legal` (Juristische Person / Legal person)" in created
    assert "`fax` (Fax) \\|" in created  # the same word in both languages: once
    units = docs.render(registry.REGISTRY["units.create"])
    assert "| `unit.type` | Einheitsart / Unit type | `apartment` (Wohnung / Apartment) \\|" in units
    invoices = docs.render(registry.REGISTRY["accounting.inboundinvoices.create"])
    assert "| `inboundInvoice.currency` | Währung / Currency | `EUR` |" in invoices  # a code: as it is


def test_specific_labels_say_what_a_generic_field_is() -> None:
    """`type`, `status`, `role`, `category` say whose: "Einheitsart", not "Art" on every entity."""
    resources.load_all()
    generic = {"Art", "Type", "Status", "Rolle", "Role", "Kategorie", "Category", "Kind", "Nummer", "Number"}
    vague = [
        f"{path}: {label}"
        for etype in ENTITY_TYPES.values()
        for path, label in _labels(etype.fields, f"{etype.name}.")
        if label in generic
    ]
    assert vague == []


def _labels(fields: dict[str, Any], path: str) -> list[tuple[str, str]]:
    found = []
    for name, schema in fields.items():
        label = schema.get(LABEL) or {}
        found += [(f"{path}{name}", str(label.get(lang))) for lang in ("de", "en")]
        if schema.get("type") == "object":
            found += _labels(schema.get("properties", {}), f"{path}{name}.")
        items = schema.get("items") or {}
        if schema.get("type") == "array" and items.get("type") == "object":
            found += _labels(items.get("properties", {}), f"{path}{name}[].")
    return found
