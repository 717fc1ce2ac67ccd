"""How fresh values are drawn for one campaign: its `DrawPolicy`, declared once.

The campaign's options make the policy once; `Choices`, the worker's spec, `campaign.json`
(`to_json`/`from_json`), the replayer and the world summaries take it whole.  It is part of
how a recording replays: a dictionary draw records an index into `dictionary`, a code year
its index among `numbers`, and `fields`, `key_values` and `edge_values` decide which draws
a generator makes at all.  So every process that generates for a campaign must hold the
same policy, and a saved input replays only with the policy its campaign recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from lambdafuzz.errors import InvalidArgument

#: Probability that a fresh string draw takes a dictionary constant (when there are any).
DICTIONARY_P: Final = 0.1


@dataclass(slots=True, frozen=True)
class DrawPolicy:
    """The constants and switches fresh draws use (`generators.core.Choices`).

    Sequences are kept as tuples (a list given is copied into one), so a policy is
    hashable, pickles small for the worker pipe and cannot change under a running
    campaign.  The field names are also `campaign.json`'s keys (`to_json`)."""

    #: Constant strings (the config's, and the analysis' harvest by strategy): a fresh
    #: string draw takes one with probability `dictionary_p`, recorded verbatim, and a
    #: `draw_from_dictionary` records its index here.
    dictionary: tuple[str, ...] = ()
    #: How often a fresh string draw takes a dictionary constant; 0 when the dictionary is
    #: empty (`effective_dictionary_p`).
    dictionary_p: float = DICTIONARY_P
    #: The numbers the code compares with: a fresh integer or float draw takes one that
    #: fits its bounds now and then (`generators.core.NUMBERS_P`).
    numbers: tuple[int | float, ...] = ()
    #: The field names the code reads (`event["x"]`, `.get("x")`, `model.x`, CSV
    #: fieldnames): free JSON objects are now and then records of these.
    fields: tuple[str, ...] = ()
    #: (attribute, value) of the DynamoDB keys the code looks items up by
    #: (`Key={"SK": "PROFILE"}`): a table's items now and then carry them.
    key_values: tuple[tuple[str, str], ...] = ()
    #: Generators draw edge values (`generators.edge_values`) too: they change which
    #: draws a generator makes, so a recording replays only with its own setting.
    edge_values: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.dictionary_p <= 1.0:
            raise InvalidArgument(f"dictionary_p={self.dictionary_p!r} must be within [0, 1]")
        # frozen: the tuples are made once here, never per draw
        object.__setattr__(self, "dictionary", tuple(self.dictionary))
        object.__setattr__(self, "numbers", tuple(self.numbers))
        object.__setattr__(self, "fields", tuple(self.fields))
        object.__setattr__(self, "key_values", tuple(tuple(kv) for kv in self.key_values))

    @property
    def effective_dictionary_p(self) -> float:
        """`dictionary_p`, or 0 without a dictionary (there is nothing to draw)."""
        return self.dictionary_p if self.dictionary else 0.0

    def to_json(self) -> dict[str, Any]:
        """The policy as `campaign.json` has always recorded it: six top-level keys, in
        this order, tuples as lists."""
        return {
            "dictionary": list(self.dictionary),
            "dictionary_p": self.dictionary_p,
            "numbers": list(self.numbers),
            "fields": list(self.fields),
            "key_values": [list(kv) for kv in self.key_values],
            "edge_values": self.edge_values,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DrawPolicy:
        """The policy a `campaign.json` records (its other keys are ignored).  A key an
        older file lacks takes the value that campaign ran with: no numbers, fields, key
        values or edge values, `DICTIONARY_P`; entries of the wrong type are dropped."""
        return cls(
            dictionary=tuple(str(s) for s in data.get("dictionary") or ()),
            dictionary_p=float(data.get("dictionary_p", DICTIONARY_P)),
            numbers=tuple(
                n
                for n in data.get("numbers") or ()
                if isinstance(n, int | float) and not isinstance(n, bool)
            ),
            fields=tuple(str(f) for f in data.get("fields") or () if isinstance(f, str)),
            key_values=tuple(
                (pair[0], pair[1])
                for pair in data.get("key_values") or ()
                if isinstance(pair, list | tuple)
                and len(pair) == 2
                and all(isinstance(p, str) for p in pair)
            ),
            edge_values=bool(data.get("edge_values", False)),
        )


#: The policy of a `Choices` made without one: no constants, no edge values.
DEFAULT_POLICY: Final = DrawPolicy()
