"""Edge values: the scalar and structure values that break real handlers, now and then.

Random values rarely hit what real Lambda handlers trip over: a JSON number that
`json.loads` makes a float (boto3 refuses floats for DynamoDB), an integer of 40 digits
(DynamoDB keeps 38), `"1e309"` or `"NaN"` as text, an empty or whitespace-only string, a
64 KiB string, combining marks or a NUL, `"false"` as text, a list where an object was, a
field left out, an S3 key with spaces, `+` or `%20` in it.  Each *value site* of a generator
(a JSON integer, a DynamoDB string, an object key, ...) asks `draw_edge` once: one recorded
draw (a float in [0, 1), as `draw_weighted` records it) picks no edge value, or one of the
site's classes with that class's documented rate; the chosen class's value is then drawn
through `Choices` too.  So edge values are replayed, mutated (a `Changed` selector moves to
an edge class in proportion to the rates, and back) and targeted: a selector draw sits at
the call site `edge:<site>` with the labels of the value it may replace, a chosen value's
draws carry `edge.<class>`.

Only when `choices.edge_values` is set (the `frontier` strategy): otherwise no site draws
anything, so generation and its recording are exactly what they were (the paper's
strategies stay clean).  The rates are per site draw; `SITE_RATES` lists them per site
kind, and the tests measure each one.
"""

from __future__ import annotations

import bisect
import enum
import itertools
import random
import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz.generators.constraints import float_constraints
from lambdafuzz.generators.core import Choices

#: The prefix of edge values' labels (`edge.<class>`, the draws of a chosen value).
EDGE_LABEL: Final = "edge"
#: The prefix of the selector draws' call sites (`edge:json-integer`, ...).
EDGE_SITE_PREFIX: Final = "edge:"


class EdgeClass(enum.StrEnum):
    """The classes of values real handlers break on (issue 16's list, scalar and structure)."""

    # numbers
    FLOAT = "float"  # a Python float with a fraction (or `1.0`) where an integer was
    HUGE = "huge"  # beyond int64 (up to 38 digits in DynamoDB), or 1e300 as a float
    NEGATIVE = "negative"
    ZERO = "zero"  # 0, 0.0, -0.0
    NON_FINITE = "non-finite"  # "NaN", "Infinity", "1e309" as text
    PRECISION = "precision"  # over 38 significant digits (at 38 where the store caps it)
    # strings
    EMPTY = "empty"
    BLANK = "blank"  # whitespace only
    LONG = "long"  # over a handler's or a service's limit (1 KiB keys, 64 KiB+)
    UNICODE = "unicode"  # combining marks, right-to-left, emoji, NUL, BOM
    LITERAL = "literal"  # "True", "false", "null", "None" as text
    # structure
    CONFUSED = "confused"  # a value of another type than the site's
    ABSENT = "absent"  # a field or attribute left out
    NOT_JSON = "not-json"  # a message body that is not JSON where JSON was
    KEY_NAME = "key-name"  # an object key with spaces, `+`, `%`, unicode, no extension, deep prefix
    DELETED = "deleted"  # an EventBridge "Object Deleted" event: the object is gone

    @property
    def label(self) -> str:
        """The label of this class's value draws (what type targeting can find)."""
        return f"{EDGE_LABEL}.{self.value}"


E = EdgeClass

