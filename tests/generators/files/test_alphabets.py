"""The cleaning functions replace exactly the characters their predicates refuse.

The functions substitute with one regular expression each (a speed trick); the predicates
are the readable rules (XML 1.0 `Char` and `NameChar`, text a strict consumer accepts).
Every code point is checked, surrogates included."""

from __future__ import annotations

import pytest

from lambdafuzz.generators.files import alphabets

EVERY_CODE_POINT = "".join(map(chr, range(0x110000)))


@pytest.mark.parametrize("newlines", [True, False])
def test_clean_text_replaces_exactly_what_is_no_text(newlines: bool) -> None:
    expected = "".join(
        ch if alphabets.is_text_char(ch) and (newlines or ch not in "\r\n") else " "
        for ch in EVERY_CODE_POINT
    )
    assert alphabets.clean_text(EVERY_CODE_POINT, newlines=newlines) == expected


def test_clean_xml_text_replaces_exactly_what_xml_forbids() -> None:
    expected = "".join(ch if alphabets.is_xml_char(ch) else " " for ch in EVERY_CODE_POINT)
    assert alphabets.clean_xml_text(EVERY_CODE_POINT) == expected


def test_xml_name_maps_exactly_the_characters_names_may_not_hold() -> None:
    expected = "".join(ch if alphabets.is_name_char(ch) else "_" for ch in EVERY_CODE_POINT)
    assert alphabets.xml_name(EVERY_CODE_POINT) == expected  # U+0000 became the `_` it starts with
    assert alphabets.xml_name("9lives") == "_9lives"
    assert alphabets.xml_name("ok-name.1") == "ok-name.1"
