"""The entity types a request names, read from its nouns: German and English words mapped to
resources (tool name prefixes) through each resource's German wording (gloss.py), the
thesaurus, and the nouns the example requests use for one resource almost only; compounds
by their head ("Hausgeldkonto" ends in "konto") or first part ("Mieterliste" starts with
"mieter"), a compound that is a term by that term alone, the thesaurus' terms of two or three
words as one ("parking space", "object group"), plurals with an umlaut by their singular
("Vorgänge"); only German terms name compounds; a noun that qualifies the next (a possessor, an
English noun before another) names the context; terms that the example requests show to name
other resources than their own are left out (UNRELIABLE_TERMS). Used by rerank.py beside the
intents of intent.py."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from functools import lru_cache

from chalicelib.search import examples, gloss, terms
from chalicelib.search.glossary import words
from chalicelib.search.intent import CUES, LIST_HEADS, MAX_ENDING

_SPLIT = re.compile(r"[,()]")
_MIN_HEAD = 4  # a compound's head ("konto" in "Hausgeldkonto") counts from this length
_MIN_MODIFIER = 5  # a compound's first part ("mieter" in "Mieterliste") from this length
_MAX_RESOURCES = 3
# Thesaurus terms too general to name an entity type, and intent words
_NOT_NOUNS = frozenset(
    "status update liste eintrag daten nummer info angaben details stand art titel sprache frist termin "
    "geloescht deleted verwaltung administration management record protokoll bericht hinweis aufgabe "
    "zuordnung verknuepfung mail email".split()
)


@lru_cache(maxsize=1)
def _lexicon() -> dict[str, frozenset[str]]:
    """Folded one-word term -> the resources (tool name prefixes) it names."""
    return _built()[0]


@lru_cache(maxsize=1)
def _german() -> frozenset[str]:
    """The lexicon's German terms (plain): only German joins nouns into compounds, so only these name
    a compound by its head or first part ("Hausgeldkonto"; "recover" is no "cover")."""
    return frozenset(_plain(term) for term in _built()[1])


@lru_cache(maxsize=1)
def _own_wording() -> frozenset[str]:
    """The resources' own nouns (plain; a phrase's words joined by a space): what names them by definition."""
    own = {_plain(term) for term in _built()[2]}
    for wording in gloss.RESOURCES_DE.values():
        for phrase in _SPLIT.split(wording):
            noun = next((word for word in phrase.split() if word[:1].isupper()), "")
            if len(words(noun)) >= 2:
                own.add(" ".join(_plain(word) for word in words(noun)))
    return frozenset(own)


@lru_cache(maxsize=1)
def _built() -> tuple[dict[str, frozenset[str]], frozenset[str], frozenset[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    german: set[str] = set()

    def add(term: str, resources: set[str], *, language: str) -> None:
        folded = words(term)
        if len(folded) == 1 and len(folded[0]) >= 3:  # multi-word terms: their words are terms of their own
            found[folded[0]] |= resources
            if language == "de":
                german.add(folded[0])

    for resource, nouns in gloss.RESOURCES_DE.items():
        for phrase in _SPLIT.split(nouns):  # "Anschrift einer Liegenschaft": the phrase's first noun
            noun = next((word for word in phrase.split() if word[:1].isupper()), None)
            if noun:
                add(noun, {resource}, language="de")
    worded = set(found)  # the resources' own wording; the thesaurus adds words, not meanings to these
    for resource in gloss.RESOURCES_DE:
        add(_singular(resource.split(".")[-1]), {resource}, language="en")  # "contact", "unit", "delivery"
    own = set(found)
    for concept in terms.concepts():
        resources = {gloss.resource_of(op) for op in concept.operations}
        if not resources or len(resources) > _MAX_RESOURCES:
            continue  # a concept about many resources ("Konto", "Verwaltung") names none of them
        for language in ("de", "en"):
            for term in concept.terms(language).all():
                if not set(words(term)) & worded:
                    add(term, resources, language=language)
    for noun, resource in _example_nouns().items():
        if noun not in found:
            found[noun] = {resource}
            german.add(noun)
    lexicon = {
        term: frozenset(resources)
        for term, resources in found.items()
        if not _reads_as_cue(term) and term not in _NOT_NOUNS
    }
    return lexicon, frozenset(german), frozenset(own)


_MAX_PHRASE = 3  # words


@lru_cache(maxsize=1)
def _raw_phrases() -> dict[tuple[str, ...], frozenset[str]]:
    """The thesaurus' terms of two or three words ("parking space", "API key", "object group",
    "bank account use") and the resources' hyphenated nouns ("API-Schlüssel") -> the resources they
    name: English writes as words what German writes as one compound, and the words alone name other
    things or nothing ("space", "key", "group")."""
    found: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for resource, wording in gloss.RESOURCES_DE.items():  # the resources' own hyphenated nouns: "API-Schlüssel"
        for phrase in _SPLIT.split(wording):
            noun = next((word for word in phrase.split() if word[:1].isupper()), "")
            if 2 <= len(words(noun)) <= _MAX_PHRASE:
                found[tuple(_plain(word) for word in words(noun))].add(resource)
    for concept in terms.concepts():
        resources = {gloss.resource_of(op) for op in concept.operations}
        if not resources or len(resources) > _MAX_RESOURCES:
            continue
        for language in ("de", "en"):
            for term in concept.terms(language).all():
                folded = words(term)
                if 2 <= len(folded) <= _MAX_PHRASE and not _reads_as_cue(folded[0]):  # no verb ("roll back")
                    found[tuple(_plain(word) for word in folded)] |= resources
    return {phrase: frozenset(resources) for phrase, resources in found.items()}


def _singular(name: str) -> str:
    """An English plural's singular: "deliveries" -> "delivery", "processes" -> "process", "units" -> "unit"."""
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith(("sses", "ses", "xes")):
        return name[:-2]
    if name.endswith(("us", "ss")):  # no plural: "status"
        return name
    return name.removesuffix("s")


