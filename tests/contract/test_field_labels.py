"""Every field of every entity type has a label in German and English, declared beside its schema
(schemas.labelled in the resource module): the console's diffs and data pages show it, never the
API's field name."""

from __future__ import annotations

from typing import Any

from chalicelib import resources
from chalicelib.entities import ENTITY_TYPES
from chalicelib.schemas import LABEL


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
