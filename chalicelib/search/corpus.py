"""What the search indexes hold, composed from the registry and the thesaurus: one tool
document per domain tool, one docs page per operation. Both backends index exactly these
(the embedded one at start, OpenSearch at deploy time)."""

from __future__ import annotations

import re

from chalicelib import docs
from chalicelib.registry import Operation
from chalicelib.search import examples, gloss
from chalicelib.search.backend import SearchDocument

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _words_of_name(name: str) -> str:
    """'accounting.bankaccountinfos.create.contact' -> 'accounting bankaccountinfos create contact'."""
    return " ".join(_CAMEL.sub(" ", part) for part in name.split("."))


def _argument_names(op: Operation) -> str:
    return " ".join(_CAMEL.sub(" ", name) for name in op.args.get("properties", {}) if name not in ("limit", "offset"))


def tool_document(op: Operation) -> SearchDocument:
    summary = _CAMEL.sub(" ", op.summary)
    text = " ".join(
        [
            _words_of_name(op.name),
            summary,
            summary,  # the summary says what the tool does: it counts twice against the prose
            op.docs,
            _argument_names(op),
            " ".join(gloss.english_terms(op.name)),
            ". ".join(examples.of(op.name, "en")),
        ]
    )
    # The German text leads with the gloss; a few thesaurus terms add the domain words without
    # drowning the action (a long list of terms pulled every tool of a resource together).
    german = ". ".join(part for part in (gloss.german(op.name), ", ".join(gloss.german_terms(op.name, 4))) if part)
    embedded = [summary, german, *examples.of(op.name, "en"), *examples.of(op.name, "de")]
    return SearchDocument(id=op.name, text=text, embedded_texts=tuple(embedded))


def docs_document(op: Operation) -> SearchDocument:
    return SearchDocument(id=op.name, text=docs.render(op), embedded_texts=())


def tool_documents(ops: list[Operation]) -> list[SearchDocument]:
    return [tool_document(op) for op in ops]


def docs_documents(ops: list[Operation]) -> list[SearchDocument]:
    return [docs_document(op) for op in ops]
