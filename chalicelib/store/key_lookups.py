"""The key lookup item: how a request finds its tenant from its API key, in one GetItem.

  lookup   PK keyhash#<sha256 of the secret>   SK "lookup"   (the one tenant-less item)

It holds a copy of what authentication needs (KeyFacts); store/keys.py writes it together with
the key's record and marks it disabled with the record. auth.py reads it."""

from __future__ import annotations

import hmac
from typing import Required, TypedDict, cast

from chalicelib.store.model import Item

LOOKUP_SK = "lookup"


class KeyFacts(TypedDict, total=False):
    """The lookup item's `data` map (unset fields are left out)."""

    tenantId: Required[str]
    keyId: Required[str]
    agentName: Required[str]
    scopes: Required[list[str]]
    disabled: Required[bool]
    integrationId: str  # the key of an integration
    personId: str  # a person-bound key's contact
    expiresAt: str
    untrustedText: str  # "omit": other parties' free text reaches it over MCP as placeholders
    objects: list[str]  # an object-limited key's object ids (absent: every object)
    oauthGrantId: str  # an OAuth access token's grant
    audience: str  # an OAuth access token's face (mcp or rest): accepted there only


def lookup_pk(hashed: str) -> str:
    return f"keyhash#{hashed}"


def key_facts(hashed: str) -> KeyFacts | None:
    """The facts of the key whose secret hashes to `hashed`; None for an unknown key."""
    try:
        item = Item.get(lookup_pk(hashed), LOOKUP_SK)
    except Item.DoesNotExist:
        return None
    # The lookup is by hash already; comparing again in constant time keeps the check
    # independent of how the table matched the key.
    if not hmac.compare_digest(item.pk, lookup_pk(hashed)):
        return None
    return cast(KeyFacts, item.data_dict())
