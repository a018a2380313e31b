"""What a request asks to do, read from its verbs in English and German: the operation's
intent (create, change, delete, restore, show, list, ...), and the intents each tool serves.
The entity types a request names, from its nouns, are in nouns.py.

The ranking above the backends (chalicelib/search/rerank.py) uses both: a tool whose action
the request asks for, and whose resource it names, moves up. Words are compared folded
(lowercase, umlauts as ae/oe/ue, ß as ss) and by prefix, which covers German inflection
("anlegen", "anlegt") without a stemmer."""

from __future__ import annotations

import re

from chalicelib.search import gloss
from chalicelib.search.glossary import words

# Intent -> cue stems (folded). A query word matches a stem when it starts with it and what
# follows is not a participle's or third person's ending ("anlegen", "anlege", "add", not
# "angelegt", "erfasst", "created", "adds": "the contact created twice" asks to delete, not to create);
# a stem with a space matches those words in a row ("set up", "bring back").
CUES: dict[str, tuple[str, ...]] = {
    "create": (
        "add",
        "create",
        "new",
        "register",
        "record a",
        "record an",
        "record the",
        "record that",
        "set up",
        "enter",
        "log a",
        "log an",
        "log the",
        "log that",
        "capture",
        "onboard",
        "publish",
        "put up",
        "insert",
        "open a",
        "open an",
        "file a",
        "file an",
        "take on",
        "note down",
        "start a",
        "anleg",
        "erfass",
        "eintrage",
        "trag ",
        "hinterleg",
        "hinzufueg",
        "neu",
        "aufnehm",
        "notier",
        "erstell",
        "registrier",
        "veroeffentlich",
        "aushaeng",
        "einricht",
        "eroeffn",
        "anlage",
        "vermerk",
    ),
    "update": (
        "change",
        "edit",
        "update",
        "fix",
        "correct",
        "rename",
        "modify",
        "adjust",
        "amend",
        "increase",
        "raise",
        "lower",
        "reduce",
        "extend",
        "shorten",
        "mark",
        "archive",
        "close",
        "reopen",
        "set ",
        "move",
        "replace",
        "switch",
        "complete",
        "finish",
        "aender",
        "korrigier",
        "aktualisier",
        "umbenenn",
        "bearbeit",
        "anpass",
        "erhoeh",
        "senk",
        "verlaenger",
        "befrist",
        "umstell",
        "ergaenz",
        "archivier",
        "abschliess",
        "schliess",
        "setz",
        "verschieb",
        "ersetz",
        "berichtig",
        "umzieh",
        "austausch",
        "tausch",
        "markier",
        "aktivier",
        "freischalt",
        "enable",
        "activate",
        "pause",
        "pausier",
        "resume",
        "unpause",
    ),
    "delete": (
        "delete",
        "remove",
        "drop",
        "erase",
        "get rid",
        "discard",
        "loesch",
        "entfern",
        "streich",
        "rausnehm",
        "weg damit",
    ),
    "restore": (
        "restore",
        "undelete",
        "bring back",
        "bring it back",
        "recover",
        "reinstate",
        "revive",
        "come back",
        "undo the delet",
        "undo delet",
        "wiederherstell",
        "wieder herstell",
        "zurueckhol",
        "zurueck hol",
        "wiederhol",
        "reaktivier",
        "wieder da",
        "wieder rein",
        "zurueckbring",
    ),
    "show": (
        "show",
        "display",
        "look up",
        "lookup",
        "view",
        "detail",
        "see ",
        "read",
        "check",
        "what is",
        "what's",
        "get ",
        "fetch",
        "tell me",
        "zeig",
        "anzeig",
        "nachseh",
        "nachles",
        "abruf",
        "anseh",
        "einseh",
        "oeffn",
        "was steht",
        "wie lautet",
        "aufrufen",
        "ansicht",
    ),
    # "which", "welche", "who" ask a question, of one thing or of many: the noun's number says which
    # (rerank.py: a request without a verb lists when it names a plural)
    "list": (
        "list",
        "all ",
        "overview",
        "every",
        "everything",
        "how many",
        "find",
        "search",
        "what are",
        "alle",
        "alles",
        "auflist",
        "liste",
        "uebersicht",
        "verlauf",
        "saemtlich",
        "wie viele",
        "such",
        "finde",
        "gibt es",
    ),
    "merge": ("merge", "dedupe", "de-dupe", "combine", "consolidate", "zusammenfuehr", "dublett", "zusammenleg"),
    "assign": ("assign", "appoint", "elect", "map", "bestell", "zuweis", "zuordn", "waehl", "beruf", "einsetz"),
    "revoke": (
        "revoke",
        "dismiss",
        "step down",
        "steps down",
        "abberuf",
        "entzieh",
        "abwaehl",
        "ausscheid",
        "scheidet",
    ),
    "upload": ("upload", "import", "hochlad", "lade", "laden", "uebernehm"),
    "revert": ("revert", "undo", "roll back", "rollback", "rueckgaengig", "zuruecknehm", "zuruecksetz", "zurueckdreh"),
    "audit": (
        "who changed",
        "who modified",
        "who edited",
        "who deleted",
        "who removed",
        "who created",
        "who did",
        "changed by",
        "history",
        "audit",
        "wer hat",
        "wer war",
        "historie",
        "aenderungsprotokoll",
        "protokoll der aenderungen",
        "what did the agent",
        "was hat der agent",
        "what has the agent",
    ),
    "test": ("test", "ping", "probe"),
    "retry": ("resend", "retry", "send again", "again", "redeliver", "erneut", "nochmal", "noch einmal"),
    # every event a receiver missed while it was down, sent again (webhooks.deliveries.recover)
    "recover": (
        "missed",
        "catch up",
        "replay",
        "was down",
        "downtime",
        "verpasst",
        "nachhol",
        "nachliefer",
        "ausgefallen",
    ),
    # many at once by the caller's own ids (the upserts): a sync, an import, "create or update"
    "bulk": (
        "create or update",
        "add or update",
        "create or change",
        "or update",
        "bulk",
        "batch",
        "sync",
        "synchronis",
        "synchroniz",
        "import",
        "migrat",
        "keyed by",
        "by our",
        "our own id",
        "our ids",
        "oder aktualisier",
        "oder aender",
        "massen",
        "synchronisier",
        "abgleich",
        "abgleichen",
        "importier",
        "migrier",
        "per fremdschluessel",
        "eigenen id",
        "unseren id",
        "in einem rutsch",
    ),
    # a new secret or key in place of the old (webhooks.secret.rotate; an API key's: a new key, the old disabled)
    "rotate": ("rotat", "rotier"),
    "disable": (
        "disable",
        "deactivate",
        "block",
        "switch off",
        "turn off",
        "deaktivier",
        "sperr",
        "abschalt",
        "stilleg",
    ),
    "generate": ("generate", "erzeug", "generier", "vergeb"),
    # finding a thing by what people call it (the `search` query): a name, an address, a number
    "search": (
        "search",
        "look up",
        "find the",
        "find a",
        "named",
        "called",
        "which building is",
        "which object is",
        "such",
        "finde",
        "namens",
        "heisst",
        "wo ist",
        "welches gebaeude",
    ),
    # counting a key's calls (apikeys.usage)
    "usage": (
        "usage",
        "how many calls",
        "how many requests",
        "per day",
        "each day",
        "statistic",
        "traffic",
        "nutzung",
        "statistik",
        "wie viele aufrufe",
        "wie viele anfragen",
        "pro tag",
        "volumen",
        "verbrauch",
    ),
}