@lru_cache(maxsize=1)
def _cue_stems() -> tuple[str, ...]:
    return tuple(
        stem.strip() for stems in CUES.values() for stem in stems if " " not in stem.strip() and len(stem.strip()) >= 5
    )


def _reads_as_cue(word: str) -> bool:
    """The word is an intent's cue, inflected ("hochladen", "Erfassung", "merge"): a verb, not a noun
    that names a thing; a compound that begins with one is a noun ("Verbrauchsinformation",
    "Verlaufseintrag", "Nutzungseinheit")."""
    return any(word.startswith(stem) and len(word) - len(stem) <= MAX_ENDING for stem in _cue_stems())


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
    for head in LIST_HEADS:
        if word.endswith(head) and len(word) - len(head) >= _MIN_MODIFIER:
            return word[: -len(head)]
    return word


def _plain(word: str) -> str:
    """Without the umlaut, so that a plural with one ("Vorgänge", "Häuser") begins with its
    singular ("Vorgang", "Haus")."""
    return word.replace("ae", "a").replace("oe", "o").replace("ue", "u")


# Words after which a noun names the context, not the thing asked for ("die Wohnungen *der*
# WEG", "notes *on the* lease"); the thing asked for comes first.
_CONTEXT_MARKERS = frozenset(
    "der des eines einer im in beim bei vom von zur zum fur aus am an auf "
    "of for at in on from to about under with".split()
)
_ARTICLES = frozenset("der die das den dem des ein eine einen einem einer eines the a an this that".split())
CONTEXT_WEIGHT = 0.5
# "my key", "mein Schlüssel": the key the request is made with, which `info` describes
_MINE = frozenset("my mein meine meinem meinen meiner meines".split())
_OWN = {"apikeys": "info"}


def _after_marker(query_words: list[str], position: int) -> bool:
    before = position - 1
    while before >= 0 and query_words[before] in _ARTICLES and query_words[before] not in _CONTEXT_MARKERS:
        before -= 1  # "für *die* WEG"
    return before >= 0 and query_words[before] in _CONTEXT_MARKERS


_WORDS_KEPT = 50_000  # words whose reading a vocabulary keeps (a few MB at most)


