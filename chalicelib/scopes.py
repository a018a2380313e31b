"""The scope vocabulary of API keys: read, write (or write to one area), destructive, admin.
Operations name the scope they need (registry), keys hold scopes (store), requests are checked
against them (auth): all three read the words from here."""

from __future__ import annotations

SCOPE_READ = "read"
SCOPE_WRITE = "write"
SCOPE_DESTRUCTIVE = "destructive"
SCOPE_ADMIN = "admin"

AREAS = (
    "contacts", "contracts", "units", "objects", "documents", "processes", "responsibilities",
    "advisors", "signatories", "callrecords", "accounting", "aliases", "webhooks", "uvi",
)  # fmt: skip

ALL_SCOPES = (SCOPE_READ, SCOPE_WRITE, SCOPE_DESTRUCTIVE, SCOPE_ADMIN)
KEY_SCOPES = ALL_SCOPES + tuple(f"write:{area}" for area in AREAS)


def has_scope(scopes: frozenset[str], needed: str) -> bool:
    """`write` covers every `write:<area>`; every other scope covers only itself."""
    if needed.startswith("write:"):
        return SCOPE_WRITE in scopes or needed in scopes
    return needed in scopes