# The intents a tool serves, by the last segment of its name (named queries: by name).
_ACTION_INTENTS: dict[str, frozenset[str]] = {
    "create": frozenset({"create"}),
    "update": frozenset({"update"}),
    "delete": frozenset({"delete"}),
    "restore": frozenset({"restore"}),
    "show": frozenset({"show"}),
    "detail": frozenset({"show"}),
    "list": frozenset({"list"}),
    "listforobject": frozenset({"list"}),
    "merge": frozenset({"merge"}),
    "assign": frozenset({"assign", "create"}),
    "revoke": frozenset({"revoke", "delete"}),
    "upload": frozenset({"upload", "create"}),
    "upsert": frozenset({"bulk"}),
    "resolve": frozenset({"show"}),
    "revert": frozenset({"revert", "restore", "audit"}),
    "retry": frozenset({"retry"}),
    "recover": frozenset({"retry", "recover"}),
    "rotate": frozenset({"rotate", "update"}),
    "test": frozenset({"test"}),
    "disable": frozenset({"disable"}),
    "generatereference": frozenset({"generate", "create"}),
    "fordate": frozenset({"show"}),
    "progress": frozenset({"show"}),
    "spec": frozenset({"show"}),
    "eventTypes": frozenset({"list"}),
    "typemappings": frozenset({"list"}),
    "search": frozenset({"search"}),
    "usage": frozenset({"usage"}),
}
# What a tool also does, though another tool is the one for it: an upsert creates and updates, but a
# request to create or change one thing is the create's or the update's (half the bonus, rerank.py)
_PARTLY: dict[str, frozenset[str]] = {"upsert": frozenset({"create", "update"})}
# Tools whose resource has no tool of its own for an intent they serve
_ALSO: dict[str, frozenset[str]] = {
    "aliases.upsert": frozenset({"assign"}),  # maps aliases to entities
    "documents.uploads.create": frozenset({"bulk", "upload"}),  # many documents at once
}
# An API key is rotated by creating its successor and disabling it
# (apikeys.create: "a second exists only while rotating")
_ROTATES = ("apikeys.create", "apikeys.disable")
_SHOWS_ONE = ("tenant", "info", "status")  # named queries that show one thing; other bare names list
_AUDIT = ("audit.list", "audit.show")
# "I deleted it by mistake, bring it back": a delete in the past and a reason to undo it
_DELETED = ("deleted", "removed", "geloescht", "entfernt", "weggeloescht", "revoked", "abberufen")
_BY_MISTAKE = (
    "mistake",
    "accident",
    "back",
    "versehen",
    "wieder",
    "zurueck",
    "irrtum",
    "faelschlich",
    "error",
    "wrongly",
    "irrtuemlich",
)
_PARTICIPLE = re.compile(r"(t|te|ten|tes|ter|d|ed)$")
MAX_ENDING = 3
LIST_HEADS = ("liste", "listen", "uebersicht", "verzeichnis")
_READS = frozenset({"show", "list"})