class _Vocabulary:
    """The terms and phrases that name resources, and the reading of a request's words by them."""

    def __init__(
        self,
        terms: dict[str, frozenset[str]],
        german: frozenset[str],
        phrases: dict[tuple[str, ...], frozenset[str]],
    ) -> None:
        self.terms, self.german, self.phrases = terms, german, phrases
        self._positions = {term: position for position, term in enumerate(terms)}
        self._first_words = frozenset(phrase[0] for phrase in phrases)
        self._word_terms: dict[str, list[tuple[str, float]]] = {}  # a word's terms, once read

    def terms_in(self, word: str) -> list[str]:
        """The terms that begin or end the word, in the lexicon's order: the only ones a word can
        match (looked up by the word's prefixes and suffixes rather than by a pass over the ~1,200
        terms for each word)."""
        positions = self._positions
        parts = {word[:end] for end in range(1, len(word) + 1)} | {word[start:] for start in range(len(word))}
        return sorted((part for part in parts if part in positions), key=positions.__getitem__)

    def phrase_at(self, query_words: list[str], position: int) -> tuple[int, frozenset[str], str] | None:
        """The longest phrase beginning at the position: its length, its resources, and the ending its
        last word carries ("parking spaces": "s")."""
        if query_words[position] not in self._first_words:
            return None
        for length in range(_MAX_PHRASE, 1, -1):
            span = query_words[position : position + length]
            if len(span) < length:
                continue
            for cut in range(min(3, len(span[-1]) - 1) + 1):  # the last word inflected: "spaces", "keys"
                key = (*span[:-1], span[-1][: len(span[-1]) - cut])
                if key in self.phrases:
                    return length, self.phrases[key], span[-1][len(key[-1]) :]
        return None

    def word_terms(self, word: str) -> list[tuple[str, float]]:
        """The terms the word names and how fully: a whole term 1, a German compound's head or first part less."""
        if word in self._word_terms:
            return self._word_terms[word]
        found = self.terms_in(word)
        named: list[tuple[str, float]] = []
        for term in found:
            if any(term != longer and term in longer for longer in found):
                continue  # a part of a longer term the word holds: "Eigentümergemeinschaft" is no "Eigentümer"
            if word == term or (word.startswith(term) and len(word) - len(term) <= 3):
                named.append((term, 1.0))  # the term, or an inflection of it ("wohnungen", "tenants")
            elif term not in self.german:
                continue
            elif len(term) >= _MIN_HEAD and word.endswith(term):
                named.append((term, 0.8))  # the compound's head: "hausgeldkonto"
            elif len(term) >= _MIN_MODIFIER and word.startswith(term):
                named.append((term, 0.4))  # its first part: "mieterliste"
        if len(self._word_terms) < _WORDS_KEPT:
            self._word_terms[word] = named
        return named

    def readings(self, query_words: list[str]) -> list[tuple[int, int, str, dict[str, float], bool]]:
        """The nouns that name resources, in order: (first word, after the last word, the term or
        phrase, resource -> share, whether the noun is English)."""
        found: list[tuple[int, int, str, dict[str, float], bool]] = []
        position = 0
        while position < len(query_words):
            phrase = self.phrase_at(query_words, position)
            matches: dict[str, float] = {}
            if phrase:  # its words name what the phrase names, not what each names alone
                length, resources, _ = phrase
                matches = {resource: 1.0 / len(resources) for resource in resources}
                term, english = " ".join(query_words[position : position + length]), True
            else:
                length, named = 1, self.word_terms(query_words[position])
                for name, weight in named:
                    for resource in self.terms[name]:
                        matches[resource] = max(matches.get(resource, 0.0), weight / len(self.terms[name]))
                term = " ".join(name for name, _ in named)
                english = not any(name in self.german for name, _ in named)
            if position > 0 and query_words[position - 1] in _MINE:
                matches = {_OWN.get(resource, resource): share for resource, share in matches.items()}
            if matches:
                found.append((position, position + length, term, matches, english))
            position += length
        return found

    def weighted(self, query_words: list[str]) -> list[tuple[str, dict[str, float], bool]]:
        """Each reading's term, its resources and whether it names the context, not the thing asked
        for: after "der", "für", "of", ..., after the first named noun, or qualifying the next one (a
        possessor, "the caretaker's bank account"; in English a noun before another, the last of a row
        of nouns being what they name: "the caretaker assignment"; "Objekt Lindenweg 5": a German noun
        before a name heads it)."""
        readings = self.readings(query_words)
        weighted: list[tuple[str, dict[str, float], bool]] = []
        named = 0
        for index, (start, end, term, matches, english) in enumerate(readings):
            possessive = end < len(query_words) and query_words[end] == "s"
            qualifies = possessive or (english and index + 1 < len(readings) and readings[index + 1][0] == end)
            weighted.append((term, matches, named > 0 or qualifies or _after_marker(query_words, start)))
            if not qualifies:  # what the qualifier qualifies is what is asked for
                named += 1
        return weighted


