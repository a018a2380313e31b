"""The scope vocabulary of API keys: read (or read one area), write (or write one area),
destructive, admin. Operations name the scope they need (registry), keys hold scopes (store),
requests are checked against them (auth): all three read the words from here.

Two questions are asked of a key's scopes, and they differ for one word:
- does the key *meet* what an operation needs (`meets`): a query of no area (`info`, `status`)
  needs `read`, which any read scope meets, `read:contacts` included;
- does the key *hold* a scope it would hand on (`holds`: a key created by this key, an
  integration's grant): there `read` is every area, and only `read` holds it."""

from __future__ import annotations

SCOPE_READ = "read"
SCOPE_WRITE = "write"
SCOPE_DESTRUCTIVE = "destructive"
SCOPE_ADMIN = "admin"

AREAS = (
    "contacts", "contracts", "units", "objects", "documents", "processes", "responsibilities",
    "advisors", "signatories", "callrecords", "accounting", "aliases", "webhooks", "uvi", "exports",
)  # fmt: skip

# The area-wide word each per-area scope falls under: `read:units` under `read`.
_WIDE = (SCOPE_READ, SCOPE_WRITE)

ALL_SCOPES = (SCOPE_READ, SCOPE_WRITE, SCOPE_DESTRUCTIVE, SCOPE_ADMIN)
AREA_SCOPES = tuple(f"{wide}:{area}" for wide in _WIDE for area in AREAS)
KEY_SCOPES = ALL_SCOPES + AREA_SCOPES


def area_scope(wide: str, area: str) -> str:
    """`read:<area>` or `write:<area>`, for an area of AREAS."""
    if wide not in _WIDE or area not in AREAS:
        raise ValueError(f"no scope {wide}:{area}")
    return f"{wide}:{area}"


def holds(scopes: frozenset[str], scope: str) -> bool:
    """The key holds `scope`: itself, or `read`/`write` for one of their areas."""
    wide, _, area = scope.partition(":")
    return scope in scopes or (bool(area) and wide in _WIDE and wide in scopes)


def meets(scopes: frozenset[str], needed: str) -> bool:
    """The key may run an operation that needs `needed`. `read` alone (the queries of no
    area) is met by any read scope; everything else by holding it."""
    if needed == SCOPE_READ:
        return any(scope == SCOPE_READ or scope.startswith(SCOPE_READ + ":") for scope in scopes)
    return holds(scopes, needed)


def readable_areas(scopes: frozenset[str]) -> frozenset[str]:
    """The areas whose queries the key may run."""
    if SCOPE_READ in scopes:
        return frozenset(AREAS)
    return frozenset(area for area in AREAS if f"{SCOPE_READ}:{area}" in scopes)


# The area whose records are the account's own (webhooks with their URLs): their events are heard
# by an admin key's webhook only, though `read:webhooks` lists them.
ACCOUNT_AREA = "webhooks"


def hearable_areas(scopes: frozenset[str]) -> frozenset[str]:
    """The areas whose events a webhook made by a key of these scopes hears: those it reads,
    the account's own records only with `admin`."""
    areas = readable_areas(scopes)
    return areas if SCOPE_ADMIN in scopes else areas - {ACCOUNT_AREA}


def scope_to_hear(area: str) -> str:
    """The scope a key lacks to hear an area's events."""
    return SCOPE_ADMIN if area == ACCOUNT_AREA else area_scope(SCOPE_READ, area)
