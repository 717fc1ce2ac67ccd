"""DynamoDB items: keys obeying the table's key schema, extra attributes of every type.

Items are built in DynamoDB JSON (`{"id": {"S": "a"}}`, binary as base64 text, as on the
wire and in stream events).  A handler that looks an object up by its key only takes the
"found" branch when a table item carries that key, so key values come from three places:
a fresh string, a dictionary constant (inside `draw_string`), or a *local dictionary* of
strings already generated in this world (object keys and their stems), which is the
cheapest way to make an S3 object and a table item line up.

With edge values on, strings and numbers are now and then edge values DynamoDB stores
(`edge_values.dynamodb_string` / `dynamodb_number`: never an empty key), an attribute is
now and then named after a name the code reads (`CODE_NAME_P`), and a number is now and
then one the code compares with (`CODE_NUMBER_WEIGHT`: `Choices.numbers`, the harvest
with its +-1 neighbours), so `if stock < REORDER_LEVEL` meets both sides of 5.

World shapes the code may not expect: given the names the code reads (`Choices.fields`,
`frontier` only), an item now and then holds a *record* of them (`draw_code_fields`):
each present or absent, of a type the code may not expect (a number written as a string
where it does arithmetic, a number where it splits, NULL, BOOL, a list, a map).  A table
with no items is drawn `EMPTY_P` of the time when its `items` range starts at 0, and a
hash key is now and then an object of the world composed as `bucket/key` or
`s3://bucket/key` (`composed`, `world_refs.composed_names`).

Labels: `dynamodb.item` > `dynamodb.key` (key attributes) / `dynamodb.attribute` (each
extra attribute, nested values included).
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import math
import re
import string
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Final

from lambdafuzz import labels
from lambdafuzz.generators import edge_values
from lambdafuzz.generators.aws import item_values
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.dates import datetimes
from lambdafuzz.generators.files.alphabets import encodable
from lambdafuzz.generators.files.budget import fits
from lambdafuzz.model.target import TableSpec
from lambdafuzz.model.world import AttributeValueT, ItemT, KeySchema, Table

KEY_ALPHABET: Final = string.ascii_letters + string.digits + "-_.#"
NAME_ALPHABET: Final = string.ascii_letters + string.digits + "_"
TEXT_ALPHABET: Final = string.ascii_letters + string.digits + " -_.,:/@#'\"éü€日"
#: Every DynamoDB attribute type, in the order the weights below follow.
TYPES: Final = ("S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS")
_WEIGHTS: Final = (3.0, 3.0, 0.7, 1.0, 0.5, 0.8, 0.8, 0.6, 0.6, 0.2)
_LEAF_WEIGHTS: Final = tuple(
    0.0 if t in ("L", "M") else w for t, w in zip(TYPES, _WEIGHTS, strict=True)
)
MAX_DEPTH: Final = 2
#: DynamoDB caps partition keys at 2,048 bytes and sort keys at 1,024.
MAX_HASH_BYTES: Final = 2048
MAX_RANGE_BYTES: Final = 1024
#: With edge values on, the share of attribute names taken from the names the code reads
#: (`code_names`); the dictionary's own share (`dictionary_p`, ~10%, among every constant)
#: names an attribute `stock` once in ~130 attributes for a handler of 13 constants.
CODE_NAME_P: Final = 0.25
#: Probability that a string key attribute takes a value the code looks items up by under
#: that attribute's name (`code_key`), when it names any.
CODE_KEY_P: Final = 0.5
#: The weight of a number the code compares with among a number's sources (the others sum
#: to 1.15): about one number in nine when the harvest has numbers (`frontier` only).
CODE_NUMBER_WEIGHT: Final = 0.15
#: How often an item carries each index key attribute of its table (`Table.indexes`): an
#: item without it is not in the index, so a query on the index finds the others.
INDEX_KEY_P: Final = 0.85
#: A table whose `items` range starts at 0 (and goes higher) is empty this often, on top
#: of the range's own share of 0: a lookup that finds nothing, a scan of nothing.
EMPTY_P: Final = 0.1
#: A string hash key is an object of the world (`bucket/key`, `s3://bucket/key`) this often.
COMPOSED_P: Final = 0.15
#: An item holds a record of the names the code reads this often, each name present at
#: `CODE_FIELD_P` when it reads `MAX_CODE_FIELDS` names or fewer, less often when it reads
#: more (8 attributes an item on average: a few hundred bytes), the first `MAX_CODE_NAMES`
#: names considered (a single-table app's layer reads ~70: the first 16 left the item
#: types read by the later names without their attributes).
CODE_FIELDS_P: Final = 0.4
CODE_FIELD_P: Final = 0.5
MAX_CODE_FIELDS: Final = 16
MAX_CODE_NAMES: Final = 64
#: The types of such an attribute: `S#` is a number written as a string (`{"S": "12.5"}`),
#: what an item written by another client holds where the code does arithmetic; a set
#: where it expects a list or a number.
CODE_FIELD_TYPES: Final = ("S", "S#", "N", "BOOL", "NULL", "L", "M", "SS", "NS")
_CODE_FIELD_WEIGHTS: Final = (2.0, 1.0, 2.0, 0.5, 0.5, 1.0, 0.5, 0.25, 0.25)
#: A string such attribute is one of the code's value constants this often
#: (`item_values.value_constants`: `item["status"] == "complete"`), and a list one of one
#: type, now and then with an intruder (`item_values.draw_one_type_list`), this often.
CODE_VALUE_P: Final = 0.5
ONE_TYPE_LIST_P: Final = 0.5
#: (Cost, with the sets above: 400 inputs of an 11-field handler make 922k calls, 910k
#: before; tables' JSON 1-5% bigger on three real handlers.)
#: A string key attribute starts with one of the code's key prefixes this often, when no
#: value the code looks items up by was drawn (`code_key`).
KEY_PREFIX_P: Final = 0.25
#: An item's string hash key is an earlier item's string range key value this often (an
#: adjacency list: the item a line points to, `pk = line's sk`; `draw_table`).
RELATED_P: Final = 0.2
#: ... and this often when its range key is one the code looks items up by (`Key={"pk":
#: line, "sk": "TOTAL"}`: the record of an entity another item names by its sort key).
ENTITY_P: Final = 0.5
#: Identifier-like constants: the attribute names a handler may read (`image["stock"]`).
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")


# --------------------------------------------------------------------------- scalars
def draw_string_value(
    choices: Choices, local: Sequence[str] = (), *, min_size: int = 0, key: bool = False
) -> str:
    """A string: reused from `local`, an ISO date (labelled datetime), or fresh/dictionary;
    with edge values on, now and then an edge string (never an empty key or set member)."""
    if choices.edge_values:
        strict = key or min_size > 0
        edge = edge_values.dynamodb_string(choices, key=strict, max_bytes=MAX_HASH_BYTES)
        if edge is not None:
            return edge if len(edge) >= min_size else edge + "x" * (min_size - len(edge))
    options = ("local", "date", "fresh")
    source = choices.draw_weighted(options, (0.3 if local else 0.0, 0.1, 0.6), site="source")
    if source == "local":
        value = encodable(choices.draw_choice(local, site="reuse"))
    elif source == "date":
        moment = datetimes(choices, site="date")
        as_date = choices.draw_boolean(0.5, site="date-only?")
        value = moment.date().isoformat() if as_date else moment.isoformat()
    else:
        alphabet = KEY_ALPHABET if key else TEXT_ALPHABET
        value = encodable(choices.draw_string(alphabet, min_size, 16, site="text"))
    return value if len(value) >= min_size else value + "x" * (min_size - len(value))


def code_key(choices: Choices, name: str | None) -> str | None:
    """With probability `CODE_KEY_P`, a value the code looks items up by under attribute
    `name` (`Choices.key_values`): as it is, or half the time as a prefix with a tail (a
    `begins_with` finds it; so does an exact lookup of the other half).  Otherwise (edge
    values on) at `KEY_PREFIX_P` one of the code's key prefixes with an id
    (`item_values.key_prefixes`: `keys["sk"].startswith("ORDER#")` held in 2 of 1,000
    worlds before).  None otherwise, and nothing drawn when the code names neither.  A
    single-table design's `get_item(Key={"PK": id, "SK": "NAME#"})` found no item in 2,000
    executions before."""
    values = [v for attribute, v in choices.key_values if attribute == name] if name else []
    if not values or not choices.draw_boolean(CODE_KEY_P, site="code-key?"):
        prefixes = item_values.key_prefixes(choices) if choices.edge_values else ()
        if prefixes and choices.draw_boolean(KEY_PREFIX_P, site="key-prefix?"):
            return item_values.draw_prefixed_key(choices, prefixes)
        return None
    value = choices.draw_choice(values, site="code-key")
    if choices.draw_boolean(0.5, site="code-key-prefix?"):
        value += encodable(choices.draw_string(KEY_ALPHABET, 1, 12, site="code-key-tail")) or "x"
    return value


def draw_number(choices: Choices, local: Sequence[str] = (), *, key: bool = False) -> str:
    """A DynamoDB number in canonical form: an integer, a decimal, a reused numeric string
    or an epoch timestamp (labelled datetime); with edge values on, now and then an edge
    number DynamoDB stores (huge, 38 digits, fractional, negative, zero; keys: no huge or
    38-digit ones)."""
    if choices.edge_values:
        edge = edge_values.dynamodb_number(choices, key=key)
        if edge is not None:
            return edge
    numeric = [s for s in local if _is_number(s)]
    code = code_numbers(choices.numbers) if choices.edge_values else ()
    options = ("local", "epoch", "small", "large", "decimal", "code")
    weights = (0.3 if numeric else 0.0, 0.1, 0.4, 0.15, 0.2, CODE_NUMBER_WEIGHT if code else 0.0)
    source = choices.draw_weighted(options, weights, site="number-kind")
    if source == "local":
        return canonical(Decimal(choices.draw_choice(numeric, site="reuse")))
    if source == "code":
        return choices.draw_choice(code, site="code")
    if source == "epoch":
        return str(int(datetimes(choices, site="epoch").timestamp()))
    if source == "small":
        return str(choices.draw_integer(-100, 1000, site="int"))
    if source == "large":
        return str(choices.draw_integer(-(10**12), 10**12, site="int"))
    whole = choices.draw_integer(-10_000, 10_000, site="whole")
    fraction = choices.draw_integer(0, 9999, site="fraction")
    return canonical(Decimal(f"{whole}.{fraction:04d}"))


def code_numbers(numbers: Sequence[int | float]) -> tuple[str, ...]:
    """The numbers the code compares with that DynamoDB stores, canonical, in order (an
    empty tuple without a harvest, so the paper strategies draw as before)."""
    if not numbers:
        return ()
    cached = _CODE_NUMBERS.get(id(numbers))
    if cached is not None and cached[0] is numbers:
        return cached[1]
    found: dict[str, None] = {}
    for n in numbers:
        if isinstance(n, int) or (isinstance(n, float) and math.isfinite(n)):
            text = canonical(Decimal(str(n)))
            if _is_number(text):
                found[text] = None
    _CODE_NUMBERS.clear()
    _CODE_NUMBERS[id(numbers)] = (numbers, tuple(found))
    return tuple(found)


#: The last harvest's storable numbers: a campaign passes one `numbers` tuple to every
#: input's `Choices`, so it is converted once, not per number drawn (200 numbers: 718 us
#: converted, 0.18 us cached; timeit, best of 3).  Keyed and checked by identity.
_CODE_NUMBERS: dict[int, tuple[Sequence[int | float], tuple[str, ...]]] = {}


def code_names(choices: Choices) -> tuple[str, ...]:
    """The identifier-like dictionary constants: the attribute names the code may read."""
    dictionary = choices.dictionary
    cached = _CODE_NAMES.get(id(dictionary))
    if cached is not None and cached[0] is dictionary:
        return cached[1]
    found = tuple(c for c in dictionary if _NAME.fullmatch(c) and not c.isdigit())
    _CODE_NAMES.clear()
    _CODE_NAMES[id(dictionary)] = (dictionary, found)
    return found


#: The last dictionary's names, cached as `_CODE_NUMBERS` is (950 constants: 357 us a
#: scan, 0.17 us cached, per attribute name).
_CODE_NAMES: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _is_number(text: str) -> bool:
    """Whether DynamoDB accepts `text` as a number: 38 significant digits, magnitude
    within 1E-130 .. 9.99E+125 (a reused "1e999999" would otherwise blow up)."""
    try:
        value = Decimal(text)
    except ArithmeticError:
        return False
    if not value.is_finite() or text.strip() != text:
        return False
    return value == 0 or (-130 <= value.adjusted() <= 125 and len(value.as_tuple().digits) <= 38)


def canonical(value: Decimal) -> str:
    """How DynamoDB returns a number: no exponent, no trailing zeros after the point."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