@lru_cache(maxsize=1)
def _raw() -> _Vocabulary:
    terms: dict[str, frozenset[str]] = {}
    for term, resources in _lexicon().items():
        terms[_plain(term)] = terms.get(_plain(term), frozenset()) | resources
    return _Vocabulary(terms, _german(), _raw_phrases())


_UNRELIABLE_SHARE = 0.2  # of a term's readings in the example requests, naming the request's own resource
_UNRELIABLE_MINIMUM = 6  # readings at least


# The terms and phrases that unreliable_terms() finds, listed so that a search does not read every
# example request at its start (tests/unit/test_search_nouns.py holds the list to the rule)
UNRELIABLE_TERMS = frozenset(
    {
        "account assignment",
        "api",
        "archiv",
        "bewohner",
        "bulk",
        "callback",
        "caretaker",
        "category",
        "dienst",
        "duplicate",
        "hausmeister",
        "hauswart",
        "heizung",
        "hoa",
        "intern",
        "lage",
        "limit",
        "memo",
        "period",
        "plattform",
        "portal",
        "postanschrift",
        "push",
        "report",
        "role",
        "rolle",
        "soll",
        "system",
        "vermerk",
    }
)


def unreliable_terms() -> frozenset[str]:
    """The terms and phrases of the thesaurus and the mined nouns that, where they are the thing an
    example request asks for, name another resource than its tool's nearly always ("Heizung" named
    processes in 28 requests and in none of them a process; "account assignment" inbound invoices):
    in users' words they are not names of it. The resources' own wording is never among them."""
    raw, own = _raw(), _own_wording()
    readings: dict[str, Counter[bool]] = defaultdict(Counter)
    for name in examples.tools():
        resource = gloss.resource_of(name)
        if name == "search":
            continue  # it finds every resource
        for language in examples.LANGUAGES:
            for request in examples.of(name, language):
                for term, matches, context in raw.weighted(_query_words(request)):
                    if not context:
                        readings[term][resource in matches] += 1
    return frozenset(
        term
        for term, counted in readings.items()
        if term not in own
        and sum(counted.values()) >= _UNRELIABLE_MINIMUM
        and counted[True] / sum(counted.values()) < _UNRELIABLE_SHARE
    )


@lru_cache(maxsize=1)
def _vocabulary() -> _Vocabulary:
    """The terms and phrases less the unreliable ones."""
    raw = _raw()
    return _Vocabulary(
        {term: resources for term, resources in raw.terms.items() if term not in UNRELIABLE_TERMS},
        raw.german,
        {phrase: resources for phrase, resources in raw.phrases.items() if " ".join(phrase) not in UNRELIABLE_TERMS},
    )


def _query_words(query: str) -> list[str]:
    return [_plain(_without_list_head(word)) for word in words(query)]


def entities(query: str) -> dict[str, float]:
    """Resource -> how strongly the query names it (0..1): each matching word gives its
    resources an equal share; a whole word counts fully, a compound's part less, and a noun
    that names the context (_Vocabulary.weighted) half."""
    scores: dict[str, float] = defaultdict(float)
    for _, matches, context in _vocabulary().weighted(_query_words(query)):
        for resource, share in matches.items():
            scores[resource] += share * (CONTEXT_WEIGHT if context else 1.0)
    top = max(scores.values(), default=0.0)
    return {resource: score / top for resource, score in scores.items()} if top else {}


_PLURAL_ENDINGS = frozenset({"e", "en", "n", "s", "es", "er"})


def names_many(query: str) -> bool:
    """The first noun that names a resource is a plural ("Wohnungen", "Vorgänge", "contacts"):
    the request is about a list, not one thing."""
    vocabulary = _vocabulary()
    query_words = [_plain(word) for word in words(query)]
    for position, word in enumerate(query_words):
        phrase = vocabulary.phrase_at(query_words, position)
        if phrase:
            ending = phrase[2]
            return ending != "" and ending in _PLURAL_ENDINGS
        endings = {
            word[len(term) :]
            for term in vocabulary.terms_in(word)
            if word.startswith(term) and len(word) - len(term) <= 3
        }
        if endings:
            return "" not in endings and bool(endings & _PLURAL_ENDINGS)
    return False
