"""Who wrote an entity's text, and what a key that wants no other party's text reads instead.

Text one party writes reaches another party's agent: a vendor's integration may put words meant
for the owner's assistant into a contact's notes. So every entity says who last changed it
(`lastChangedBy`: agent, integration, channel; never a key id or an e-mail address), and each
text field (entities.EntityType.text_fields) keeps, in the item's `textBy`, the author of the
change that last wrote it: a later change of another field (the tenant's agent correcting a
phone number, a restore) does not make the vendor's note the tenant's. An entity stored before
`textBy` existed counts its last change as the author of all its text.

A key created with `untrustedText: "omit"` reads over MCP, in place of each free-text string
(schemas.is_free_text) another party wrote, a placeholder that names the author (GitHub's MCP
lockdown mode is the model). Another party: any author but a key of the caller's own side (the
tenant's own keys and people for the tenant's keys, the same integration's keys for an
integration's), so the operator's and keyless writes count as another party's too."""

from __future__ import annotations

import re
from typing import Any

from chalicelib.context import CallContext
from chalicelib.entities import EntityType
from chalicelib.schemas import EMAIL_PATTERN, replace_free_text

Author = dict[str, Any]  # the parts of a CallContext.stamp() that say who wrote (keyId stays internal)

_AUTHOR_PARTS = ("keyId", "agentName", "integrationId", "channel")
_AN_ADDRESS = re.compile(EMAIL_PATTERN)

UNTRUSTED_TEXT = ("show", "omit")  # the values of a key's `untrustedText`
OMIT = "omit"


def author_of(stamp: dict[str, Any]) -> Author:
    return {part: stamp.get(part) for part in _AUTHOR_PARTS}


def last_changed_by(stamp: dict[str, Any]) -> dict[str, Any]:
    """The `lastChangedBy` of an entity's wire form: who, from which integration, through which
    channel. A console person without a name is stamped with their e-mail address: withheld."""
    name = stamp.get("agentName")
    shown = None if not isinstance(name, str) or _AN_ADDRESS.match(name) else name
    return {"agentName": shown, "integrationId": stamp.get("integrationId"), "channel": stamp.get("channel")}


def text_authors(etype: EntityType, text_by: dict[str, Any], changed_by: dict[str, Any]) -> dict[str, Author]:
    """The author of each text field of a stored entity (its last change for one stored before
    the store kept them)."""
    return {name: author_of(text_by.get(name) or changed_by) for name in etype.text_fields}


def after_change(
    etype: EntityType, before: dict[str, Any], after: dict[str, Any], known: dict[str, Author], stamp: dict[str, Any]
) -> dict[str, Author]:
    """The text authors once `stamp`'s change turned the fields `before` into `after`: a field
    it wrote (new or different) is its; one it left as it was keeps its author."""
    authors = {}
    for name in etype.text_fields:
        if name not in after:
            continue
        unchanged = name in before and before[name] == after[name] and name in known
        authors[name] = known[name] if unchanged else author_of(stamp)
    return authors


def withholds(ctx: CallContext) -> bool:
    """Whether this call reads other parties' text as placeholders: a key asking for it, over MCP."""
    return ctx.untrusted_text == OMIT and ctx.channel == "mcp"


def own_side(ctx: CallContext, author: Author) -> bool:
    """Written with a key (or by a person in the console) of the caller's own side."""
    return bool(author.get("keyId")) and author.get("integrationId") == ctx.integration_id


def placeholder(author: Author) -> str:
    name = last_changed_by(author)["agentName"]
    who = f"agent {name!r}" if name else "an unnamed author"
    integration = author.get("integrationId")
    side = f"of integration {integration}" if integration else "of the account's own keys and people"
    if not author.get("keyId"):
        side = "without a key"
    return f"[text omitted: written by {who} {side} via {author.get('channel') or 'an unknown channel'}]"


def withhold(ctx: CallContext, etype: EntityType, data: dict[str, Any], authors: dict[str, Author]) -> dict[str, Any]:
    """`data` with the free text of other parties' fields replaced by placeholders naming them."""
    shown = dict(data)
    for name, author in authors.items():
        if name in shown and not own_side(ctx, author):
            shown[name] = replace_free_text(etype.fields[name], shown[name], placeholder(author))
    return shown
