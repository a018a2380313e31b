"""What a request asks for, read from its words in English and German: the operation's intent
(create, change, delete, restore, show, list, ...) from its verbs, and the entity types it
names from its nouns (through the thesaurus and the German wording of each resource,
compounds included: "Hausgeldkonto" ends in "konto", "Mieterliste" starts with "mieter").

The ranking above the backends (chalicelib/search/rerank.py) uses both: a tool whose action
the request asks for, and whose resource it names, moves up. Words are compared folded
(lowercase, umlauts as ae/oe/ue, ß as ss) and by prefix, which covers German inflection
("anlegen", "anlegt"; "Wohnungen", "Wohnung") without a stemmer."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import lru_cache

from chalicelib.search import examples, gloss, terms
from chalicelib.search.glossary import words

# Intent -> cue stems (folded). A query word matches a stem when it starts with it and what
# follows is not a participle's or third person's ending ("anlegen", "anlege", "adds", not
# "angelegt", "erfasst", "created": "the contact created twice" asks to delete, not to create);
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
    ),
    "delete": ("delete", "remove", "drop", "erase", "get rid", "discard", "loesch", "entfern", "streich", "rausnehm", "weg damit"),
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
    "list": (
        "list",
        "all ",
        "which",
        "overview",
        "every",
        "how many",
        "find",
        "search",
        "what are",
        "who are",
        "who is",
        "who ",
        "alle",
        "welche",
        "auflist",
        "liste",
        "uebersicht",
        "verlauf",
        "saemtlich",
        "wie viele",
        "such",
        "finde",
        "gibt es",
        "wer ",
    ),
    "merge": ("merge", "dedupe", "de-dupe", "combine", "consolidate", "zusammenfuehr", "dublett", "zusammenleg"),
    "assign": ("assign", "appoint", "elect", "bestell", "zuweis", "zuordn", "waehl", "beruf", "einsetz"),
    "revoke": ("revoke", "dismiss", "step down", "steps down", "abberuf", "entzieh", "abwaehl", "ausscheid", "scheidet"),
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
    "retry": ("resend", "retry", "send again", "redeliver", "erneut", "nochmal", "noch einmal"),
    "disable": ("disable", "deactivate", "block", "switch off", "turn off", "deaktivier", "sperr", "abschalt", "stilleg"),
    "generate": ("generate", "erzeug", "generier", "vergeb"),
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
    "upsert": frozenset({"create", "update", "assign"}),
    "resolve": frozenset({"show"}),
    "revert": frozenset({"revert", "restore", "audit"}),
    "retry": frozenset({"retry"}),
    "test": frozenset({"test"}),
    "disable": frozenset({"disable"}),
    "generatereference": frozenset({"generate", "create"}),
    "fordate": frozenset({"show"}),
    "progress": frozenset({"show"}),
    "spec": frozenset({"show"}),
    "eventTypes": frozenset({"list"}),
    "typemappings": frozenset({"list"}),
}
_SHOWS_ONE = ("tenant", "info", "status")  # named queries that show one thing; other bare names list
_AUDIT = ("audit.list", "audit.show")
# "I deleted it by mistake, bring it back": a delete in the past and a reason to undo it
_DELETED = ("deleted", "removed", "geloescht", "entfernt", "weggeloescht", "revoked", "abberufen")
_BY_MISTAKE = ("mistake", "accident", "back", "versehen", "wieder", "zurueck", "irrtum", "faelschlich", "error", "wrongly", "irrtuemlich")
_PARTICIPLE = re.compile(r"(t|te|ten|tes|ter|d|ed)$")
_MAX_ENDING = 3
_LIST_HEADS = ("liste", "listen", "uebersicht", "verzeichnis")
_READS = frozenset({"show", "list"})


def tool_intents(name: str) -> frozenset[str]:
    resource = gloss.resource_of(name)
    action = name[len(resource) :].lstrip(".").split(".")[0] if name != resource else ""
    if name in _AUDIT:
        return frozenset({"audit", "list" if name == "audit.list" else "show"})
    if action in _ACTION_INTENTS:
        return _ACTION_INTENTS[action]
    last = name.split(".")[-1]
    if last in _ACTION_INTENTS:
        return _ACTION_INTENTS[last]
    return frozenset({"show"}) if name in _SHOWS_ONE else frozenset({"list"})


def _cued(stem: str, query_words: list[str], text: str) -> bool:
    if " " in stem.strip():
        return f" {stem}" in text
    stem = stem.strip()
    return any(_inflects(word, stem) for word in query_words)


def _inflects(word: str, stem: str) -> bool:
    """The word is the stem with an ending ("anlegen", "adds"), not a participle nor another
    word that begins the same ("address", "Neuanlage")."""
    if not word.startswith(stem):
        return False
    ending = word[len(stem) :]
    return len(ending) <= _MAX_ENDING and not _PARTICIPLE.search(ending)


def intents(query: str) -> set[str]:
    """The intents the query's words ask for ("gelöschten Vorgang wiederherstellen" -> restore)."""
    query_words = words(query)
    text = " " + " ".join(query_words) + " "
    found = {intent for intent, stems in CUES.items() if any(_cued(stem, query_words, text) for stem in stems)}
    if any(word.endswith(_LIST_HEADS) for word in query_words):
        found.add("list")  # "Mieterliste", "Objektübersicht"
    deleted = any(word.startswith(_DELETED) for word in query_words)
    if deleted and any(word.startswith(_BY_MISTAKE) for word in query_words):
        found.add("restore")
    if "restore" in found:
        found.discard("delete")  # "restore the deleted ..." names the delete it undoes
    if found - _READS - {"audit"}:
        found -= _READS  # "delete the bank details": "details" asks for no read
    return found


