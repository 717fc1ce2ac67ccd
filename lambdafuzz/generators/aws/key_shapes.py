"""Key shapes: the S3 key forms naive handlers get wrong, drawn under every strategy.

Real uploads are named `My Photo (1).jpg`, `a+b.csv`, `2024/05/17/x.json`: an S3 event
carries such a key URL-encoded (space -> `+`, `+` -> `%2B`, `(` -> `%28`, non-ASCII as
UTF-8 escapes), so a handler that passes the event's key to `get_object` without
`unquote_plus` fails on it, and one that writes `/tmp/{key}` fails on a folder.  Each key
draws its shape once, as one recorded choice (`SHAPE_SITE`): a mutation of that one draw
turns an ordinary key into an encoded or deep one (the shape's own draws then come fresh
in either replay mode).  Before this, the odd characters came from a `wide?` flag that
switched the stem's alphabet: flipping the flag alone replayed the same plain stem, so
mutation-based strategies met an encoded key only through a fresh stem, and deep folders
came only with edge values (the `frontier` strategy alone).

A configured prefix or suffix (the notification's key filter) is always kept: a key the
filter refuses could not arrive.  The world holds the decoded key; the S3 event carries
it encoded (`s3_notifications.encode_key`).
"""

from __future__ import annotations

import enum
import functools
import string
from dataclasses import dataclass
from typing import Final

from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.dictionary_views import derived


class KeyShape(enum.StrEnum):
    PLAIN = "plain"  # prefix (configured, or now and then one folder), stem, extension
    ENCODED = "encoded"  # the stem holds characters an S3 event URL-encodes
    DEEP = "deep"  # several folders (after the configured prefix, if any)
    FLAT = "flat"  # no folder at all (a configured prefix is still kept)


SHAPES: Final = tuple(KeyShape)
#: About one key in five has a shape that breaks naive handlers, one in seven an encoded
#: stem (the old wide alphabet gave 12% of keys encoded characters: no fewer now).
SHAPE_WEIGHTS: Final = (16.0, 3.0, 1.0, 1.0)
SHAPE_SITE: Final = "key-shape"
#: What an encoded stem gains: characters S3 event records URL-encode, as people really
#: name files (`quote_plus` keeps only letters, digits and `_.-~`).
ENCODED_PIECES: Final = (
    " ",
    " (1)",
    " copy",
    "+",
    "a+b",
    "%",
    "100%",
    "=",
    "x=1",
    "&",
    ",",
    "'",
    "@",
    "!",
    "$",
    ";",
    ":",
    "(2)",
    "\u00e9",  # é
    "\u00fc\u00df",  # üß
    "\u65e5\u672c",  # CJK
    "Cafe\u0301",  # a combining accent (NFD)
    "\U0001f4f7",  # an emoji
)
#: Where the piece goes; after the stem keeps a dictionary constant whole at the start.
PLACES: Final = ("after", "before", "inside")
PLACE_WEIGHTS: Final = (3.0, 1.0, 1.0)
FOLDER_ALPHABET: Final = string.ascii_lowercase + string.digits + "-_"
#: Folders a deep key adds.
MIN_DEPTH: Final = 2
MAX_DEPTH: Final = 5


def draw_shape(choices: Choices) -> KeyShape:
    """The key's shape: one recorded weighted draw."""
    return choices.draw_weighted(SHAPES, SHAPE_WEIGHTS, site=SHAPE_SITE)


def deep_folders(choices: Choices) -> str:
    """`a/b/c/`: MIN_DEPTH to MAX_DEPTH short folder names."""
    depth = choices.draw_integer(MIN_DEPTH, MAX_DEPTH, site="depth")
    names = [
        clean_folder(choices.draw_string(FOLDER_ALPHABET, 1, 8, site="deep-folder"))
        for _ in range(depth)
    ]
    return "".join(f"{name}/" for name in names)


def clean_folder(name: str) -> str:
    """A drawn folder name (a dictionary constant may hold slashes) without empty parts."""
    parts = [p for p in name.split("/") if p and p >= " "]
    return "/".join(parts) or "x"


