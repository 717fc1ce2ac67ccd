"""Well-formed XML documents with tag names a handler may look for.

Names come from a small vocabulary, fresh strings, or the dictionary; a dictionary
constant that is no valid XML name is mapped to one (`"user id"` -> `user_id`) rather than
skipped, so `root.find("user_id")`-style lookups still get a chance.  Text and attribute
values are escaped; characters XML 1.0 forbids are replaced first.

With edge values on, a document may be written in another encoding (its declaration then
names that encoding, as a tool writing it would; invalid UTF-8 keeps `UTF-8`) or with CRLF
line endings (`file_edges`).
"""

from __future__ import annotations

from typing import Final
from xml.sax.saxutils import escape, quoteattr

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.files import file_edges
from lambdafuzz.generators.files.alphabets import FREE_TEXT, LOWER, clean_xml_text, xml_name
from lambdafuzz.generators.files.budget import fits

TAGS: Final = (
    "root", "record", "item", "items", "row", "entry", "name", "id", "value", "date",
    "price", "amount", "user", "order", "status", "data", "list", "config", "title", "type",
)  # fmt: skip


def _name(choices: Choices, site: str) -> str:
    """A valid XML name (no namespace prefix): vocabulary, fresh, or a mapped constant."""
    if choices.draw_boolean(0.6, site=f"{site}-common?"):
        return choices.draw_choice(TAGS, site=site)
    return xml_name(choices.draw_string(LOWER, 1, 10, site=site)) or "x"


def _text(choices: Choices) -> str:
    return escape(clean_xml_text(choices.draw_string(FREE_TEXT + "<>&\n", 0, 24, site="text")))


@generator(labels.XML_ELEMENT)
def xml_elements(choices: Choices, *, max_depth: int = 3, indent: str = "", level: int = 0) -> str:
    """One element with attributes and either children or text, serialised."""
    tag = _name(choices, "tag")
    attributes: dict[str, str] = {}
    for _ in range(choices.draw_geometric(0.8, max_value=8, site="attributes")):
        name = _name(choices, "attribute")
        value = clean_xml_text(choices.draw_string(FREE_TEXT, 0, 16, site="attribute-value"))
        attributes.setdefault(name, value)  # a repeated attribute name is not well-formed
    attrs = "".join(f" {k}={quoteattr(v)}" for k, v in attributes.items())
    pad = indent * level
    children: list[str] = []
    if max_depth > 0 and choices.draw_boolean(0.5, site="children?"):
        for _ in range(choices.draw_geometric(2.0, min_value=1, max_value=20, site="children")):
            if not fits(choices, 128):
                break
            children.append(
                xml_elements(choices, max_depth=max_depth - 1, indent=indent, level=level + 1)
            )
    if children:
        newline = "\n" if indent else ""
        inner = newline + "".join(c + newline for c in children) + pad
        return f"{pad}<{tag}{attrs}>{inner}</{tag}>"
    text = _text(choices)
    if not text and choices.draw_boolean(0.5, site="self-closing?"):
        return f"{pad}<{tag}{attrs}/>"
    return f"{pad}<{tag}{attrs}>{text}</{tag}>"


@generator(labels.XML_DOCUMENT)
def xml_documents(choices: Choices, *, max_depth: int = 4) -> bytes:
    """A UTF-8 XML document: optional declaration, one root element, optional indentation."""
    if not 0 <= max_depth <= 32:
        raise InvalidArgument(f"xml_documents: max_depth={max_depth!r} must be within [0, 32]")
    declaration = choices.draw_boolean(0.7, site="declaration?")
    indent = choices.draw_choice(("", "  ", "\t"), site="indent")
    body = xml_elements(choices, max_depth=max_depth, indent=indent)
    edge = file_edges.draw_edge(choices, "xml")
    name = _DECLARED.get(edge or "", "UTF-8")
    head = f'<?xml version="1.0" encoding="{name}"?>\n' if declaration else ""
    text = head + body + "\n"
    if edge == "crlf":
        text = file_edges.crlf(text)
    return file_edges.encode_text(choices, text, edge) or text.encode("utf-8")


#: The declared encoding of each encoding edge class (the rest declare UTF-8).
_DECLARED: Final = {"cp1252": "windows-1252", "latin-1": "ISO-8859-1", "utf-16-bom": "UTF-16"}
