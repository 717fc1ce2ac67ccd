"""mkdocs hook: the configuration reference, generated from the schema itself.

Why generated: a hand-kept list of keys drifts from the code the day a key is added.  The
page `reference/configuration.md` holds prose and a marker; at build time the marker
becomes one table per mapping of `lambdafuzz.yaml`, read from the pydantic models that
validate the file (`lambdafuzz.config.schema`): each key's dotted path, type, default and
the `description=` of its field.  `tests/docs/test_reference.py` checks that every key the
schema accepts appears here.
"""

from __future__ import annotations

import enum
import json
import re
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from lambdafuzz.config.source import is_list, model_in

#: The line of `reference/configuration.md` the generated tables replace.
MARKER = "<!-- config-keys -->"
PAGE = "reference/configuration.md"

#: The keys only an overlay (a lambdafuzz.yaml naming a template) has; the schema of
#: lambdafuzz.yaml does not hold them, so their descriptions live here.
OVERLAY_DESCRIPTIONS = {
    "template": "The template beside this file that the file applies to.",
    "function": "The logical id fuzzed when `--function` is not given.",
    "functions": "Per logical id, lambdafuzz.yaml keys for that function only.",
}


@dataclass(frozen=True, slots=True)
class KeyDoc:
    """One key of lambdafuzz.yaml as the reference shows it."""

    path: str  # dotted, `[]` after a list: resources.buckets[].objects.formats
    type: str
    default: str  # "required" when the key must be given
    description: str


@dataclass(frozen=True, slots=True)
class Section:
    """The keys of one mapping of lambdafuzz.yaml (the top level, `trigger`, ...)."""

    path: str  # "" for the top level
    keys: tuple[KeyDoc, ...]


def config_model() -> type[BaseModel]:
    """The pydantic model a lambdafuzz.yaml is validated with."""
    from lambdafuzz.config.schema import config_model as schema_model

    return schema_model()


def sections(model: type[BaseModel] | None = None) -> tuple[Section, ...]:
    """Every mapping of lambdafuzz.yaml with its keys, the top level first, each nested
    mapping after the section that names it."""
    found: list[Section] = []
    _walk(model or config_model(), "", found)
    return tuple(found)


def config_keys() -> tuple[KeyDoc, ...]:
    """Every key path lambdafuzz.yaml accepts."""
    return tuple(key for section in sections() for key in section.keys)


def overlay_keys() -> tuple[KeyDoc, ...]:
    """The keys of an overlay beside a template."""
    from lambdafuzz.config.overlay import OVERLAY_KEYS

    types_ = {"template": "string", "function": "string", "functions": "mapping"}
    return tuple(
        KeyDoc(key, types_.get(key, ""), "—", OVERLAY_DESCRIPTIONS.get(key, ""))
        for key in OVERLAY_KEYS
    )


def config_reference_markdown() -> str:
    """The generated part of the configuration reference (Markdown)."""
    out: list[str] = []
    for section in sections():
        title = f"`{section.path}`" if section.path else "Top level"
        out += [f"### {title} {{#{anchor(section.path)}}}", ""]
        out += ["| Key | Type | Default | Description |", "| --- | --- | --- | --- |"]
        out += [_row(key) for key in section.keys]
        out.append("")
    out += [f"### Overlay keys {{#{anchor('overlay')}}}", ""]
    out += [
        "A `lambdafuzz.yaml` holding `template:` is an overlay over that template's import: "
        "these keys beside any key above ([Your first template]"
        "(../getting-started/first-template.md#settings-beside-a-template)).",
        "",
        "| Key | Type | Default | Description |",
        "| --- | --- | --- | --- |",
    ]
    out += [_row(key) for key in overlay_keys()]
    out.append("")
    return "\n".join(out)


def anchor(path: str) -> str:
    """The HTML id of a section: `resources.buckets[].objects` -> `resources-buckets-objects`."""
    if not path:
        return "top-level"
    return re.sub(r"[^a-z0-9]+", "-", path.lower().replace("[]", "")).strip("-")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """mkdocs event: fill the configuration reference's marker."""
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"{PAGE} lost its {MARKER} line")
    return markdown.replace(MARKER, config_reference_markdown())