def encoded_stem(choices: Choices, stem: str, max_chars: int) -> str:
    """`stem` with a piece S3 encodes in events, after, before or inside it; an ordinary
    stem (at most `max_chars`) stays within `max_chars` with its piece, a longer one
    (grown) is kept whole with the piece after it."""
    piece = choices.draw_choice(ENCODED_PIECES, site="piece")
    place = choices.draw_weighted(PLACES, PLACE_WEIGHTS, site="place")
    if len(stem) > max_chars:  # grown by the cost objective: kept whole
        return stem + piece
    stem = stem[: max(1, max_chars - len(piece))]
    if place == "after":
        return stem + piece
    if place == "before":
        return piece + stem
    at = choices.draw_integer(0, len(stem), site="at")
    return stem[:at] + piece + stem[at:]


#: Packed keys (`a.txt|lower`): a key the code splits (`key.split("|")`, `.partition(":")`)
#: carries parts joined by a separator the code splits on, so that `name, mode =
#: key.split("|")` unpacks and the code after it runs.  The code's split arguments are
#: dictionary constants: a separator is a short one of punctuation only.  `/` is left out
#: (folders and deep keys already join parts with it).  Edge values on only.
PACKED_P: Final = 0.12
PACKED_SITE: Final = "packed?"
MAX_SEPARATOR_CHARS: Final = 3
SEPARATOR_CHARS: Final = frozenset(string.punctuation + " ") - {"/"}
#: How many parts follow the head: one (`key|mode`) mostly, two (`key|mode|n`) now and then.
TAIL_COUNTS: Final = (1, 2)
TAIL_WEIGHTS: Final = (4.0, 1.0)
#: The head is now and then the key of another object of the bucket, so the code that
#: looks its head up finds an object (the content past the lookup runs).
HEAD_OF_OBJECT_P: Final = 0.7
#: A part is where the code compares what it split off (`if mode == "upper"`): a
#: dictionary constant half the time (the campaign's `dictionary_p` is 0.1).
PART_DICTIONARY_P: Final = 0.5
PART_ALPHABET: Final = string.ascii_letters + string.digits + "-_"
MAX_PART_CHARS: Final = 12


@functools.lru_cache(maxsize=16)
def separators(dictionary: tuple[str, ...]) -> tuple[str, ...]:
    """The dictionary's strings that look like what code splits on: 1 to
    MAX_SEPARATOR_CHARS punctuation characters (`|`, `:`, `#`, `::`), `/` excepted."""
    return derived(
        "separators",
        (dictionary,),
        lambda: tuple(
            word
            for word in dictionary
            if 0 < len(word) <= MAX_SEPARATOR_CHARS and set(word) <= SEPARATOR_CHARS
        ),
    )


@dataclass(slots=True)
class Heads:
    """What a packed key's head may be: `keys` of objects of its bucket drawn before it, or,
    with none and `room` for one more object, its own fresh head, which the key then asks
    the bucket to hold too (`wanted`)."""

    keys: tuple[str, ...] = ()
    room: bool = False
    wanted: str | None = None


def packed_key(choices: Choices, key: str, ending: str, heads: Heads | None = None) -> str:
    """`key + ending`, or (with edge values on and a separator in the dictionary, at
    PACKED_P) a head and one or two parts joined by that separator, then `ending` (a
    configured suffix, kept last so the key filter still passes it).  The head is `key`,
    at HEAD_OF_OBJECT_P an object's (`heads`); each part is a dictionary constant or a
    short fresh word (`a.txt|lower`, `in/x.csv|Zq3`)."""
    seps = separators(choices.dictionary) if choices.edge_values else ()
    if not seps or not choices.draw_boolean(PACKED_P, site=PACKED_SITE):
        return key + ending
    separator = choices.draw_choice(seps, site="separator")
    if heads is not None and choices.draw_boolean(HEAD_OF_OBJECT_P, site="head-of-object?"):
        if heads.keys:
            key = choices.draw_choice(heads.keys, site="head")
        elif heads.room:
            heads.wanted = key
    count = choices.draw_weighted(TAIL_COUNTS, TAIL_WEIGHTS, site="parts")
    parts = [
        choices.draw_from_dictionary(
            lambda: choices.draw_string(PART_ALPHABET, 1, MAX_PART_CHARS, site="part"),
            p=PART_DICTIONARY_P,
        )
        for _ in range(count)
    ]
    return separator.join([key, *map(clean_part, parts)]) + ending


def clean_part(part: str) -> str:
    """A drawn part (a dictionary constant may hold anything) without control characters,
    lone surrogates or folders."""
    kept = "".join(
        ch for ch in part if ch >= " " and ch not in "/\x7f" and not "\ud800" <= ch <= "\udfff"
    )
    return kept or "x"
