"""JSON documents: values of every JSON type, or objects following a shape.

A shape asks for "objects with these fields":

    {"required": {"name": "string", "age": "integer", "tags": ["string"],
                  "address": {"required": {"city": "string"}}},
     "optional": {"nickname": "string"}}

Field types are `string`, `integer`, `number`, `boolean`, `null`, `array`, `object`,
`any`, `date` and `datetime` (ISO strings), a one-element list `[type]` for an array of
that type, or a nested shape.  Required keys are always present, optional keys half the
time, and with a small probability a few extra keys are added (handlers meet unexpected
fields).  Nesting is bounded by `max_depth`.

With edge values on, a document may be written in another encoding or with CRLF line
endings (`file_edges`).

Given the field names the code reads (`Choices.fields`, the `frontier` strategy), a free
object is now and then a *record* of them: each name present or not, with any value (a
time-named field, `deliveredAt`, often a written date: `dates.date_texts`).  A
handler that checks `contact_id` and `name` before its main path needs both keys in one
body; as free keys each is a dictionary draw among dozens of constants (~1 in 300 keys),
so the main path was almost never reached. A field named as a plural (`lines`) is now and
then a list of such records (line items), whose own fields hold plain values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators import edge_values
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.dates import DATE_FIELD_P, date_texts, dates, datetimes, is_time_name
from lambdafuzz.generators.files import file_edges
from lambdafuzz.generators.files.alphabets import FREE_TEXT, NAME, encodable
from lambdafuzz.generators.files.budget import fits

ShapeT = Mapping[str, Any]

SCALAR_TYPES: Final = ("string", "integer", "number", "boolean", "null")
FIELD_TYPES: Final = (*SCALAR_TYPES, "array", "object", "any", "date", "datetime")
_SHAPE_KEYS: Final = frozenset({"required", "optional"})
#: A free object is a record of the code's field names this often (when it has any), and
#: each field of a record is present this often (absent is a bug class of its own).
RECORD_P: Final = 0.75
RECORD_FIELD_P: Final = 0.7
#: A record's field is one of the code's constants (a string of the dictionary, or a
#: number it compares with) this often: a field read by name is usually compared with the
#: code's constants (`region in REGIONS`, `weight <= MAX_WEIGHT`); through the type draw
#: and `dictionary_p` a field met a given constant about once in 500 records.
RECORD_CONSTANT_P: Final = 0.3
RECORD_STRING_P: Final = 0.7
#: The call sites of a field's presence, of that draw and of the constant's own draw (a string, or the index of a
#: number): a mutator's edge plan turns the first on and tries other constants in the
#: others (`fuzzer.frontier`).
RECORD_FIELD_SITE: Final = "field?"
RECORD_CONSTANT_SITE: Final = "constant?"
RECORD_WORD_SITE: Final = "constant"
RECORD_NUMBER_SITE: Final = "constant-number"
#: The execution-index key of a present field's draws, followed by the field's name.
RECORD_VALUE_SITE: Final = "field:"
#: A record's field named as a plural (`lines`, `Items`, `orderLines`) is, this often, a
#: list of records of the same names: the line items a handler iterates and reads by name
#: (`for line in order["lines"]: int(line["qty"])`). As an ordinary value such a field
#: was a non-empty list of objects with the inner name in 2 of 3,000 generated order
#: bodies (an SQS order-intake handler: no campaign of 6,000 executions got past it).
RECORD_LIST_P: Final = 0.3
RECORD_LIST_SITE: Final = "records?"
_SINGULAR_ENDINGS: Final = ("ss", "us", "is")
#: A name's last word: `Items`, `lines` of `order_lines`, `Items` of `lineItems`.
_LAST_WORD: Final = re.compile(r"[A-Z]?[a-z]+$|[A-Z]+$")
#: Strings: free text plus characters JSON must escape.
STRING_ALPHABET: Final = FREE_TEXT + "\t\n\r\b\f\x00\x1f\u2028\U0001f600"


def validate_shape(shape: object, path: str = "shape") -> None:
    """Raise InvalidArgument naming the first bad part of `shape`."""
    if not isinstance(shape, Mapping):
        raise InvalidArgument(
            f"{path}: expected a mapping with 'required'/'optional', got {shape!r}"
        )
    unknown = set(shape) - _SHAPE_KEYS
    if unknown:
        raise InvalidArgument(
            f"{path}: unknown keys {sorted(unknown)!r}; expected 'required', 'optional'"
        )
    for part in _SHAPE_KEYS & set(shape):
        fields = shape[part]
        if not isinstance(fields, Mapping):
            raise InvalidArgument(
                f"{path}.{part}: expected a mapping of field -> type, got {fields!r}"
            )
        for key, kind in fields.items():
            if not isinstance(key, str):
                raise InvalidArgument(f"{path}.{part}: field name {key!r} is not a string")
            _validate_type(kind, f"{path}.{part}.{key}")


def _validate_type(kind: object, path: str) -> None:
    if isinstance(kind, str):
        if kind not in FIELD_TYPES:
            raise InvalidArgument(f"{path}: unknown type {kind!r}; valid: {', '.join(FIELD_TYPES)}")
    elif isinstance(kind, list):
        if len(kind) != 1:
            raise InvalidArgument(f"{path}: an array type is a one-element list, got {kind!r}")
        _validate_type(kind[0], f"{path}[]")
    else:
        validate_shape(kind, path)


# ------------------------------------------------------------------------- values
def _string(choices: Choices) -> str:
    return encodable(choices.draw_string(STRING_ALPHABET, 0, 20, site="string"))


def _key(choices: Choices) -> str:
    return encodable(choices.draw_string(NAME, 0, 12, site="key"))


def _integer(choices: Choices) -> int:
    if choices.draw_boolean(0.05, site="huge?"):
        return choices.draw_integer(-(2**63), 2**63 - 1, site="huge")
    magnitude = choices.draw_geometric(100.0, max_value=10**9, site="magnitude")
    return -magnitude if choices.draw_boolean(0.15, site="negative?") else magnitude


def _number(choices: Choices) -> float:
    value = choices.draw_float(-1e6, 1e6, site="number")
    places = choices.draw_integer(0, 3, site="places")
    return round(value, places) if places < 3 else value


def _scalar(choices: Choices, kind: str) -> Any:
    if choices.edge_values:
        edge = edge_values.json_scalar(choices, kind)
        if edge is not edge_values.NO_EDGE:
            return edge
    if kind == "string":
        return _string(choices)
    if kind == "integer":
        return _integer(choices)
    if kind == "number":
        return _number(choices)
    if kind == "boolean":
        return choices.draw_boolean(site="boolean")
    if kind == "date":
        return dates(choices).isoformat()
    if kind == "datetime":
        return datetimes(choices).isoformat()
    return None


#: The kinds of a free JSON value and their weights (scalars only at the depth limit).
VALUE_KINDS: Final = (*SCALAR_TYPES, "array", "object")
VALUE_WEIGHTS: Final = (3, 3, 2, 1, 1, 1, 2)


def _kind_shares(depth_left: bool) -> dict[str, tuple[float, float]]:
    kinds = VALUE_KINDS if depth_left else SCALAR_TYPES
    weights = VALUE_WEIGHTS[: len(kinds)]
    total, low, shares = sum(weights), 0.0, {}
    for kind, weight in zip(kinds, weights, strict=True):
        shares[kind] = (low / total, (low + weight) / total)
        low += weight
    return shares


#: The call sites of a record field's kind draw (containers allowed, or scalars only), and
#: the share of [0, 1) that picks each kind there: a mutator's edge plan retypes a field.
RECORD_KIND_SHARES: Final = {
    "field-kind": _kind_shares(True),
    "field-scalar-kind": _kind_shares(False),
}


@generator(labels.JSON_VALUE)
def json_values(choices: Choices, *, max_depth: int = 3, kind_site: str = "kind") -> Any:
    """Any JSON value; containers only while `max_depth` > 0."""
    kinds = VALUE_KINDS if max_depth > 0 else SCALAR_TYPES
    weights = VALUE_WEIGHTS[: len(kinds)]
    kind = choices.draw_weighted(kinds, weights, site=kind_site)
    if kind in ("array", "object") and choices.edge_values:
        edge = edge_values.json_container(choices, kind)
        if edge is not edge_values.NO_EDGE:
            return edge
    if kind == "array":
        return _array(choices, None, max_depth - 1)
    if kind == "object":
        return json_objects(choices, max_depth=max_depth - 1)
    return _scalar(choices, kind)


def _array(choices: Choices, item: object, max_depth: int) -> list[Any]:
    n = choices.draw_geometric(3.0, max_value=50, site="length")
    return [_typed(choices, item, max_depth) for _ in range(n) if fits(choices, 64)]


def _typed(choices: Choices, kind: object, max_depth: int) -> Any:
    """A value of a shape field type (None: any)."""
    if kind is None or kind == "any":
        return json_values(choices, max_depth=max(max_depth, 0))
    if isinstance(kind, str):
        if kind in ("array", "object") and choices.edge_values:
            edge = edge_values.json_container(choices, kind)
            if edge is not edge_values.NO_EDGE:
                return edge
        if kind == "array":
            return _array(choices, None, max_depth - 1) if max_depth > 0 else []
        if kind == "object":
            return json_objects(choices, max_depth=max_depth - 1) if max_depth > 0 else {}
        with choices.scope(labels.JSON_VALUE):
            return _scalar(choices, kind)
    if isinstance(kind, list):
        return _array(choices, kind[0], max_depth - 1)
    return json_objects(choices, shape=kind, max_depth=max_depth - 1)


@generator(labels.JSON_OBJECT)
def json_objects(
    choices: Choices, *, shape: ShapeT | None = None, max_depth: int = 3, extra_p: float = 0.05
) -> dict[str, Any]:
    """An object: free keys, or the fields of `shape` (validated by the caller)."""
    result: dict[str, Any] = {}
    if shape is None and choices.fields and choices.draw_boolean(RECORD_P, site="record?"):
        return _record(choices, choices.fields, max_depth)
    if shape is None:
        n = choices.draw_geometric(3.0, max_value=30, site="size")
        for _ in range(n):
            if not fits(choices, 64):
                break
            key = _key(choices)
            result[key] = json_values(choices, max_depth=max(max_depth, 0))
        return result
    for key, kind in shape.get("required", {}).items():
        if choices.edge_values and edge_values.absent(choices):
            continue  # a producer that left out a field the handler reads
        result[key] = _typed(choices, kind, max_depth)
    for key, kind in shape.get("optional", {}).items():
        if choices.draw_boolean(0.5, site="optional?"):
            result[key] = _typed(choices, kind, max_depth)
    if extra_p and choices.draw_boolean(extra_p, site="extra?"):
        for _ in range(choices.draw_geometric(1.0, min_value=1, max_value=5, site="extras")):
            key = _key(choices)
            if key not in result:
                result[key] = json_values(choices, max_depth=max(max_depth - 1, 0))
    return result


def _record(choices: Choices, names: tuple[str, ...], max_depth: int) -> dict[str, Any]:
    """An object of the code's field names, each present at RECORD_FIELD_P."""
    result: dict[str, Any] = {}
    for name in names:
        if not fits(choices, 64):
            break
        if not choices.draw_boolean(RECORD_FIELD_P, site=RECORD_FIELD_SITE):
            continue
        with choices.keyed(f"{RECORD_VALUE_SITE}{name}"):  # its own indexes (`Choices.keyed`)
            if is_time_name(name) and choices.draw_boolean(DATE_FIELD_P, site="date-field?"):
                # `deliveredAt`, `created_at`: a written date, as producers send it
                result[name] = date_texts(choices, site="date-field")
            elif choices.draw_boolean(RECORD_CONSTANT_P, site=RECORD_CONSTANT_SITE):
                result[name] = _constant(choices)
            elif (
                max_depth > 0
                and is_plural_name(name)
                and choices.draw_boolean(RECORD_LIST_P, site=RECORD_LIST_SITE)
            ):
                result[name] = _records(choices, names)
            else:
                site = "field-kind" if max_depth > 0 else "field-scalar-kind"
                result[name] = json_values(choices, max_depth=max(max_depth, 0), kind_site=site)
    return result


