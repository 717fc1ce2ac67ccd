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
import string
from typing import Final

from lambdafuzz.generators.core import Choices


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