# --------------------------------------------------------------------------- rates
# Per site draw.  A JSON body of ~10 scalar sites meets some edge value in ~1 of 2 bodies
# at these rates (most bodies keep their main path), and a campaign of 3000 executions
# meets each class hundreds of times.
#: A JSON integer or number.
NUMBER_RATES: Final = {
    E.FLOAT: 0.01,
    E.HUGE: 0.008,
    E.NEGATIVE: 0.008,
    E.ZERO: 0.008,
    E.NON_FINITE: 0.005,
    E.PRECISION: 0.005,
    E.CONFUSED: 0.008,
}
#: A JSON string (and ISO dates).
STRING_RATES: Final = {
    E.EMPTY: 0.01,
    E.BLANK: 0.005,
    E.LONG: 0.004,
    E.UNICODE: 0.008,
    E.LITERAL: 0.008,
    E.NON_FINITE: 0.003,
    E.PRECISION: 0.003,  # a number held as text ("price": "12.50"), past 38 digits
    E.CONFUSED: 0.008,
}
#: A JSON boolean or null.
OTHER_SCALAR_RATES: Final = {E.LITERAL: 0.02, E.CONFUSED: 0.02}
#: A JSON array or object: the other container, or a scalar; or empty (`items[0]`, a mean
#: over no values).
CONTAINER_RATES: Final = {E.CONFUSED: 0.02, E.EMPTY: 0.02}
#: A required field of an object shape, a top-level field of an EventBridge detail.
FIELD_RATES: Final = {E.ABSENT: 0.02}
#: A DynamoDB number attribute (only numbers DynamoDB stores: at most 38 digits).
DYNAMODB_NUMBER_RATES: Final = {
    E.FLOAT: 0.01,
    E.HUGE: 0.008,
    E.NEGATIVE: 0.008,
    E.ZERO: 0.008,
    E.PRECISION: 0.008,
}
#: A DynamoDB key number: no huge or 38-digit keys (a key's uniqueness bump would round).
DYNAMODB_KEY_NUMBER_RATES: Final = {E.FLOAT: 0.01, E.NEGATIVE: 0.01, E.ZERO: 0.01}
#: A DynamoDB string attribute.
DYNAMODB_STRING_RATES: Final = {
    E.EMPTY: 0.01,
    E.BLANK: 0.005,
    E.LONG: 0.004,
    E.UNICODE: 0.008,
    E.LITERAL: 0.008,
    E.NON_FINITE: 0.004,
}
#: A DynamoDB key string or set member: never empty (DynamoDB refuses it), long only up
#: to the key's byte limit.
DYNAMODB_KEY_STRING_RATES: Final = {
    E.BLANK: 0.008,
    E.LONG: 0.005,
    E.UNICODE: 0.01,
    E.LITERAL: 0.008,
}
#: A MODIFY record's OldImage: the NewImage with one attribute left out or retyped.
IMAGE_RATES: Final = {E.ABSENT: 0.03, E.CONFUSED: 0.03}
#: An S3 object key.
KEY_RATES: Final = {E.KEY_NAME: 0.05}
#: A JSON message body (SQS, SNS, Kinesis) without a filter on the body.
BODY_RATES: Final = {E.NOT_JSON: 0.03}
#: An EventBridge S3 event whose rule admits both "Object Created" and "Object Deleted"
#: (a rule admitting only deletions gets only deletions).
DELETED_RATES: Final = {E.DELETED: 0.1}

#: Every site kind's rates, by name (the README's table and the tests read this).
SITE_RATES: Final[Mapping[str, Mapping[EdgeClass, float]]] = {
    "json-number": NUMBER_RATES,
    "json-string": STRING_RATES,
    "json-bool-null": OTHER_SCALAR_RATES,
    "json-container": CONTAINER_RATES,
    "json-field": FIELD_RATES,
    "dynamodb-number": DYNAMODB_NUMBER_RATES,
    "dynamodb-key-number": DYNAMODB_KEY_NUMBER_RATES,
    "dynamodb-string": DYNAMODB_STRING_RATES,
    "dynamodb-key-string": DYNAMODB_KEY_STRING_RATES,
    "stream-old-image": IMAGE_RATES,
    "s3-key": KEY_RATES,
    "message-body": BODY_RATES,
    "eventbridge-s3": DELETED_RATES,
}


@dataclass(slots=True, frozen=True)
class _Menu:
    """A site kind's options (None first: no edge value), their weights and the upper
    bounds of their shares of [0, 1), built once."""

    options: tuple[EdgeClass | None, ...]
    weights: tuple[float, ...]
    bounds: tuple[float, ...]

    def pick(self, fraction: float) -> EdgeClass | None:
        return self.options[min(bisect.bisect_right(self.bounds, fraction), len(self.options) - 1)]

    def other(self, rng: random.Random, old: float) -> float:
        """A fraction landing on another option than `old`'s, as likely as its weight (a
        mutated selector that took no edge value takes one, and back)."""
        was = min(bisect.bisect_right(self.bounds, old), len(self.options) - 1)
        others = [i for i in range(len(self.options)) if i != was]
        i = rng.choices(others, [self.weights[j] for j in others])[0]
        low = self.bounds[i - 1] if i else 0.0
        return low + rng.random() * (self.bounds[i] - low)


