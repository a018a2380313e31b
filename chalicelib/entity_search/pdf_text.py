"""The words of a PDF for the entity search: the text of its first pages as pypdf reads it, within
bounds. Read once, where the file is received (documents.upload, the bulk registration), and kept on
the entity's item (fileText, never shown), so the change stream's indexing reads no file and one
tenant's thousand scans never hold up another's webhooks. A PDF that carries no text (a scan), is
encrypted, or that pypdf cannot read is found by its title and file name alone.

pypdf bounds each stream's decompression and parsing itself (pypdf.Configuration); here the pages
read, the text kept, and no external program (jbig2dec) ever run."""

from __future__ import annotations

import logging
import re
from typing import IO

from pypdf import PdfReader, apply_configuration

logger = logging.getLogger(__name__)

PDF = "application/pdf"
WITH_TEXT = "document"  # the entity type found by its file's text (a UVI document is not searched so)
MAX_PAGES = 30  # a letter, a statement, a protocol: their words are on the first pages
MAX_CHARS = 20_000  # the text kept (an item's share of DynamoDB's 400 KB)
MAX_STREAM_BYTES = 20_000_000  # what one content stream may inflate to (pypdf's default: 75 MB)
_SPACE = re.compile(r"\s+")

logging.getLogger("pypdf").setLevel(logging.ERROR)  # a malformed file's every warning is no news here


def kept(type_name: str, content_type: str) -> bool:
    """Whether the search keeps the text of this entity's file: a document's PDF."""
    return type_name == WITH_TEXT and content_type == PDF


def text_of(content: IO[bytes]) -> str:
    """The text of the PDF's first MAX_PAGES pages, whitespace collapsed, at most MAX_CHARS
    characters; "" for one without text or one that cannot be read."""
    try:
        with apply_configuration(
            jbig2dec_binary=None,
            zlib_maximum_output_length=MAX_STREAM_BYTES,
            lzw_maximum_output_length=MAX_STREAM_BYTES,
            run_length_maximum_output_length=MAX_STREAM_BYTES,
            brotli_maximum_output_length=MAX_STREAM_BYTES,
            image_maximum_buffer_size=MAX_STREAM_BYTES,
        ):
            reader = PdfReader(content)
            if reader.is_encrypted:
                return ""
            kept: list[str] = []
            length = 0
            for number, page in enumerate(reader.pages):
                if number >= MAX_PAGES or length >= MAX_CHARS:
                    break
                text = _SPACE.sub(" ", page.extract_text() or "").strip()
                if text:
                    kept.append(text)
                    length += len(text) + 1
    except Exception as error:  # noqa: BLE001 - any file a client sends: unreadable means found by its name only
        logger.warning("a PDF's text could not be read: %s; found by title and file name", type(error).__name__)
        return ""
    return " ".join(kept)[:MAX_CHARS]
