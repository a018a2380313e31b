"""The few readers ubl.py and cii.py share: an element's text, decimal and date, by ElementTree path."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from decimal import Decimal, InvalidOperation

_BASIC_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})$")


def text(element: ET.Element | None, path: str | None = None, namespaces: dict[str, str] | None = None) -> str | None:
    """The stripped text at `path` below `element` (the element's own without one); None when absent or empty."""
    if element is None:
        return None
    found = element.find(path, namespaces) if path else element
    if found is None or found.text is None:
        return None
    value = found.text.strip()
    return value or None


def attribute(element: ET.Element | None, path: str, name: str, namespaces: dict[str, str]) -> str | None:
    found = element.find(path, namespaces) if element is not None else None
    value = found.get(name) if found is not None else None
    return value.strip() or None if value is not None else None


def decimal(value: str | None) -> Decimal | None:
    """The decimal as written ("100.00" stays 100.00); None when absent or not a number (the
    Schematron reports such a value, the reading does not fail on it)."""
    if value is None:
        return None
    try:
        number = Decimal(value)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def iso_date(value: str | None) -> str | None:
    """A date as YYYY-MM-DD: UBL writes it so, CII's format 102 as YYYYMMDD; anything else as written."""
    if value is None:
        return None
    basic = _BASIC_DATE.match(value)
    return f"{basic.group(1)}-{basic.group(2)}-{basic.group(3)}" if basic else value
