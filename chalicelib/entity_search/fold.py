"""German as people type it, the same on the indexed text and on the query: lower case, ä ö ü
as ae oe ue and ß as ss (so "Schäfer" and "Schaefer", "Straße" and "Strasse" are one word), other
marks dropped (é as e), and "str." as "strasse". The index's tokenizer (unicode61, remove_diacritics
2) would map ä to a; the text it sees is folded here first, so it only ever sees ae."""

from __future__ import annotations

import re
import unicodedata

_GERMAN = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "ẞ": "ss"})
_STR = re.compile(r"str\.")  # "Lindenstr. 12", "Str. des 17. Juni": straße
_WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """The text as the index holds it: folded, marks dropped, "str." written out."""
    lowered = _STR.sub("strasse ", text.lower().translate(_GERMAN))
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """The folded words of a text (letters and digits), as the index's tokenizer splits them."""
    return _WORD.findall(fold(text))
