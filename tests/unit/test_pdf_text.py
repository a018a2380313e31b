"""A PDF's words for the entity search (chalicelib/entity_search/pdf_text.py): the first pages'
text, collapsed and capped; nothing from a file that is encrypted or cannot be read."""

from __future__ import annotations

import io

from pypdf import PdfReader, PdfWriter

from chalicelib.entity_search import pdf_text
from tests.uploads import pdf_saying


def test_the_first_pages_text_is_read_with_whitespace_collapsed() -> None:
    text = pdf_text.text_of(io.BytesIO(pdf_saying("Protokoll der\n\nEigentümerversammlung", "Beschluss   Nr. 3")))
    assert text == "Protokoll der Eigentümerversammlung Beschluss Nr. 3"


def test_pages_past_the_limit_and_text_past_the_cap_are_not_kept() -> None:
    pages = [f"Seite{n}" for n in range(pdf_text.MAX_PAGES + 5)]
    text = pdf_text.text_of(io.BytesIO(pdf_saying(*pages)))
    assert text.split() == pages[: pdf_text.MAX_PAGES]
    long = " ".join(["Wort"] * 3000)  # 15,000 characters a page
    assert len(pdf_text.text_of(io.BytesIO(pdf_saying(long, long)))) == pdf_text.MAX_CHARS


def test_an_encrypted_or_unreadable_file_gives_no_text() -> None:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_saying("Geheime Abrechnung"))))
    writer.encrypt("secret")
    encrypted = io.BytesIO()
    writer.write(encrypted)
    encrypted.seek(0)
    assert pdf_text.text_of(encrypted) == ""
    assert pdf_text.text_of(io.BytesIO(b"%PDF-1.4\n1 0 obj <<")) == ""
    assert pdf_text.text_of(io.BytesIO(b"")) == ""