def _records(choices: Choices, names: tuple[str, ...]) -> list[Any]:
    """A list of one or more records of `names` whose values are scalars: line items hold
    quantities, prices and names. Nested further (lists in lists, to the document's
    depth), an order-intake handler's 20-name records made its campaign's inputs cost
    12.7 ms a test to generate instead of 2.5."""
    n = choices.draw_geometric(0.5, min_value=1, max_value=10, site="length")
    found = []
    for _ in range(n):
        if not fits(choices, 64):
            break
        with choices.scope(labels.JSON_OBJECT):
            found.append(_record(choices, names, 0))
    return found


def is_plural_name(name: str) -> bool:
    """Whether a field's name reads as a plural (`lines`, `Items`, `order_lines`,
    `lineItems`): its last word, of four letters or more, ends in `s` (not `ss`, `us` or
    `is`: `address`, `status`, `analysis`)."""
    last = _LAST_WORD.search(name)
    if last is None:
        return False
    word = last.group(0).lower()
    return len(word) >= 4 and word.endswith("s") and not word.endswith(_SINGULAR_ENDINGS)


def _constant(choices: Choices) -> Any:
    """One of the code's constants: a dictionary string, or a number it compares with."""
    if choices.dictionary and (
        not choices.numbers or choices.draw_boolean(RECORD_STRING_P, site="string?")
    ):
        usual = choices.dictionary_p
        choices.dictionary_p = 1.0
        try:
            return encodable(choices.draw_string(STRING_ALPHABET, 0, 20, site=RECORD_WORD_SITE))
        finally:
            choices.dictionary_p = usual
    if choices.numbers:
        return choices.draw_choice(choices.numbers, site=RECORD_NUMBER_SITE)
    return _string(choices)


