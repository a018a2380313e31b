"""Which event types a webhook hears by its areas (issue 51): the read areas of the key that
created it, stored on the webhook (`areas`), and the account's own records (`webhook.*`) only
when that key was an admin key (scopes.hearable_areas). `*` is every type of those areas.

A webhook stored before it had `areas` hears every area but the account's (LEGACY_AREAS): what
it heard before, less the records only an admin key may hear."""

from __future__ import annotations

from collections.abc import Iterable

from chalicelib import error_codes as codes
from chalicelib.entities import ENTITY_TYPES
from chalicelib.errors import Forbidden
from chalicelib.scopes import ACCOUNT_AREA, AREAS, scope_to_hear

LEGACY_AREAS = frozenset(AREAS) - {ACCOUNT_AREA}


def _entity_type(event_type: str) -> str:
    # an event type is <entity type>.<action>, one dot: every split of it finds the same
    return event_type.rsplit(".", 1)[0]  # pragma: no mutate


def area_of(event_type: str) -> str:
    """The area of an event type's entity type (`unit.created`: units)."""
    return ENTITY_TYPES[_entity_type(event_type)].area


def hears_type(areas: frozenset[str] | None, event_type: str) -> bool:
    etype = ENTITY_TYPES.get(_entity_type(event_type))
    return etype is not None and etype.area in (LEGACY_AREAS if areas is None else areas)


def refuse_unheard(events: Iterable[str], areas: frozenset[str]) -> None:
    """403 missing_scope naming the subscribed types outside `areas` and the scopes they need."""
    known = [event for event in events if _entity_type(event) in ENTITY_TYPES]  # the rest: 400 (webhooks._check)
    unheard = [event for event in known if not hears_type(areas, event)]
    if unheard:
        needed = sorted({scope_to_hear(area_of(event)) for event in unheard})
        raise Forbidden(
            f"A webhook hears only what the key that created it may read; it may not subscribe to "
            f"{', '.join(unheard)} (that needs {' and '.join(needed)}).",
            code=codes.MISSING_SCOPE,
            extra={"requiredScopes": needed},
        )