def _menu(rates: Mapping[EdgeClass, float]) -> _Menu:
    total = sum(rates.values())
    assert 0 < total < 1, rates
    weights = (1.0 - total, *rates.values())
    return _Menu((None, *rates), weights, tuple(itertools.accumulate(weights)))


_MENUS: Final = {id(rates): _menu(rates) for rates in SITE_RATES.values()}
#: A rates table's site kind (its `SITE_RATES` name): the call site of its selectors, so a
#: mutator can read which classes a recorded selector offers (`class_fractions`).
_SITE_KINDS: Final = {id(rates): kind for kind, rates in SITE_RATES.items()}
_UNIT: Final = float_constraints(0.0, 1.0)


def _fresh_unit(rng: random.Random, _constraints: object) -> float:
    return rng.random()


def draw_edge(
    choices: Choices, rates: Mapping[EdgeClass, float], *, site: str = "site"
) -> EdgeClass | None:
    """Which edge class this site takes (None: none), by `rates`; no draw at all (None)
    when edge values are off.  Recorded as a fraction of [0, 1), as `draw_weighted`
    records its choice, at the call site `edge:<kind>` (`kind`: the rates' name in
    `SITE_RATES`; `site` for other tables) in the caller's frame (so it carries the
    labels of the value it may replace: targeting `json.value` or `dynamodb.item` moves
    these selectors too).

    Speed (timeit, 50k draws, best of 5, loaded 2-core machine): `draw_weighted` in a
    frame of its own cost 19 us a site, which made contracts' generation 1.14-1.22x
    slower with edge values on; the replay step called directly with a prebuilt menu,
    without a frame, costs 2.5 us (a plain `draw_float` 3.2 us).  A `MINIMAL` selector
    (0.0) takes no edge value, so minimization drops them."""
    if not choices.edge_values:
        return None
    menu = _MENUS.get(id(rates)) or _menu(rates)
    site = _SITE_KINDS.get(id(rates), site)
    fraction = choices._draw(_UNIT, _fresh_unit, EDGE_SITE_PREFIX + site, other=menu.other)
    return menu.pick(fraction)


def class_shares(call_site: str) -> dict[EdgeClass | None, tuple[float, float]]:
    """For a recorded selector's call site (`edge:<site kind>`): the share [low, high) of
    [0, 1) that picks each of its options (None: no edge value); empty for a site this
    version does not know.  What lets a mutator try every class of a site in turn
    (`fuzzer.frontier`) instead of waiting for a rare one."""
    rates = SITE_RATES.get(call_site.removeprefix(EDGE_SITE_PREFIX))
    if rates is None:
        return {}
    menu = _MENUS[id(rates)]
    lows = (0.0, *menu.bounds[:-1])
    return {
        option: (low, high)
        for option, low, high in zip(menu.options, lows, menu.bounds, strict=True)
    }