# ------------------------------------------------------------------------------------ nouns

_SPLIT = re.compile(r"[,()]")
_MIN_HEAD = 4  # a compound's head ("konto" in "Hausgeldkonto") counts from this length
_MIN_MODIFIER = 5  # a compound's first part ("mieter" in "Mieterliste") from this length
_MAX_RESOURCES = 3
# Thesaurus terms too general to name an entity type, and intent words
_NOT_NOUNS = frozenset(
    "status update liste eintrag daten nummer info angaben details stand art titel sprache frist termin geloescht deleted "
    "verwaltung administration management record protokoll bericht hinweis aufgabe zuordnung verknuepfung mail email".split()
)


@lru_cache(maxsize=1)
def _lexicon() -> dict[str, frozenset[str]]:
    """Folded one-word term -> the resources (tool name prefixes) it names."""
    found: dict[str, set[str]] = defaultdict(set)

    def add(term: str, resources: set[str]) -> None:
        folded = words(term)
        if len(folded) == 1 and len(folded[0]) >= 3:  # multi-word terms: their words are terms of their own
            found[folded[0]] |= resources

    for resource, nouns in gloss.RESOURCES_DE.items():
        for phrase in _SPLIT.split(nouns):  # "Anschrift einer Liegenschaft": the phrase's first noun
            noun = next((word for word in phrase.split() if word[:1].isupper()), None)
            if noun:
                add(noun, {resource})
    worded = set(found)  # the resources' own wording; the thesaurus adds words, not meanings to these
    for resource in gloss.RESOURCES_DE:
        add(resource.split(".")[-1].rstrip("s"), {resource})  # English: "contact", "unit", "webhook"
    for concept in terms.concepts():
        resources = {gloss.resource_of(op) for op in concept.operations}
        if not resources or len(resources) > _MAX_RESOURCES:
            continue  # a concept about many resources ("Konto", "Verwaltung") names none of them
        for language in ("de", "en"):
            for term in concept.terms(language).all():
                if not set(words(term)) & worded:
                    add(term, resources)
    for noun, resource in _example_nouns().items():
        if noun not in found:
            found[noun] = {resource}
    cues = tuple(stem.strip() for stems in CUES.values() for stem in stems if " " not in stem.strip() and len(stem.strip()) >= 5)
    return {term: frozenset(resources) for term, resources in found.items() if not term.startswith(cues) and term not in _NOT_NOUNS}


_MINED_SHARE = 0.9  # of a noun's uses in the examples, in one resource's tools
_MINED_MINIMUM = 3  # uses at least


