"""What a request asks to do, read from its verbs in English and German: the operation's
intent (create, change, delete, restore, show, list, ...), and the intents each tool serves.
The entity types a request names, from its nouns, are in nouns.py.

The ranking above the backends (chalicelib/search/rerank.py) uses both: a tool whose action
the request asks for, and whose resource it names, moves up. Words are compared folded
(lowercase, umlauts as ae/oe/ue, ß as ss) and by prefix, which covers German inflection
("anlegen", "anlegt") without a stemmer."""

from __future__ import annotations

import re
from functools import lru_cache

from chalicelib.search import gloss
from chalicelib.search.glossary import words

# Intent -> cue stems (folded). A query word matches a stem when it starts with it and what
# follows is not a participle's or third person's ending ("anlegen", "anlege", "add", not
# "angelegt", "erfasst", "created", "adds": "the contact created twice" asks to delete, not to create);
# a stem with a space matches those words in a row ("set up", "bring back", the last one inflected when it
# is a stem: "undo the deletion"); one with a "+" a verb and
# the word that completes it anywhere in the request ("send it again", "lade die Datei hoch").
_QUESTION = "question"
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
        "write a",
        "write an",
        "post a",
        "submit",
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
        "einpfleg",
        "erzeug",
        "generate",
        "verbuch",
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
        "freigeb",
        "hochstuf",
        "herabstuf",
        "herabsetz",
        "umhaeng",
        "verknuepf",
        "kennzeichn",
        "ausblend",
        "einblend",
        "ueberschreib",
        "nachtrag",
        "aktivier",
        "freischalt",
        "enable",
        "activate",
        "hide",
        "unhide",
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
        "purge",
        "wipe",
        "take down",
        "trash",
        "loesch",
        "entfern",
        "streich",
        "rausnehm",
        "rauswerf",
        "entsorg",
        "wegwerf",
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
        "wieder einsetz",
        "wieder einblend",
        "wieder in kraft",
        "reactivat",
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
        "download",
        "herunterlad",
        "runterlad",
        "pull up",
        "bring up",
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
        "hol mir",
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
    "merge": ("merge", "dedupe", "de-dupe", "combine", "consolidate", "zusammenfuehr", "zusammenleg"),
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
    "upload": ("upload", "hochlad", "lad+hoch"),
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
        "audit",
        "wer hat",
        "wer war",
        "aenderungsprotokoll",
        "protokoll der aenderungen",
        "what did the agent",
        "was hat der agent",
        "what has the agent",
    ),
    "test": (
        "test the",
        "test a",
        "test an",
        "test our",
        "test my",
        "test it",
        "test whether",
        "test if",
        "send a test",
        "test event",
        "testereignis",
        "testevent",
        "testen",
        "teste ",
        "ping",
        "probe",
    ),
    "retry": (
        "resend",
        "retry",
        "send again",
        "send+again",
        "fire+again",
        "deliver+again",
        "redeliver",
        "erneut",
        "nochmal",
        "noch einmal",
    ),
    # every event a receiver missed while it was down, sent again (webhooks.deliveries.recover)
    "recover": (
        "catch up",
        "replay",
        "was down",
        "downtime",
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
        "in one batch",
        "in a batch",
        "as a batch",
        "sync our",
        "sync the",
        "sync all",
        "sync of",
        "nightly",
        "naechtlich",
        "from our",
        "aus unserer",
        "mit unseren",
        "import der",
        "synchronis",
        "synchroniz",
        "import all",
        "import our",
        "import the",
        "import from",
        "uebernehm",
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
        "find the",
        "find a",
        "named",
        "called",
        "which building is",
        "which object is",
        "such",
        "finde",
        "namens",
        "wo ist",
        "welches gebaeude",
    ),
    # a question how to learn something, which asks for no action of its own ("wie finde ich heraus, ...",
    # "how do I find out ..."): its words are not the list's or the search's "find"
    _QUESTION: (
        "find out",
        "finde ich heraus",
        "finde ich raus",
        "wie finde ich",
        "wo finde ich",
        "where do i find",
        "where can i find",
        "herausfind",
        "rausfind",
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
# What a tool does beside what its action says
_ALSO: dict[str, frozenset[str]] = {
    "aliases.upsert": frozenset({"assign"}),  # maps aliases to entities
    "accounting.bankaccountuse.create": frozenset({"assign"}),  # an account to a contract, for a purpose
    "responsibilities.create": frozenset({"assign"}),  # a contact to a job at an object
    "processes.update": frozenset({"assign"}),  # a case to its assignee
    "documents.uploads.create": frozenset({"bulk", "upload"}),  # many documents at once
}
# An API key is rotated by creating its successor and disabling it
# (apikeys.create: "a second exists only while rotating")
_ROTATES = ("apikeys.create", "apikeys.disable")
_SHOWS_ONE = ("tenant", "info", "status")  # named queries that show one thing; other bare names list
_AUDIT = ("audit.list", "audit.show")
# "I deleted it by mistake, bring it back": a delete in the past and a reason to undo it
# A deletion named, not asked for: the participle, the noun, or gone ("gelöscht", "die Löschung",
# "Vertragslöschung", "revocation", "verschwunden"); with a reason to undo it, the thing is to come back
_DELETED = (
    "deleted",
    "removed",
    "geloescht",
    "entfernt",
    "revoked",
    "abberufen",
    "loeschung",
    "deletion",
    "revocation",
    "abberufung",
    "disappeared",
    "vanished",
    "verschwunden",
)
_BY_MISTAKE = (
    "undo",
    "rueckgaengig",
    "zuruecknehm",
    "zurueckdreh",
    "ruecknahme",
    "aufheb",
    "ungeschehen",
    "reverse",
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


@lru_cache(maxsize=1024)
def _action(name: str) -> str:
    resource = gloss.resource_of(name)
    return name[len(resource) :].lstrip(".").split(".")[0] if name != resource else ""


def fits(name: str, asked: set[str]) -> float:
    """How far the tool serves what the request asks: 1 when it is the tool for an intent asked,
    0.5 when it also does what is asked (an upsert asked to create one thing), else 0."""
    serves = tool_intents(name)
    if serves & asked:
        return 1.0
    if _PARTLY.get(_action(name), frozenset()) & asked:
        return 0.5
    return 0.5 if serves & _READS and asked & _READS else 0.0  # a read asked for: one thing's or a list's


@lru_cache(maxsize=1024)
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
    if "+" in stem:
        verb, completion = stem.split("+")
        found = completion in query_words and any(_inflects(word, verb, compound=False) for word in query_words)
        return VERB if found else None
    if " " in stem.strip():
        return VERB if f" {stem}" in text else None
    stem = stem.strip()
    kinds = {_inflects(word, stem, compound=stem in _COMPOUND_HEADS) for word in query_words} - {None}
    return VERB if VERB in kinds else (NOMINAL if kinds else None)


# The cues that are nouns and may end a German compound, which is what the compound is: a read's
# ("Aufrufstatistik", "Rechnungsübersicht", "Ticketverlauf", "Detailansicht"). A verb's cue inside a
# longer word is another verb, not this one: "wiederherstellen" does not create (erstell),
# "deaktivieren" does not update (aktivier); and a thing's noun ending in "-nutzung" or "-verbrauch"
# is that thing ("Kontonutzung", a bank account use; "Heizverbrauch"), not a count of calls.
_COMPOUND_HEADS = frozenset({"ansicht", "uebersicht", "verlauf", "aenderungsprotokoll", "statistik", "volumen"})
# Endings that make a verb's stem a noun: the action ("Löschung", "Zuordnung", "Änderung"), or the
# person it is done to ("assignee", "employee"), which asks for no action at all
_NOMINAL = ("ung",)
_PERSON = ("ee",)
# A verb's third person or a noun's plural describes, it does not ask: "whenever a contract changes",
# "the updates of the case"; a request asks in the base form ("change", "add", "ändere")
_DESCRIBES = ("s", "es")


def _inflects(word: str, stem: str, *, compound: bool) -> str | None:
    """The word is the stem with an ending ("anlegen", "adds"), not a participle nor another
    word that begins the same ("address", "Neuanlage"); or, for the cues of `_COMPOUND_HEADS`, a
    compound whose last part is the cue so inflected (German puts what a compound is at its end).
    A verb's stem with an action noun's ending ("Löschung") is NOMINAL, with a person's ("assignee") nothing."""
    if word.startswith(stem):
        ending = word[len(stem) :]
    elif compound and stem in word[1:]:
        ending = word[word.rindex(stem) + len(stem) :]
    else:
        return None
    if len(ending) > MAX_ENDING or _PARTICIPLE.search(ending) or ending in _PERSON + _DESCRIBES:
        return None
    return NOMINAL if ending in _NOMINAL else VERB


_STEM = 4  # a phrase's last word this long is a stem ("undo the delet"); a shorter one a word ("open a")


_PREFIX = 3  # letters by which a word's cues are looked up (no cue is shorter)


@lru_cache(maxsize=1)
def _word_cues() -> tuple[dict[str, list[tuple[str, str]]], list[tuple[str, str]], list[tuple[str, str]]]:
    """The one-word cues by their first letters (a word can only begin with those), the compound heads'
    (which may end a word), and the verb-and-completion pairs."""
    by_prefix: dict[str, list[tuple[str, str]]] = {}
    tails: list[tuple[str, str]] = []
    pairs: list[tuple[str, str]] = []
    for intent, stems in CUES.items():
        for stem in stems:
            if "+" in stem:
                pairs.append((intent, stem))
            elif " " not in stem.strip():
                cue = stem.strip()
                if cue in _COMPOUND_HEADS:
                    tails.append((intent, cue))  # looked at in every word (it begins some, ends others)
                else:
                    by_prefix.setdefault(cue[:_PREFIX], []).append((intent, cue))
    return by_prefix, tails, pairs


@lru_cache(maxsize=1)
def _phrases_by_first_word() -> dict[str, list[tuple[list[str], str, str]]]:
    """The phrase cues by their first word: (their words, their intent, the cue)."""
    found: dict[str, list[tuple[list[str], str, str]]] = {}
    for intent, stems in CUES.items():
        for stem in stems:
            phrase = stem.strip().split(" ")
            if len(phrase) >= 2 and "+" not in stem:
                found.setdefault(phrase[0], []).append((phrase, intent, stem.strip()))
    return found


def _phrase_spans(query_words: list[str]) -> dict[tuple[int, int], set[str]]:
    """The phrase cues the words hold, longest first, each span of words read by one phrase (and the
    intents it asks for): "set up" is no "set", "wie finde ich heraus" no "finde"."""
    found: list[tuple[int, int, str, str]] = []
    by_first = _phrases_by_first_word()
    for start, first in enumerate(query_words):
        for phrase, intent, stem in by_first.get(first, ()):
            span = query_words[start : start + len(phrase)]
            if len(span) < len(phrase):
                continue
            last = span[-1] == phrase[-1] or (len(phrase[-1]) >= _STEM and span[-1].startswith(phrase[-1]))
            if span[:-1] == phrase[:-1] and last:
                found.append((start, start + len(phrase), intent, stem))
    spans: dict[tuple[int, int], set[str]] = {}
    for start, end, intent, _ in sorted(found, key=lambda f: (-len(f[3]), f[0])):
        overlaps = [span for span in spans if span[0] < end and start < span[1]]
        if not overlaps:
            spans[(start, end)] = {intent}
        elif overlaps == [(start, end)]:
            spans[(start, end)].add(intent)  # one phrase, two intents ("look up": show, search)
    return spans


# A verb after these asks for the opposite of itself: "nicht löschen", "ohne etwas zu ändern",
# "don't just pause it", "nothing to change"
_NEGATIONS = frozenset("nicht nichts ohne nie not never without nothing don dont".split())
_FILLERS = frozenset("zu etwas mal bitte just only only t to it es das".split())
_NEGATION_REACH = 2  # words before the verb, fillers not counted


_CLAUSE = re.compile(r"[,;:.!?()\u2013\u2014]| - ")


def _negated_positions(query: str) -> set[int]:
    """The positions of the words a negation before them in their clause turns (words(query)'s order)."""
    negated: set[int] = set()
    offset = 0
    for clause in _CLAUSE.split(query):
        clause_words = words(clause)
        for position in range(len(clause_words)):
            before, seen = position - 1, 0
            while before >= 0 and seen < _NEGATION_REACH:
                if clause_words[before] in _NEGATIONS:
                    negated.add(offset + position)
                    break
                seen += clause_words[before] not in _FILLERS
                before -= 1
        offset += len(clause_words)
    return negated


def intents(query: str) -> set[str]:
    """The intents the query's words ask for ("gelöschten Vorgang wiederherstellen" -> restore).
    A nominalised verb asks for its action only in a request without a verb of its own ("Löschung
    des Kontakts Müller"); beside one it names a thing ("die Zuordnung des Kontos löschen"). A word
    of a phrase cue is read by the phrase alone ("set up" asks to create, not to set)."""
    query_words = words(query)
    text = " " + " ".join(query_words) + " "
    spans = _phrase_spans(query_words)
    covered = {position for start, end in spans for position in range(start, end)}
    negated = _negated_positions(query)
    free = [word for position, word in enumerate(query_words) if position not in covered | negated]
    kinds: dict[str, set[str]] = {}
    for span_intents in spans.values():
        for intent in span_intents:
            kinds.setdefault(intent, set()).add(VERB)
    by_prefix, tails, pairs = _word_cues()
    for word in free:
        for intent, stem in [*by_prefix.get(word[:_PREFIX], ()), *tails]:
            kind = _inflects(word, stem, compound=stem in _COMPOUND_HEADS)
            if kind:
                kinds.setdefault(intent, set()).add(kind)
    for intent, stem in pairs:
        if _cued(intent, stem, query_words, text):
            kinds.setdefault(intent, set()).add(VERB)
    found = {intent for intent, how in kinds.items() if VERB in how} or set(kinds)
    if any(word.endswith(LIST_HEADS) for word in query_words):
        found.add("list")  # "Mieterliste", "Objektübersicht"
    deleted = any(named in word for word in query_words for named in _DELETED)
    undone = {"revert", "delete"} <= found  # "Löschen der Rechnung rückgängig machen"
    if undone or (deleted and any(word.startswith(_BY_MISTAKE) for word in query_words)):
        found.add("restore")  # "die Löschung rückgängig machen", "deleted by mistake, bring it back"
        found.discard("revert")  # what is undone is the deletion: the thing comes back
    if "restore" in found:
        found.discard("delete")  # "restore the deleted ..." names the delete it undoes
    found.discard(_QUESTION)
    if "usage" in found:
        found.discard("list")  # "how many calls a day": counted, not listed
    if found - _READS - {"audit", "search", "usage"}:
        found -= _READS  # "delete the bank details": "details" asks for no read
    return found
