"""What stored attributes the code reads hold: its own constants, lists of one type with an
intruder, keys that start with its key prefixes.

A handler that reads a stored item compares what it read with its constants
(`if item["status"] == "complete"`) and only then reads the rest: a fresh string meets
such a constant once in ~10 x the dictionary's size draws, so a "completed item missing
its other attributes" path never ran.  The *value constants* are the dictionary minus the
names the code reads its records by (`Choices.fields`): what is left are mostly the
values it compares with, names of its environment and messages.

A list the code sorts, joins or sums holds one type as written by the code, and now and
then one element of another, as written by another client (a number among strings):
`draw_one_type_list`.  A key the code tests with `.startswith("ORDER#")` or builds as
`f"ORDER#{id}"` starts with a *key prefix*: a constant ending with a separator
(`key_prefixes`).  All of it is drawn with edge values on only (`aws.dynamodb`).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import Final

from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.dictionary_views import derived
from lambdafuzz.generators.files.alphabets import encodable
from lambdafuzz.model.world import AttributeValueT

#: The characters a key prefix ends with (`ORDER#`, `users/`, `tenant:`, `a|`).
PREFIX_ENDS: Final = "#/:|"
#: The tail drawn after a key prefix: an id's characters.
TAIL_ALPHABET: Final = string.ascii_letters + string.digits + "-_"
#: A one-type list of a code field holds one element of another type this often.
INTRUDER_P: Final = 0.5
#: The element types of a one-type list (strings twice as often) and of its intruder.
ELEMENT_TYPES: Final = ("S", "N")
_ELEMENT_WEIGHTS: Final = (2.0, 1.0)
_OTHER: Final = {"S": "N", "N": "S"}
MAX_LIST: Final = 4


def value_constants(choices: Choices) -> tuple[str, ...]:
    """The dictionary constants that are no field name the code reads (`Choices.fields`),
    in the dictionary's order; the whole dictionary when every constant is a name."""
    dictionary, fields = choices.dictionary, choices.fields

    def compute() -> tuple[str, ...]:
        names = set(fields)
        return tuple(c for c in dictionary if c and c not in names) or dictionary

    return derived("value-constants", (dictionary, fields), compute)


def key_prefixes(choices: Choices) -> tuple[str, ...]:
    """The dictionary constants shaped as key prefixes: 2 to 64 characters ending with one
    of `PREFIX_ENDS`, with no space (`ORDER#`, `tenant:`), in the dictionary's order."""
    dictionary = choices.dictionary
    return derived(
        "key-prefixes",
        (dictionary,),
        lambda: tuple(
            c
            for c in dictionary
            if 2 <= len(c) <= 64
            and c[-1] in PREFIX_ENDS
            and c[:-1].strip(PREFIX_ENDS)
            and " " not in c
        ),
    )


def draw_prefixed_key(choices: Choices, prefixes: tuple[str, ...]) -> str:
    """One of `prefixes` followed by an id (1 to 12 characters)."""
    prefix = choices.draw_choice(prefixes, site="key-prefix")
    tail = encodable(
        choices.draw_string(TAIL_ALPHABET, 1, 12, site="key-tail", use_dictionary=False)
    )
    return prefix + (tail or "x")


def draw_one_type_list(
    choices: Choices, draw_scalar: Callable[[str], AttributeValueT]
) -> AttributeValueT:
    """A list of 1 to `MAX_LIST` elements of one type (S or N, from `draw_scalar(type)`),
    with, at `INTRUDER_P`, one element of the other type put in at a drawn place."""
    kind = choices.draw_weighted(ELEMENT_TYPES, _ELEMENT_WEIGHTS, site="element-type")
    n = choices.draw_integer(1, MAX_LIST, site="length")
    elements = [draw_scalar(kind) for _ in range(n)]
    if choices.draw_boolean(INTRUDER_P, site="intruder?"):
        at = choices.draw_integer(0, n, site="intruder-at")
        elements.insert(at, draw_scalar(_OTHER[kind]))
    return {"L": elements}