def draw_binary(choices: Choices, local: Sequence[str] = (), *, min_size: int = 0) -> str:
    """Base64 text of raw bytes, or of a reused string's UTF-8."""
    if local and choices.draw_boolean(0.3, site="reuse?"):
        data = encodable(choices.draw_choice(local, site="reuse")).encode()
    else:
        data = choices.draw_bytes(min_size, 16, site="bytes")
    return base64.b64encode(data.ljust(min_size, b"\0")).decode()


# --------------------------------------------------------------------------- attributes
@generator(labels.DYNAMODB_KEY)
def draw_key_value(
    choices: Choices,
    key_type: str,
    local: Sequence[str] = (),
    *,
    max_bytes: int = MAX_HASH_BYTES,
    name: str | None = None,
) -> AttributeValueT:
    """A key attribute value of `key_type` (S, N or B); never empty.  A string key named
    `name` is now and then one the code looks items up by (`code_key`)."""
    if key_type == "S":
        value = code_key(choices, name) or draw_string_value(choices, local, min_size=1, key=True)
        while len(value.encode()) > max_bytes:
            value = value[: len(value) // 2] or "x"
        return {"S": value}
    if key_type == "N":
        return {"N": draw_number(choices, local, key=True)}
    return {"B": draw_binary(choices, local, min_size=1)}


@generator(None)
def draw_value(choices: Choices, local: Sequence[str] = (), depth: int = 0) -> AttributeValueT:
    """Any attribute value; lists and maps nest at most `MAX_DEPTH` deep."""
    weights = _WEIGHTS if depth < MAX_DEPTH else _LEAF_WEIGHTS
    kind = choices.draw_weighted(TYPES, weights, site="type")
    return draw_typed_value(choices, kind, local, depth)


def draw_typed_value(
    choices: Choices, kind: str, local: Sequence[str] = (), depth: int = 0
) -> AttributeValueT:
    """An attribute value of type `kind` (one of TYPES)."""
    match kind:
        case "S":
            return {"S": draw_string_value(choices, local)}
        case "N":
            return {"N": draw_number(choices, local)}
        case "B":
            return {"B": draw_binary(choices, local)}
        case "BOOL":
            return {"BOOL": choices.draw_boolean(site="bool")}
        case "NULL":
            return {"NULL": True}
        case "L":
            n = choices.draw_geometric(1.5, max_value=5, site="length")
            return {"L": [draw_value(choices, local, depth + 1, site="element") for _ in range(n)]}
        case "M":
            n = choices.draw_geometric(1.5, max_value=5, site="length")
            fields = {}
            for _ in range(n):
                name = draw_attribute_name(choices)
                fields[name] = draw_value(choices, local, depth + 1, site="field")
            return {"M": fields}
    return _draw_set(choices, kind, local)


def _draw_set(choices: Choices, kind: str, local: Sequence[str]) -> AttributeValueT:
    """SS / NS / BS: non-empty, no duplicates (numbers compared by value)."""
    n = choices.draw_integer(1, 4, site="size")
    members: dict[object, str] = {}
    for _ in range(n):
        if kind == "SS":
            text = draw_string_value(choices, local, min_size=1)
            members[text] = text
        elif kind == "NS":
            number = draw_number(choices, local)
            members[Decimal(number)] = number
        else:
            blob = draw_binary(choices, local, min_size=1)
            members[blob] = blob
    return {kind: list(members.values())}


def draw_attribute_name(choices: Choices) -> str:
    """An attribute name: 1 to 12 characters, or a dictionary constant (cut to 255); with
    edge values on, at `CODE_NAME_P` a name the code reads (`code_names`)."""
    if choices.edge_values:
        names = code_names(choices)
        if names and choices.draw_boolean(CODE_NAME_P, site="code-name?"):
            return choices.draw_choice(names, site="code-name")
    name = encodable(choices.draw_string(NAME_ALPHABET, 1, 12, site="name"))
    return name[:255] or "a"


@generator(labels.DYNAMODB_ATTRIBUTE)
def draw_attribute(choices: Choices, local: Sequence[str] = ()) -> tuple[str, AttributeValueT]:
    return draw_attribute_name(choices), draw_value(choices, local)


# --------------------------------------------------------------------------- items
def item_key(item: ItemT, schema: KeySchema) -> tuple[str, ...]:
    """The primary key of `item` as a hashable tuple (type tag and value per attribute)."""
    names = (
        (schema.hash_name,) if schema.range_name is None else (schema.hash_name, schema.range_name)
    )
    out: list[str] = []
    for name in names:
        ((tag, value),) = item[name].items()
        out.append(f"{tag}:{canonical(Decimal(value)) if tag == 'N' else value}")
    return tuple(out)


def key_only(item: ItemT, schema: KeySchema) -> ItemT:
    """`Keys` of a stream record: just the key attributes."""
    names = [schema.hash_name] + ([schema.range_name] if schema.range_name else [])
    return {name: item[name] for name in names}


@generator(labels.DYNAMODB_ITEM)
def draw_item(
    choices: Choices,
    schema: KeySchema,
    local: Sequence[str] = (),
    taken: set[tuple[str, ...]] | None = None,
    *,
    index_keys: Sequence[tuple[str, str]] = (),
    attributes: Sequence[tuple[str, str]] = (),
    composed: Sequence[str] = (),
    related: Sequence[str] = (),
) -> ItemT:
    """An item with the schema's key (unique against `taken`, which it joins), mostly the
    key attributes of the table's indexes (`index_keys`: (name, type) of those that are no
    table key, `Table.index_key_types`), the attributes every item holds (`attributes`:
    (name, type), `Table.attributes`), now and then a record of the names the code reads
    (`draw_code_fields`) and extras.  A string hash key is now and then one of `composed`,
    or at `RELATED_P` one of `related` (earlier items' range key values, `draw_table`), at
    `ENTITY_P` when its range key is a value the code looks items up by."""
    strings = choices.edge_values and schema.hash_type == "S"
    if composed and strings and choices.draw_boolean(COMPOSED_P, site="composed?"):
        hash_value = {"S": choices.draw_choice(composed, site="composed")}
    elif related and strings and choices.draw_boolean(RELATED_P, site="related?"):
        hash_value = {"S": choices.draw_choice(related, site="related")}
    else:
        hash_value = draw_key_value(
            choices, schema.hash_type, local, name=schema.hash_name, site="hash"
        )
    item: ItemT = {schema.hash_name: hash_value}
    if schema.range_name is not None and schema.range_type is not None:
        item[schema.range_name] = draw_key_value(
            choices,
            schema.range_type,
            local,
            max_bytes=MAX_RANGE_BYTES,
            name=schema.range_name,
            site="range",
        )
        if (
            related
            and strings
            and (schema.range_name, item[schema.range_name].get("S")) in choices.key_values
            and choices.draw_boolean(ENTITY_P, site="entity?")
        ):
            item[schema.hash_name] = {"S": choices.draw_choice(related, site="entity")}
    if taken is not None:
        _make_unique(item, schema, taken)
        taken.add(item_key(item, schema))
    for name, key_type in index_keys:
        if choices.draw_boolean(INDEX_KEY_P, site="index-key?"):
            item[name] = draw_key_value(choices, key_type, local, name=name, site="index-key")
    index_types = dict(index_keys)
    item.update(draw_always(choices, attributes, item, local, index_types=index_types))
    reserved = [*index_types, *(n for n, _ in attributes)]
    item.update(draw_code_fields(choices, item, local, reserved=reserved))
    item.update(draw_extras(choices, schema, local, reserved=[*reserved, *item]))
    return item


def draw_code_fields(
    choices: Choices, item: ItemT, local: Sequence[str] = (), *, reserved: Sequence[str] = ()
) -> ItemT:
    """At `CODE_FIELDS_P`, attributes named as the code reads its records (`Choices.fields`)
    that `item` lacks (and not `reserved`: index keys and declared attributes keep their
    types): each present at `CODE_FIELD_P` (scaled down past `MAX_CODE_FIELDS` names), of
    a type from `CODE_FIELD_TYPES`.  Nothing is
    drawn without such names."""
    names = [n for n in choices.fields[:MAX_CODE_NAMES] if n not in item and n not in reserved]
    if not names or not choices.draw_boolean(CODE_FIELDS_P, site="code-fields?"):
        return {}
    present_p = CODE_FIELD_P * min(1.0, MAX_CODE_FIELDS / len(names))
    found: ItemT = {}
    for name in names:
        with choices.keyed(f"code-field:{name}"):
            if not choices.draw_boolean(present_p, site="present?"):
                continue
            with choices.scope(labels.DYNAMODB_ATTRIBUTE, site="code-field"):
                kind = choices.draw_weighted(CODE_FIELD_TYPES, _CODE_FIELD_WEIGHTS, site="type")
                found[name] = draw_code_field_value(choices, kind, local)
    return found


def draw_code_field_value(
    choices: Choices, kind: str, local: Sequence[str] = ()
) -> AttributeValueT:
    """A value of `kind` (one of `CODE_FIELD_TYPES`) for an attribute the code reads: a
    string is at `CODE_VALUE_P` one of the code's value constants, a list at
    `ONE_TYPE_LIST_P` one of one type (an intruder now and then)."""
    if kind == "S#":
        return {"S": draw_number(choices, local)}
    if kind == "S":
        constants = item_values.value_constants(choices)
        if constants and choices.draw_boolean(CODE_VALUE_P, site="code-value?"):
            return {"S": choices.draw_choice(constants, site="code-value")}
    if kind == "L" and choices.draw_boolean(ONE_TYPE_LIST_P, site="one-type?"):
        scalar = functools.partial(_draw_element, choices, local)
        return item_values.draw_one_type_list(choices, scalar)
    return draw_typed_value(choices, kind, local, depth=1)


def _draw_element(choices: Choices, local: Sequence[str], kind: str) -> AttributeValueT:
    with choices.scope(labels.DYNAMODB_ATTRIBUTE, site="element"):
        return draw_typed_value(choices, kind, local, depth=MAX_DEPTH)


def draw_always(
    choices: Choices,
    attributes: Sequence[tuple[str, str]],
    item: ItemT,
    local: Sequence[str] = (),
    *,
    index_types: Mapping[str, str] | None = None,
) -> ItemT:
    """The `attributes` (name, type) `item` lacks, drawn of their types: what the table's
    writers always set (an index key among them is drawn as a key: never empty)."""
    found: ItemT = {}
    for name, kind in attributes:
        if name in item:
            continue
        if index_types and name in index_types:
            found[name] = draw_key_value(choices, kind, local, name=name, site="always")
        else:
            with choices.scope(labels.DYNAMODB_ATTRIBUTE, site="always"):
                found[name] = draw_typed_value(choices, kind, local)
    return found


def draw_extras(
    choices: Choices, schema: KeySchema, local: Sequence[str] = (), *, reserved: Sequence[str] = ()
) -> ItemT:
    """Non-key attributes: a geometric number of them, names distinct from the key's and
    from `reserved` (index keys, which must keep their type)."""
    reserved = {schema.hash_name, schema.range_name, *reserved}
    extras: ItemT = {}
    for _ in range(choices.draw_geometric(2.0, max_value=10, site="extras")):
        name, value = draw_attribute(choices, local, site="attribute")
        if name not in reserved and name not in extras:
            extras[name] = value
    return extras


def _make_unique(item: ItemT, schema: KeySchema, taken: set[tuple[str, ...]]) -> None:
    """Bump the last key attribute deterministically until the key is new (no redraw, so a
    collision never shifts the draws after it)."""
    name = schema.range_name or schema.hash_name
    original = item[name]
    n = 1
    while item_key(item, schema) in taken:
        n += 1
        ((tag, value),) = original.items()
        if tag == "S":
            item[name] = {"S": f"{value}-{n}"}
        elif tag == "N":
            item[name] = {"N": canonical(Decimal(value) + n - 1)}
        else:
            raw = base64.b64decode(value) + n.to_bytes(4, "big")
            item[name] = {"B": base64.b64encode(raw).decode()}


@generator(None)
def draw_table(
    choices: Choices,
    spec: TableSpec,
    local: Sequence[str] = (),
    *,
    min_items: int = 0,
    max_items: int = 0,
    composed: Sequence[str] = (),
) -> Table:
    """The table's items; the bounds widen to `min_items`/`max_items` (the records a stream
    event needs) when the config's `items` range is narrower; none at `EMPTY_P` when they
    start at 0 (edge values on).  `composed`: object names a string hash key may be
    (`draw_item`).  With edge values on and string keys, an item's hash key is now and then
    an earlier item's range key value (`related`: the running total of a cart line, the
    profile a membership points to, stored under the line's sort key)."""
    low = max(spec.items_min, min_items)
    high = max(spec.items_max, max_items, low)
    if choices.edge_values and low == 0 < high and choices.draw_boolean(EMPTY_P, site="empty?"):
        n = 0
    else:
        n = choices.draw_integer(low, high, site="items")
    taken: set[tuple[str, ...]] = set()
    items = []
    table = Table(
        spec.name,
        spec.key_schema,
        stream=spec.stream,
        indexes=spec.indexes,
        attributes=spec.attributes,
    )
    index_keys = tuple(table.index_key_types().items())
    schema = spec.key_schema
    adjacency = choices.edge_values and schema.hash_type == "S" and schema.range_type == "S"
    related: list[str] = []
    for i in range(n):
        if i >= low and not fits(choices, 200):
            break
        item = draw_item(
            choices,
            spec.key_schema,
            local,
            taken,
            index_keys=index_keys,
            attributes=spec.attributes,
            composed=composed,
            related=related,
            site="item",
        )
        items.append(item)
        if adjacency and schema.range_name is not None:
            related.append(item[schema.range_name]["S"])
    return dataclasses.replace(table, items=tuple(items))
