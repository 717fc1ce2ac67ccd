"""The characters file generators draw from, and how foreign strings are made to fit.

Dictionary constants come from the code under test and may hold anything (NUL, lone
surrogates, newlines).  A file format has its own rules, so each generator passes drawn
strings through the cleaner for its format here instead of rejecting the constant: the
constant still reaches the handler, only the bytes that would break the format change.
"""

from __future__ import annotations

import re
import string
from typing import Final

from lambdafuzz.generators.core import Choices

LOWER: Final = string.ascii_lowercase
NAME: Final = string.ascii_lowercase + string.digits + "_"
#: Free text: letters, digits, punctuation that trips parsers (commas, quotes, ...), a few
#: non-ASCII letters so encodings get exercised.
FREE_TEXT: Final = (
    string.ascii_letters + string.digits + " ,;.:-_'\"!?()/\\&%$#@" + "äöüéçñßøåÆ€漢字"
)

#: Words for prose-like text and tag names; plain enough to look like real files.
WORDS: Final = (
    "the", "a", "of", "and", "to", "in", "is", "for", "on", "with", "error", "warning",
    "info", "total", "id", "name", "date", "value", "status", "ok", "failed", "user",
    "order", "item", "price", "amount", "count", "report", "data", "file", "image",
    "photo", "grade", "student", "score", "invoice", "customer", "address", "city",
    "café", "Zürich", "naïve", "東京", "2024", "2008", "null", "true", "false", "N/A",
)  # fmt: skip

_C0_ALLOWED: Final = frozenset("\t\n\r")


def word(choices: Choices) -> str:
    """A word from the built-in list, or a fresh/dictionary string (one or two draws)."""
    if choices.draw_boolean(0.75, site="common?"):
        return choices.draw_choice(WORDS, site="word")
    return choices.draw_string(LOWER, 1, 12, site="word")


def is_text_char(ch: str) -> bool:
    """Characters a strict text consumer accepts: no C0 controls but tab/newlines, no DEL,
    no lone surrogates."""
    o = ord(ch)
    if o < 0x20:
        return ch in _C0_ALLOWED
    return o != 0x7F and not 0xD800 <= o <= 0xDFFF


#: The characters `is_text_char` refuses, and those plus the newlines.  One `re.sub` does
#: what a per-character check did, with the same result for every code point: XML
#: documents, whose names and texts go through these (and `_NOT_XML_CHAR`,
#: `_NOT_NAME_CHAR`), are made 8-14% faster (0.55-0.61 -> 0.51-0.53 ms for `xml_documents`
#: over 400 seeds, best of 5, three paired runs).
_NOT_TEXT_CHAR: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_NOT_LINE_CHAR: Final = re.compile("[\x00-\x08\x0a-\x1f\x7f\ud800-\udfff]")


def clean_text(text: str, *, newlines: bool = True) -> str:
    """`text` with every character a text file may not hold replaced by a space."""
    return (_NOT_TEXT_CHAR if newlines else _NOT_LINE_CHAR).sub(" ", text)


def encodable(text: str) -> str:
    """`text` with lone surrogates (which UTF-8 cannot encode) replaced by U+FFFD."""
    if text.isascii():
        return text
    return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)


def is_xml_char(ch: str) -> bool:
    """XML 1.0 `Char` production."""
    o = ord(ch)
    if o < 0x20:
        return ch in _C0_ALLOWED
    return o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or 0x10000 <= o <= 0x10FFFF


#: The characters `is_xml_char` refuses.
_NOT_XML_CHAR: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def clean_xml_text(text: str) -> str:
    """`text` with characters XML 1.0 forbids replaced by a space (before escaping)."""
    return _NOT_XML_CHAR.sub(" ", text)


def _is_name_start(ch: str) -> bool:
    o = ord(ch)
    return (
        ch.isascii()
        and (ch.isalpha() or ch == "_")
        or 0xC0 <= o <= 0xD6
        or 0xD8 <= o <= 0xF6
        or 0xF8 <= o <= 0x2FF
        or 0x370 <= o <= 0x37D
        or 0x37F <= o <= 0x1FFF
        or 0x200C <= o <= 0x200D
        or 0x2070 <= o <= 0x218F
        or 0x2C00 <= o <= 0x2FEF
        or 0x3001 <= o <= 0xD7FF
        or 0xF900 <= o <= 0xFDCF
        or 0xFDF0 <= o <= 0xFFFD
        or 0x10000 <= o <= 0xEFFFF
    )


def is_name_char(ch: str) -> bool:
    """XML 1.0 `NameChar` (the rule `xml_name` applies)."""
    o = ord(ch)
    return (
        _is_name_start(ch)
        or ch in "-.0123456789"
        or o == 0xB7
        or 0x300 <= o <= 0x36F
        or 0x203F <= o <= 0x2040
    )


#: The characters `is_name_char` refuses.
_NOT_NAME_CHAR: Final = re.compile(
    "[^A-Za-z_\\-.0-9\xb7\xc0-\xd6\xd8-\xf6\xf8-\u037d\u037f-\u1fff\u200c\u200d"
    "\u203f\u2040\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd"
    "\U00010000-\U000effff]"
)


def xml_name(text: str) -> str | None:
    """`text` as a valid XML name without a namespace prefix (invalid characters become
    `_`, a bad first character gets a `_` in front); None if nothing is left."""
    if not text:
        return None
    mapped = _NOT_NAME_CHAR.sub("_", text)
    if not _is_name_start(mapped[0]):
        mapped = "_" + mapped
    return mapped