def _example_nouns() -> dict[str, str]:
    """German nouns (capitalised words) of the example requests that nearly always belong to one
    resource's tools ("Kautionskonto" in bank account uses, "Aufgang" in unit groups): the
    words users use beside the resource's own wording (a few names come along; they rarely
    recur in one resource alone)."""

    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for name in examples.tools():
        resource = gloss.resource_of(name)
        for request in examples.of(name, "de"):
            for raw in re.findall(r"[A-ZÄÖÜ][\wäöüß-]+", request):
                for word in words(raw):
                    if len(word) >= 4:
                        counts[word][resource] += 1
    mined: dict[str, str] = {}
    for word, per_resource in counts.items():
        resource, top = per_resource.most_common(1)[0]
        if top >= _MINED_MINIMUM and top / sum(per_resource.values()) >= _MINED_SHARE:
            mined[word] = resource
    return mined


def _without_list_head(word: str) -> str:
    """ "Wohnungsliste" names flats, not a list: the compound's first part is the thing asked for."""
    for head in _LIST_HEADS:
        if word.endswith(head) and len(word) - len(head) >= _MIN_MODIFIER:
            return word[: -len(head)]
    return word


def _plain(word: str) -> str:
    """Without the umlaut, so that a plural with one ("Vorgänge", "Häuser") begins with its
    singular ("Vorgang", "Haus")."""
    return word.replace("ae", "a").replace("oe", "o").replace("ue", "u")


@lru_cache(maxsize=1)
def _plain_lexicon() -> dict[str, frozenset[str]]:
    plain: dict[str, frozenset[str]] = {}
    for term, resources in _lexicon().items():
        plain[_plain(term)] = plain.get(_plain(term), frozenset()) | resources
    return plain


# Words after which a noun names the context, not the thing asked for ("die Wohnungen *der*
# WEG", "notes *on the* lease"); the thing asked for comes first.
_CONTEXT_MARKERS = frozenset("der des eines einer im in beim bei vom von zur zum fur aus am an auf of for at in on from to about under with".split())
_ARTICLES = frozenset("der die das den dem des ein eine einen einem einer eines the a an this that".split())
CONTEXT_WEIGHT = 0.5


def _after_marker(query_words: list[str], position: int) -> bool:
    before = position - 1
    while before >= 0 and query_words[before] in _ARTICLES and query_words[before] not in _CONTEXT_MARKERS:
        before -= 1  # "für *die* WEG"
    return before >= 0 and query_words[before] in _CONTEXT_MARKERS


def entities(query: str) -> dict[str, float]:
    """Resource -> how strongly the query names it (0..1): each matching word gives its
    resources an equal share; a whole word counts fully, a compound's part less, and a noun
    that names the context (after "der", "für", "of", ...) or follows the first named one half."""
    lexicon = _plain_lexicon()
    scores: dict[str, float] = defaultdict(float)
    query_words = [_plain(_without_list_head(word)) for word in words(query)]
    named = 0
    for position, word in enumerate(query_words):
        context = named > 0 or _after_marker(query_words, position)
        matches: dict[str, float] = {}
        for term, resources in lexicon.items():
            if word == term or (word.startswith(term) and len(word) - len(term) <= 3):
                weight = 1.0  # the term, or an inflection of it ("wohnungen", "tenants")
            elif len(term) >= _MIN_HEAD and word.endswith(term):
                weight = 0.8  # the compound's head: "hausgeldkonto"
            elif len(term) >= _MIN_MODIFIER and word.startswith(term):
                weight = 0.4  # its first part: "mieterliste"
            else:
                continue
            for resource in resources:
                share = weight / len(resources)
                matches[resource] = max(matches.get(resource, 0.0), share)
        if matches:
            named += 1
        for resource, share in matches.items():
            scores[resource] += share * (CONTEXT_WEIGHT if context else 1.0)
    top = max(scores.values(), default=0.0)
    return {resource: score / top for resource, score in scores.items()} if top else {}


_PLURAL_ENDINGS = frozenset({"e", "en", "n", "s", "es", "er"})


def names_many(query: str) -> bool:
    """The first noun that names a resource is a plural ("Wohnungen", "Vorgänge", "contacts"):
    the request is about a list, not one thing."""
    lexicon = _plain_lexicon()
    for word in (_plain(word) for word in words(query)):
        endings = {word[len(term) :] for term in lexicon if word.startswith(term) and len(word) - len(term) <= 3}
        if endings:
            return "" not in endings and bool(endings & _PLURAL_ENDINGS)
    return False
