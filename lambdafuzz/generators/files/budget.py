"""How many draws an input has left, so containers stop growing before an Overrun.

A zip of CSVs of many rows can ask for more than `MAX_CHOICES` draws; the input would then
be invalid.  Loops that add rows, entries or pixels check the room first and stop early,
which is deterministic because the count of draws so far is.
"""

from __future__ import annotations

from lambdafuzz.generators.core import Choices


def room(choices: Choices) -> int:
    """Draws left before `Choices.max_choices`."""
    return choices.max_choices - choices.count


def fits(choices: Choices, needed: int) -> bool:
    """Whether `needed` more draws leave a safety margin for the enclosing generators."""
    return room(choices) - needed > 64
