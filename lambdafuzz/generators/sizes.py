"""Size parameters at the campaign's size scale (`Choices.size_scale`).

A big input (a CSV of many rows, a zip of hundreds of members, a large image) costs every
test that reads it, and every child of it, while most branches are reached by small ones.
libFuzzer starts with a small `-max_len` and grows it when coverage stalls; the campaign's
size schedule (`fuzzer.size_schedule`) does the same with one float on `Choices`, and a
generator asks here for the parameter of a size draw: a geometric mean, the probability of
a "many" branch.  Only fresh values follow the parameter: `draw_geometric` records the
integer and `draw_boolean` the boolean, and replay reads those whatever the mean or `p`
was, so an input replays exactly at any scale.  At the full scale (1.0, the default) every
parameter is today's.
"""

from __future__ import annotations

from typing import Final

from lambdafuzz.generators.core import Choices

#: A scaled mean stays at least this (or the mean itself, when smaller): a count whose mean
#: is near zero would all but never take its loop twice.
MIN_MEAN: Final = 0.5


def scaled_mean(choices: Choices, mean: float) -> float:
    """`mean` (of a fresh geometric size) at the choices' size scale."""
    scale = choices.size_scale
    if scale >= 1.0:
        return mean
    return max(min(mean, MIN_MEAN), mean * scale)


def scaled_p(choices: Choices, p: float) -> float:
    """`p` (of a fresh "many"/"large" branch) at the choices' size scale."""
    return p * choices.size_scale