@generator(labels.JSON_DOCUMENT)
def json_documents(choices: Choices, *, shape: ShapeT | None = None, max_depth: int = 4) -> bytes:
    """A UTF-8 JSON document: an object of `shape` if given, else any value (mostly
    objects and arrays), serialised compactly or indented."""
    if shape is not None:
        validate_shape(shape)
    if not 0 <= max_depth <= 32:
        raise InvalidArgument(f"json_documents: max_depth={max_depth!r} must be within [0, 32]")
    if shape is not None:
        value: Any = json_objects(choices, shape=shape, max_depth=max_depth)
    else:
        top = choices.draw_weighted(("object", "array", "scalar"), (6, 3, 1), site="top")
        if top == "object" and max_depth > 0:
            value = json_objects(choices, max_depth=max_depth - 1)
        elif top == "array" and max_depth > 0:
            value = _array(choices, None, max_depth - 1)
        else:
            value = json_values(choices, max_depth=0)
    indent = choices.draw_choice((None, 2, 4), site="indent")
    ensure_ascii = choices.draw_boolean(0.5, site="ascii?")
    newline = "\n" if choices.draw_boolean(0.5, site="newline?") else ""
    text = json.dumps(value, indent=indent, ensure_ascii=ensure_ascii, allow_nan=False) + newline
    edge = file_edges.draw_edge(choices, "json")
    if edge == "crlf":
        text = file_edges.crlf(text)
    return file_edges.encode_text(choices, text, edge) or text.encode("utf-8")