# --------------------------------------------------------------------------- values
FRACTIONS: Final = (0.5, 0.1, 0.25, 0.0, 0.999, 0.3333333333333333)
HUGE_NUMBERS: Final = (
    2**63,
    -(2**63) - 1,
    2**64,
    10**126,
    -(10**126),
    10**200,
    1e300,
    -1.7976931348623157e308,
)
ZEROS: Final = (0, 0.0, -0.0)
NON_FINITE_TEXTS: Final = ("NaN", "Infinity", "-Infinity", "1e309", "-1e309", "nan", "inf")
BLANKS: Final = (" ", "   ", "\t", "\n", " \r\n ", "\u00a0", "\u3000", "\u2003")
#: Sizes (characters of ASCII, so also bytes) over common limits: 255 names, 1 KiB S3 keys
#: and sort keys, 2 KiB partition keys, 4 KiB, 64 KiB.
LONG_SIZES: Final = (256, 1025, 2049, 4097, 65_537)
UNICODE_TEXTS: Final = (
    "Cafe\u0301",  # combining acute accent (NFD)
    "\u202eevil.exe",  # right-to-left override
    "\u05e9\u05dc\u05d5\u05dd",  # Hebrew
    "\u0645\u0631\u062d\u0628\u0627",  # Arabic
    "\U0001f600\U0001f44d\U0001f3fd",  # emoji, skin tone modifier
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # ZWJ sequence
    "a\x00b",  # NUL
    "\ufeffbom",  # a byte order mark inside text
    "\u65e5\u672c\u8a9e",  # CJK
    "Z\u0351\u0359\u0322a\u0364\u033a",  # stacked combining marks
)
LITERAL_TEXTS: Final = (
    "True",
    "False",
    "true",
    "false",
    "null",
    "None",
    "NULL",
    "undefined",
    "0",
    "1",
    "yes",
    "no",
)
#: Key stems S3 encodes (and handlers decode) in ways handlers get wrong.
KEY_STEMS: Final = (
    "my file (1)",
    "a+b",
    "100%25 done",
    "a%20b",
    "q&a=1;x,y@z$",
    "caf\u00e9",
    "Cafe\u0301",
    "\U0001f4f7 photo",
    "\u5199\u771f",
    "  leading space",
)
KEY_FORMS: Final = ("stem", "no-extension", "deep-prefix", "no-prefix")
DEEP_PREFIX: Final = "a/b/c/d/e/f/"
#: Bodies that are not JSON (or not a JSON object), as producers really send them.
NOT_JSON_BODIES: Final = (
    "hello",
    "{'id': 1}",
    '{"id": 1',
    "null",
    "[]",
    '"text"',
    "True",
    "id=1&name=a",
    "<msg>1</msg>",
    "\ufeff{}",
)
_LONG_CHARS: Final = string.ascii_letters + string.digits


