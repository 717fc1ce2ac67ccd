"""Turning a parent's choice sequence into a child's prefix.

A mutator never produces values itself: it copies the parent's values and writes `FRESH`
or `MINIMAL` markers over the positions it mutates; the worker's `Choices` fills them from
the child's RNG.  So a mutator needs no knowledge of kinds or bounds, and the child's
recording (what the worker sends back) is the exact, replayable input.

Constants are JQF's Zest defaults (thesis ch. 6): a geometric number of mutations with
mean 8, each a run of geometric length with mean 4, and 10% of children set the run to the
minimal value instead of a fresh one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from lambdafuzz.generators.core import (
    FRESH,
    MINIMAL,
    ChoiceSequence,
    Marker,
    PrefixT,
    ReplayMode,
)

MEAN_MUTATION_COUNT = 8.0
MEAN_MUTATION_SIZE = 4.0
MINIMAL_CHILD_PROBABILITY = 0.1


@dataclass(slots=True, frozen=True)
class Mutation:
    """A child's prefix and how it was made (for provenance and targeting statistics)."""

    prefix: PrefixT
    targeted: str | None = None  # the type label a targeted mutation aimed at
    positions: int = 0  # how many draws were overwritten


class Mutator(Protocol):
    """Makes children; told after every test what came of it."""

    def mutate(self, parent: ChoiceSequence, rng: random.Random) -> Mutation: ...

    def observe(self, mutation: Mutation | None, saved: bool, seen: Mapping[Any, int]) -> None:
        """After every test: the child's mutation (None for fresh inputs and seeds), whether
        it was saved, and every arm the campaign has seen with its hit-count buckets."""


def sample_geometric(rng: random.Random, mean: float) -> int:
    """JQF's geometric sample: an integer >= 1 with the given mean."""
    p = 1.0 / mean
    u = rng.random()
    return max(1, math.ceil(math.log1p(-u) / math.log1p(-p))) if p < 1 else 1


def overwrite(
    parent: ChoiceSequence, positions: Sequence[int], marker: Marker, mode: ReplayMode
) -> PrefixT:
    """The parent's prefix with `positions` replaced by `marker`."""
    if mode is ReplayMode.LINEAR:
        values = parent.values()
        for i in positions:
            values[i] = marker
        return values
    by_ei = parent.by_ei()
    choices = parent.choices
    for i in positions:
        by_ei[choices[i].ei] = marker
    return by_ei


class RandomMutator:
    """Zest's havoc over the choice sequence: runs of draws replaced by fresh values."""

    def __init__(self, mode: ReplayMode = ReplayMode.EXECUTION_INDEXED) -> None:
        self.mode = mode

    def positions(self, size: int, rng: random.Random) -> list[int]:
        chosen: list[int] = []
        for _ in range(sample_geometric(rng, MEAN_MUTATION_COUNT)):
            start = rng.randrange(size)
            length = sample_geometric(rng, MEAN_MUTATION_SIZE)
            chosen.extend(range(start, min(size, start + length)))
        return chosen

    def observe(self, mutation: Mutation | None, saved: bool, seen: Mapping[Any, int]) -> None:
        """Random mutation learns nothing from outcomes."""

    def mutate(self, parent: ChoiceSequence, rng: random.Random) -> Mutation:
        if len(parent) == 0:
            return Mutation(prefix=[] if self.mode is ReplayMode.LINEAR else {})
        marker = MINIMAL if rng.random() < MINIMAL_CHILD_PROBABILITY else FRESH
        positions = self.positions(len(parent), rng)
        return Mutation(overwrite(parent, positions, marker, self.mode), positions=len(positions))
