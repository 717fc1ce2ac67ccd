"""XML documents: well-formed, names from the dictionary mapped to valid XML names."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from lambdafuzz import labels
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files.alphabets import xml_name
from lambdafuzz.generators.files.xml_files import xml_documents

AWKWARD = ("user id", "1st", "a:b", "", "<&>", "x\x00y", "\ud800", "ok")


def test_documents_are_well_formed_even_with_awkward_constants() -> None:
    attributes = elements = 0
    for seed in range(200):
        data = xml_documents(
            Choices(seed=seed, policy=DrawPolicy(dictionary=AWKWARD, dictionary_p=0.3))
        )
        root = ElementTree.fromstring(data)
        for element in root.iter():
            elements += 1
            attributes += len(element.attrib)
    assert elements > 400 and attributes > 100


def test_dictionary_tag_names_are_mapped_not_dropped() -> None:
    tags: set[str] = set()
    for seed in range(40):
        data = xml_documents(
            Choices(seed=seed, policy=DrawPolicy(dictionary=("user id",), dictionary_p=1.0))
        )
        tags |= {e.tag for e in ElementTree.fromstring(data).iter()}
    assert "user_id" in tags


@pytest.mark.parametrize(
    ("text", "name"),
    [("item", "item"), ("user id", "user_id"), ("1st", "_1st"), ("a:b", "a_b"), ("-x", "_-x"),
     ("naïve", "naïve"), ("", None)],
)  # fmt: skip
def test_xml_name_maps_strings_to_valid_names(text: str, name: str | None) -> None:
    assert xml_name(text) == name
    if name:
        ElementTree.fromstring(f"<{name}/>")


def test_text_survives_escaping() -> None:
    data = xml_documents(
        Choices(seed=5, policy=DrawPolicy(dictionary=("a < b & c",), dictionary_p=1.0))
    )
    texts = {e.text for e in ElementTree.fromstring(data).iter()}
    assert "a < b & c" in texts


def test_parts_are_labelled() -> None:
    choices = Choices(seed=9)
    xml_documents(choices)
    counts = choices.recording().label_counts()
    assert counts[labels.XML_DOCUMENT] == len(choices.choices)
    assert counts[labels.XML_ELEMENT] > 0