def _long_text(choices: Choices, max_bytes: int | None = None) -> str:
    sizes = LONG_SIZES if max_bytes is None else tuple(s for s in LONG_SIZES if s <= max_bytes)
    size = choices.draw_choice(sizes or (max_bytes or 1,), site="size")
    unit = choices.draw_string(_LONG_CHARS, 1, 8, use_dictionary=False, site="unit") or "x"
    return (unit * (size // len(unit) + 1))[:size]


def _number(choices: Choices, cls: EdgeClass) -> Any:
    """A JSON number (or, NON_FINITE, text) of class `cls`."""
    if cls is E.FLOAT:
        whole = choices.draw_integer(-1000, 1000, site="whole")
        return whole + choices.draw_choice(FRACTIONS, site="fraction")
    if cls is E.HUGE:
        return choices.draw_choice(HUGE_NUMBERS, site="huge")
    if cls is E.NEGATIVE:
        return -choices.draw_geometric(100.0, min_value=1, max_value=10**9, site="magnitude")
    if cls is E.ZERO:
        return choices.draw_choice(ZEROS, site="zero")
    if cls is E.NON_FINITE:
        return choices.draw_choice(NON_FINITE_TEXTS, site="text")
    # PRECISION: an integer of 39 to 46 digits (JSON keeps them; DynamoDB keeps 38)
    value = choices.draw_integer(10**38, 10**46, site="digits")
    return -value if choices.draw_boolean(0.2, site="negative?") else value


def _text(choices: Choices, cls: EdgeClass, max_bytes: int | None = None) -> str:
    if cls is E.EMPTY:
        return ""
    if cls is E.BLANK:
        return choices.draw_choice(BLANKS, site="blank")
    if cls is E.LONG:
        return _long_text(choices, max_bytes)
    if cls is E.UNICODE:
        return choices.draw_choice(UNICODE_TEXTS, site="unicode")
    if cls is E.NON_FINITE:
        return choices.draw_choice(NON_FINITE_TEXTS, site="text")
    if cls is E.PRECISION:
        digits = str(choices.draw_integer(10**38, 10**46, site="digits"))
        point = choices.draw_integer(0, 8, site="point")  # digits after the point
        return digits[: len(digits) - point] + ("." + digits[-point:] if point else "")
    return choices.draw_choice(LITERAL_TEXTS, site="literal")  # LITERAL


def _confused(choices: Choices, kind: str) -> Any:
    """A JSON value of another type than `kind` (`string`, `integer`, `number`,
    `boolean`, `null`, `array`, `object`)."""
    others = {
        "string": ("number", "null", "boolean", "array", "object"),
        "integer": ("string", "null", "boolean", "array", "object"),
        "number": ("string", "null", "boolean", "array", "object"),
        "boolean": ("string", "number", "null"),
        "null": ("string", "number", "boolean", "object"),
        "array": ("object", "string", "null", "boolean"),
        "object": ("array", "string", "null", "boolean"),
    }.get(kind, ("string", "number", "null"))
    other = choices.draw_choice(others, site="type")
    if other == "string":
        return choices.draw_choice(("1", "0", "12.5", "", "abc", "[]", "{}"), site="string")
    if other == "number":
        return choices.draw_choice(CONFUSED_NUMBERS, site="number")
    if other == "boolean":
        return choices.draw_boolean(site="boolean")
    if other == "array":
        return choices.draw_choice(([], [1], ["a"], [{}]), site="array")
    if other == "object":
        return choices.draw_choice(({}, {"value": 1}, {"id": None}), site="object")
    return None


#: Numbers a confused value takes: integers and floats alike (boto3 refuses floats).
CONFUSED_NUMBERS: Final = (0, 1, -1, 42, 1.5, 0.25, 99.99)

NO_EDGE: Final = object()
"""What an edge draw returns when the site keeps its ordinary value."""


# --------------------------------------------------------------------------- site draws
def json_scalar(choices: Choices, kind: str) -> Any:
    """An edge value for a JSON scalar site of `kind` (`string`, `integer`, `number`,
    `boolean`, `null`, `date`, `datetime`), or NO_EDGE."""
    if kind in ("integer", "number"):
        rates: Mapping[EdgeClass, float] = NUMBER_RATES
    elif kind in ("string", "date", "datetime"):
        rates, kind = STRING_RATES, "string"
    else:
        rates = OTHER_SCALAR_RATES
    cls = draw_edge(choices, rates, site=f"json-{kind}")
    if cls is None:
        return NO_EDGE
    with choices.scope(cls.label):
        if cls is E.CONFUSED:
            return _confused(choices, kind)
        if rates is NUMBER_RATES:
            return _number(choices, cls)
        return _text(choices, cls)


def json_container(choices: Choices, kind: str) -> Any:
    """An edge value in place of a JSON `array` or `object` (the other container, or a
    scalar), or NO_EDGE."""
    cls = draw_edge(choices, CONTAINER_RATES, site=f"json-{kind}")
    if cls is None:
        return NO_EDGE
    if cls is E.EMPTY:
        return [] if kind == "array" else {}
    with choices.scope(cls.label):
        return _confused(choices, kind)


def absent(choices: Choices) -> bool:
    """Whether a field that is normally there is left out."""
    return draw_edge(choices, FIELD_RATES, site="field") is E.ABSENT


def drop_fields(choices: Choices, document: dict[str, Any]) -> dict[str, Any]:
    """`document` with each top-level field left out at the ABSENT rate (an EventBridge
    detail whose producer omitted fields); no draw when edge values are off."""
    if not choices.edge_values:
        return document
    return {k: v for k, v in document.items() if not absent(choices)}


def dynamodb_number(choices: Choices, *, key: bool = False) -> str | None:
    """An edge DynamoDB number (wire form, one DynamoDB stores: at most 38 significant
    digits, written out in at most 38 digits), or None.

    DynamoDB stores magnitudes up to 9.99E+125 but returns them written out in full, and
    boto3's deserializer traps `decimal.Rounded` on more than 38 written digits (boto3
    issue 2500): every handler reading the table through boto3 would fail on such an item
    in the library, the same finding for every app, so world numbers stay within 38 digits
    (still far beyond int64 and float precision)."""
    cls = draw_edge(
        choices, DYNAMODB_KEY_NUMBER_RATES if key else DYNAMODB_NUMBER_RATES, site="dynamodb-n"
    )
    if cls is None:
        return None
    with choices.scope(cls.label):
        if cls is E.FLOAT:
            whole = choices.draw_integer(-1000, 1000, site="whole")
            return f"{whole}.{choices.draw_choice(('5', '1', '25', '999', '3333333333'))}"
        if cls is E.NEGATIVE:
            return str(-choices.draw_geometric(100.0, min_value=1, max_value=10**9, site="n"))
        if cls is E.ZERO:
            return "0"
        if cls is E.HUGE:
            exponent = choices.draw_integer(19, 37, site="exponent")
            return "9" * (exponent + 1)
        # PRECISION: exactly 38 significant digits, the most DynamoDB keeps
        digits = str(choices.draw_integer(10**37, 10**38 - 1, site="digits"))
        digits = digits[:-1] + (digits[-1] if digits[-1] != "0" else "1")  # canonical
        point = choices.draw_integer(0, 37, site="point")
        return digits[: 38 - point] + ("." + digits[38 - point :] if point else "")


def dynamodb_string(choices: Choices, *, key: bool = False, max_bytes: int = 0) -> str | None:
    """An edge DynamoDB string, or None; a key's (or set member's) is never empty and at
    most `max_bytes` long."""
    cls = draw_edge(
        choices, DYNAMODB_KEY_STRING_RATES if key else DYNAMODB_STRING_RATES, site="dynamodb-s"
    )
    if cls is None:
        return None
    with choices.scope(cls.label):
        return _text(choices, cls, max_bytes or None)


def image_edge(choices: Choices) -> EdgeClass | None:
    """Whether a MODIFY's OldImage is its NewImage with one attribute ABSENT or
    CONFUSED (held with another type), else None."""
    return draw_edge(choices, IMAGE_RATES, site="old-image")


def object_key(
    choices: Choices, prefix: str, stem: str, ending: str, *, own_prefix: bool, own_ending: bool
) -> tuple[str, str, str]:
    """`(prefix, stem, ending)` of an S3 key, changed at the KEY_NAME rate: a stem S3
    encodes in events (spaces, `+`, `%`, reserved characters, unicode), no extension,
    a deep prefix, or no prefix.  A configured prefix or suffix (`own_*` False: the
    notification's key filter) is kept, so the key still passes the filter."""
    if draw_edge(choices, KEY_RATES, site="s3-key") is None:
        return prefix, stem, ending
    with choices.scope(E.KEY_NAME.label):
        form = choices.draw_choice(KEY_FORMS, site="form")
        if form == "no-extension" and own_ending:
            return prefix, stem, ""
        if form == "deep-prefix":
            return prefix + DEEP_PREFIX, stem, ending
        if form == "no-prefix" and own_prefix:
            return "", stem, ending
        special = choices.draw_choice(KEY_STEMS, site="stem")
        return (
            prefix,
            f"{special} {stem}" if choices.draw_boolean(site="keep?") else special,
            ending,
        )


def message_body(choices: Choices) -> str | None:
    """A message body that is not JSON (or not a JSON object), at the NOT_JSON rate."""
    if draw_edge(choices, BODY_RATES, site="body") is None:
        return None
    with choices.scope(E.NOT_JSON.label):
        return choices.draw_choice(NOT_JSON_BODIES, site="body")


def deleted(choices: Choices, *, only: bool) -> bool:
    """Whether an EventBridge S3 event is an "Object Deleted" one: always when the rule
    admits only deletions (`only`), else at the DELETED rate; never when edge values
    are off (generation stays what it was)."""
    if not choices.edge_values:
        return False
    if only:
        return True
    return draw_edge(choices, DELETED_RATES, site="deleted") is E.DELETED