# ------------------------------------------------------------------------------ walking
def _walk(model: type[BaseModel], path: str, found: list[Section]) -> None:
    keys: list[KeyDoc] = []
    nested: list[tuple[type[BaseModel], str]] = []
    for name, info in model.model_fields.items():
        key = info.alias or name
        full = f"{path}.{key}" if path else key
        inner = model_in(info.annotation)
        below = full + ("[]" if is_list(info.annotation) else "")
        kind = _type_text(info.annotation, info.metadata)
        if inner is not None:
            kind += f" ([keys](#{anchor(below)}))"
            nested.append((inner, below))
        keys.append(KeyDoc(full, kind, _default_text(info), (info.description or "").strip()))
    found.append(Section(path, tuple(keys)))
    for inner, below in nested:
        _walk(inner, below, found)


# ------------------------------------------------------------------------------ rendering
def _type_text(annotation: Any, metadata: Sequence[Any] = ()) -> str:
    """`float (> 0, ≤ 900)`, `list of string`, `one of s3, sqs, ...`."""
    base, more = _unwrap(annotation)
    facts = _facts((*metadata, *more))
    origin = typing.get_origin(base)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(base) if a is not type(None)]
        text = " or ".join(_type_text(a) for a in options)
    elif origin is list:
        (item,) = typing.get_args(base) or (Any,)
        text = "list of " + _type_text(item)
    elif origin is dict:
        text = "mapping"
    elif origin is typing.Literal:
        text = "one of " + ", ".join(f"`{v}`" for v in typing.get_args(base))
    elif isinstance(base, type) and issubclass(base, BaseModel):
        text = "mapping"
    else:
        text = _SCALARS.get(base, "any JSON value" if base is Any else str(base))
    if facts.choices:
        text = "one of " + ", ".join(f"`{c}`" for c in facts.choices)
    elif facts.what:
        text += f" ({facts.what})"
    if facts.bounds:
        text += " (" + ", ".join(facts.bounds) + ")"
    return text


_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _unwrap(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """The annotation without `Annotated[...]`, and the metadata it carried."""
    if typing.get_origin(annotation) is typing.Annotated:
        base, *extra = typing.get_args(annotation)
        inner, more = _unwrap(base)
        return inner, (*extra, *more)
    return annotation, ()


@dataclass(frozen=True, slots=True)
class _Facts:
    choices: tuple[str, ...] = ()
    what: str = ""
    bounds: tuple[str, ...] = ()


_BOUNDS = (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤"))
_LENGTHS = (("min_length", "at least {} long"), ("max_length", "at most {} long"))


def _facts(metadata: Sequence[Any]) -> _Facts:
    """What the validators say: allowed values, the expected text, numeric bounds."""
    choices: tuple[str, ...] = ()
    what = ""
    bounds: list[str] = []
    for item in metadata:
        if isinstance(item, FieldInfo):
            choices, what, more = _facts_of(item.metadata, choices, what)
            bounds += more
            continue
        choices, what, more = _facts_of((item,), choices, what)
        bounds += more
    return _Facts(choices, what, tuple(bounds))


def _facts_of(
    items: Sequence[Any], choices: tuple[str, ...], what: str
) -> tuple[tuple[str, ...], str, list[str]]:
    bounds: list[str] = []
    for item in items:
        for attr, sign in _BOUNDS:
            value = getattr(item, attr, None)
            if isinstance(value, int | float) and not isinstance(value, bool):
                bounds.append(f"{sign} {value:,}".replace(",", " "))
        for attr, text in _LENGTHS:
            value = getattr(item, attr, None)
            if isinstance(value, int) and value > 1:
                bounds.append(text.format(value))
        func = getattr(item, "func", None)
        if func is not None:
            found_choices, found_what = _closure_facts(func)
            choices = found_choices or choices
            what = found_what or what
    return choices, what, bounds


def _closure_facts(func: Any) -> tuple[tuple[str, ...], str]:
    """The options and the expected text a validator of the schema closes over
    (`_one_of(options, what)`, `_matching(pattern, what)`)."""
    choices: tuple[str, ...] = ()
    what = ""
    for cell in getattr(func, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if isinstance(value, tuple | list) and value and all(isinstance(v, str) for v in value):
            choices = tuple(value)
        elif isinstance(value, str):
            what = value
    return choices, ("" if choices else what)


def _default_text(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    value = info.get_default(call_default_factory=True)
    if value is None:
        return "—"
    if isinstance(value, BaseModel):
        value = {}
    if isinstance(value, enum.Enum):
        value = value.value
    return f"`{json.dumps(value)}`"


def _row(key: KeyDoc) -> str:
    cells = (f"`{key.path}`", key.type, key.default, key.description)
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