def _action(name: str) -> str:
    resource = gloss.resource_of(name)
    return name[len(resource) :].lstrip(".").split(".")[0] if name != resource else ""


def fits(name: str, asked: set[str]) -> float:
    """How far the tool serves what the request asks: 1 when it is the tool for an intent asked,
    0.5 when it also does what is asked (an upsert asked to create one thing), else 0."""
    if tool_intents(name) & asked:
        return 1.0
    return 0.5 if _PARTLY.get(_action(name), frozenset()) & asked else 0.0


def tool_intents(name: str) -> frozenset[str]:
    return _own_intents(name) | _ALSO.get(name, frozenset())


def _own_intents(name: str) -> frozenset[str]:
    action = _action(name)
    if name in _AUDIT:
        return frozenset({"audit", "list" if name == "audit.list" else "show"})
    if name in _ROTATES:
        return _ACTION_INTENTS[action] | {"rotate"}
    if action in _ACTION_INTENTS:
        return _ACTION_INTENTS[action]
    last = name.split(".")[-1]
    if last in _ACTION_INTENTS:
        return _ACTION_INTENTS[last]
    return frozenset({"show"}) if name in _SHOWS_ONE else frozenset({"list"})


VERB, NOMINAL = "verb", "nominal"


def _cued(intent: str, stem: str, query_words: list[str], text: str) -> str | None:
    """How the query asks for the intent by this cue: as a verb (or a phrase), as a nominalised
    verb ("Löschung"), or not at all."""
    if " " in stem.strip():
        return VERB if f" {stem}" in text else None
    stem = stem.strip()
    kinds = {_inflects(word, stem, compound=intent in _NOUN_HEADS) for word in query_words} - {None}
    return VERB if VERB in kinds else (NOMINAL if kinds else None)


