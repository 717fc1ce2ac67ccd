"""Batches whose records name the same entity twice.

A batch of SQS messages, S3 notifications, SNS messages or Kinesis records now and then
repeats an earlier record's content (the same object key, the same order in the body):
a producer that sent twice, two updates of one order.  A handler that keeps state across
a batch (a dict of seen ids, an item it writes then reads) meets the second record when
the first already changed the world.  With edge values on only (`frontier`).
"""

from __future__ import annotations

from typing import Final

from lambdafuzz.generators.core import Choices

#: A record after the first repeats an earlier one this often.
REPEAT_P: Final = 0.1


def draw_repeat(choices: Choices, earlier: int, *, site: str = "repeat") -> int | None:
    """The index of an earlier record (of `earlier`) this one repeats, or None; nothing
    is drawn for the first record."""
    if not choices.edge_values or earlier <= 0:
        return None
    if not choices.draw_boolean(REPEAT_P, site=f"{site}?"):
        return None
    return choices.draw_integer(0, earlier - 1, site=site)
