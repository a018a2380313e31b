"""Which text of each entity type the search finds it by, derived from the entity catalogue: every
string field (nested in objects and lists of objects too) whose name is one of SEARCHED, so a new
entity type with a `name`, `title` or address is searched without a line here. The account's own
records (webhooks) are no search's: EXCLUDED."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from chalicelib.entities import ENTITY_TYPES

# The names people call an entity by: names, numbers, titles, addresses, contact channels, file
# names; never free text (notes, descriptions, bodies), which would drown the names.
SEARCHED = frozenset(
    {
        "name",
        "title",
        "firstName",
        "lastName",
        "companyName",
        "number",  # a unit's, an object's; a contact's phone number (phones[].number)
        "street",
        "houseNumber",
        "postalCode",
        "city",
        "address",  # e-mail addresses (emails[].address)
        "phoneNumber",
        "subject",
        "fileName",
        "accountHolder",
        "bankName",
        "label",
        "iban",
        "text",  # a process update's (its title)
    }
)
# The field of a document's PDF text (entity_search/pdf_text.py): no field of the entity, its own
# row's; a result matched by it shows the words around the match (find.py excerpt).
CONTENT = "content"
EXCLUDED = frozenset({"webhook"})  # the account's records, with their URLs: webhooks.list reads them
# The field a result is named by, the first present; a contact by its full name (name_of).
NAMED_BY = ("name", "title", "companyName", "number", "subject", "label", "accountHolder", "fileName", "text", "iban")


@dataclass(frozen=True)
class Field:
    path: tuple[str, ...]  # ("emails", "address"): the list's items' field

    @property
    def name(self) -> str:
        return ".".join(self.path)


def searched_fields(type_name: str) -> tuple[Field, ...]:
    """The fields `type_name` is found by (none: the type is not searched)."""
    return _searched_fields(type_name, len(ENTITY_TYPES))


@cache
def _searched_fields(type_name: str, _declared: int) -> tuple[Field, ...]:
    # keyed by the catalogue's size too: an answer found before every type was declared is not kept
    etype = ENTITY_TYPES.get(type_name)
    if etype is None or type_name in EXCLUDED:
        return ()
    return tuple(_walk(etype.fields, ()))


def searchable_types() -> list[str]:
    return sorted(name for name in ENTITY_TYPES if searched_fields(name) or named_through(name))


# A person's name, which an entity without words of its own (a signatory, an advisor, a
# responsibility, a contract) is found by through the contacts it names.
PERSON_NAME = ("title", "firstName", "lastName", "companyName")


def named_through(type_name: str) -> tuple[str, ...] | None:
    """The path of the reference(s) naming the contacts whose names `type_name` is found by: for a type
    with no searched field of its own, a top-level reference to a contact (("contactId",)) or one in a
    list of objects (a contract's ("parties", "contactId")). None: found by its own fields."""
    etype = ENTITY_TYPES.get(type_name)
    if etype is None or type_name in EXCLUDED or searched_fields(type_name):
        return None
    for name, schema in etype.fields.items():
        if schema.get("x-ref") == "contact":
            return (name,)
        if schema.get("type") == "array":
            listed = (schema.get("items") or {}).get("properties") or {}
            inner = next((sub for sub, item in listed.items() if item.get("x-ref") == "contact"), None)
            if inner:
                return (name, inner)
    return None


def contacts_named(type_name: str, data: dict[str, Any]) -> list[str]:
    """The ids of the contacts an entity found through them names, each once, in its order."""
    path = named_through(type_name)
    return list(dict.fromkeys(values(data, path))) if path else []


def person_texts(contacts: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The contacts' names as the fields of an entity found through them (`contact.lastName`, ...;
    one pair per contact and name field, in the contacts' order)."""
    return [
        (f"contact.{name}", contact[name])
        for contact in contacts
        for name in PERSON_NAME
        if isinstance(contact.get(name), str) and contact[name].strip()
    ]


def names_of_people(contacts: list[dict[str, Any]]) -> str:
    """What an entity found through contacts is called: their names, comma-separated."""
    return ", ".join(name for contact in contacts if (name := name_of("contact", contact)))


def _walk(properties: dict[str, Any], path: tuple[str, ...]) -> list[Field]:
    found: list[Field] = []
    for name, schema in properties.items():
        kind = schema.get("type")
        if kind == "object" and "properties" in schema:
            found.extend(_walk(schema["properties"], (*path, name)))
        elif kind == "array" and (schema.get("items") or {}).get("type") == "object":
            found.extend(_walk(schema["items"].get("properties") or {}, (*path, name)))
        elif kind == "string" and name in SEARCHED and "enum" not in schema and "x-ref" not in schema:
            found.append(Field((*path, name)))
    return found


def values(data: Any, path: tuple[str, ...]) -> list[str]:
    """The strings at `path` in `data` (lists along the way give one each)."""
    if not path:
        return [data] if isinstance(data, str) and data.strip() else []
    if isinstance(data, list):
        return [v for item in data for v in values(item, path)]
    if isinstance(data, dict):
        return values(data.get(path[0]), path[1:])
    return []


def texts(type_name: str, data: dict[str, Any]) -> list[tuple[str, str]]:
    """The (field, text) pairs an entity is found by, in the catalogue's field order."""
    return [(field.name, text) for field in searched_fields(type_name) for text in values(data, field.path)]


def indexed_text(field_name: str, text: str) -> str:
    """What the index reads of a field: the text, a phone number also as its digits alone
    ("+49 30 1234567" is found as "49301234567" and "030 1234567" by its parts)."""
    digits = "".join(c for c in text if c.isdigit())
    return f"{text} {digits}" if "phone" in field_name.lower() and len(digits) > 1 else text


def name_of(type_name: str, data: dict[str, Any]) -> str:
    """What a result is called: a person's first and last name, else the first of NAMED_BY."""
    if type_name == "contact" and not data.get("companyName"):
        full = " ".join(str(data[f]) for f in ("title", "firstName", "lastName") if data.get(f))
        if full:
            return full
    if type_name == "objectAddress":
        street = " ".join(str(data[f]) for f in ("street", "houseNumber") if data.get(f))
        place = " ".join(str(data[f]) for f in ("postalCode", "city") if data.get(f))
        return ", ".join(part for part in (street, place) if part)
    for name in NAMED_BY:
        value = data.get(name)
        if isinstance(value, str) and value.strip():
            return value if len(value) <= 120 else value[:119] + "…"
    return ""