_COMPOUND_TAIL = 7  # a cue this long may also end a German compound ("Aufrufstatistik", "Schlüsselnutzung")
# The intents whose cues are nouns that may end a compound: what is read ("-statistik", "-historie",
# "-übersicht", "-ansicht"). A verb's cue inside a longer word is another verb, not this one:
# "wiederherstellen" does not create (erstell), "deaktivieren" does not update (aktivier).
_NOUN_HEADS = frozenset({"usage", "audit", "list", "show"})
# Endings that make a verb's stem a noun: the action ("Löschung", "Zuordnung", "Änderung"), or the
# person it is done to ("assignee", "employee"), which asks for no action at all
_NOMINAL = ("ung",)
_PERSON = ("ee",)
# A verb's third person or a noun's plural describes, it does not ask: "whenever a contract changes",
# "the updates of the case"; a request asks in the base form ("change", "add", "ändere")
_DESCRIBES = ("s", "es")


def _inflects(word: str, stem: str, *, compound: bool) -> str | None:
    """The word is the stem with an ending ("anlegen", "adds"), not a participle nor another
    word that begins the same ("address", "Neuanlage"); or, for the cues of `_NOUN_HEADS`, a
    compound whose last part is a long cue so inflected (German puts what a compound is at its end).
    A verb's stem with an action noun's ending ("Löschung") is NOMINAL, with a person's ("assignee") nothing."""
    if word.startswith(stem):
        ending = word[len(stem) :]
    elif compound and len(stem) >= _COMPOUND_TAIL and stem in word[1:]:
        ending = word[word.rindex(stem) + len(stem) :]
    else:
        return None
    if len(ending) > MAX_ENDING or _PARTICIPLE.search(ending) or ending in _PERSON + _DESCRIBES:
        return None
    return NOMINAL if ending in _NOMINAL else VERB


def intents(query: str) -> set[str]:
    """The intents the query's words ask for ("gelöschten Vorgang wiederherstellen" -> restore).
    A nominalised verb asks for its action only in a request without a verb of its own ("Löschung
    des Kontakts Müller"); beside one it names a thing ("die Zuordnung des Kontos löschen")."""
    query_words = words(query)
    text = " " + " ".join(query_words) + " "
    kinds: dict[str, set[str]] = {}
    for intent, stems in CUES.items():
        for stem in stems:
            kind = _cued(intent, stem, query_words, text)
            if kind:
                kinds.setdefault(intent, set()).add(kind)
    found = {intent for intent, how in kinds.items() if VERB in how} or set(kinds)
    if any(word.endswith(LIST_HEADS) for word in query_words):
        found.add("list")  # "Mieterliste", "Objektübersicht"
    deleted = any(word.startswith(_DELETED) for word in query_words)
    if deleted and any(word.startswith(_BY_MISTAKE) for word in query_words):
        found.add("restore")
    if "restore" in found:
        found.discard("delete")  # "restore the deleted ..." names the delete it undoes
    if "usage" in found:
        found.discard("list")  # "how many calls a day": counted, not listed
    if found - _READS - {"audit", "search", "usage"}:
        found -= _READS  # "delete the bank details": "details" asks for no read
    return found
