"""Turning a parent's choice sequence into a child's prefix.

A mutator never produces values itself: it copies the parent's values and writes markers
over the positions it mutates — `Changed(old)` (a fresh value other than the parent's),
`MINIMAL`, or with `change=False` Zest's plain `FRESH` (which may repeat the parent's value)
— and the worker's `Choices` fills them from the child's RNG.  So a mutator needs no
knowledge of kinds or bounds, and the child's recording (what the worker sends back) is the
exact, replayable input.

Why `Changed`: with plain fresh draws 2.7-11.2% of children on the benchmark lambdas read
exactly their parent's values (a boolean, a choice among a few options or a small size
drawn again to the same value) and are their parent again: zero mutations
(benchmarks/history/zero-mutations.md).  A `MINIMAL` run over draws that are minimal already
is one too; the mutator draws that child again with `Changed` markers.

Constants are JQF's Zest defaults (thesis ch. 6): a geometric number of mutations with
mean 8, each a run of geometric length with mean 4, and 10% of children set the run to the
minimal value instead of a fresh one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from lambdafuzz.generators.core import (
    FRESH,
    MINIMAL,
    Changed,
    ChoiceSequence,
    Grown,
    Marker,
    PrefixT,
    ReplayMode,
    can_grow,
)
from lambdafuzz.harness.measure.arm_catalog import ArmKey

MEAN_MUTATION_COUNT = 8.0
MEAN_MUTATION_SIZE = 4.0
MINIMAL_CHILD_PROBABILITY = 0.1
#: Draws a growing mutation (`grow`) grows, on average: a climb goes one step at a time.
MEAN_GROWN_DRAWS = 2.0


@dataclass(slots=True, frozen=True)
class Mutation:
    """A child's prefix and how it was made (for provenance and targeting statistics)."""

    prefix: PrefixT
    targeted: str | None = None  # the type label a targeted mutation aimed at
    positions: int = 0  # how many draws were overwritten
    # how the prefix replays when not the campaign's mode (an execution-indexed prefix:
    # a change that must leave every other draw of the parent where it was)
    mode: ReplayMode | None = None
    # an edge-plan step that put a new value in (a record field put in, retyped, made an
    # ordinary value): a child that keeps its parent's path is told back (`Mutator.follow`)
    opens: bool = False


class Mutator(Protocol):
    """Makes children; told after every test what came of it."""

    def mutate(self, parent: ChoiceSequence, rng: random.Random) -> Mutation: ...

    def observe(self, mutation: Mutation | None, saved: bool, seen: Mapping[ArmKey, int]) -> None:
        """After every test: the child's mutation (None for fresh inputs and seeds), whether
        it was saved, and every arm the campaign has seen with its hit-count buckets."""

    def follow(self, mutation: Mutation, child: ChoiceSequence) -> None:
        """A valid child of an opening mutation (`Mutation.opens`) that covered every arm
        of its parent and was not saved: its recording, whose new draws a mutator may try
        next."""


def sample_geometric(rng: random.Random, mean: float) -> int:
    """JQF's geometric sample: an integer >= 1 with the given mean."""
    p = 1.0 / mean
    u = rng.random()
    return max(1, math.ceil(math.log1p(-u) / math.log1p(-p))) if p < 1 else 1


def overwrite(
    parent: ChoiceSequence,
    positions: Sequence[int],
    marker: Marker,
    mode: ReplayMode,
    *,
    change: bool = False,
) -> PrefixT:
    """The parent's prefix with `positions` replaced by `marker`; with `change`, a `FRESH`
    marker is written as `Changed(the parent's value)`."""
    if change and marker is FRESH:
        return marked(parent, positions, mode, Changed)
    return marked(parent, positions, mode, lambda _old: marker)


def marked(
    parent: ChoiceSequence,
    positions: Sequence[int],
    mode: ReplayMode,
    mark: Callable[[Any], Any],
) -> PrefixT:
    """The parent's prefix (values by position, or by execution index) with each of
    `positions` holding `mark(the parent's value there)`."""
    choices = parent.choices
    if mode is ReplayMode.LINEAR:
        values = parent.values()
        for i in positions:
            values[i] = mark(choices[i].value)
        return values
    by_ei = parent.by_ei()
    for i in positions:
        choice = choices[i]
        by_ei[choice.ei] = mark(choice.value)
    return by_ei


def already_minimal(parent: ChoiceSequence, positions: Sequence[int]) -> bool:
    """Whether `MINIMAL` over `positions` leaves the parent as it is (a zero mutation)."""
    choices = parent.choices
    return all(choices[i].value == choices[i].constraints.simplest() for i in positions)


class RandomMutator:
    """Zest's havoc over the choice sequence: runs of draws replaced by fresh values
    (`change`: values other than the parent's, so no child is its parent again)."""

    def __init__(
        self, mode: ReplayMode = ReplayMode.EXECUTION_INDEXED, *, change: bool = True
    ) -> None:
        self.mode = mode
        self.change = change

    def positions(self, size: int, rng: random.Random) -> list[int]:
        chosen: list[int] = []
        for _ in range(sample_geometric(rng, MEAN_MUTATION_COUNT)):
            start = rng.randrange(size)
            length = sample_geometric(rng, MEAN_MUTATION_SIZE)
            chosen.extend(range(start, min(size, start + length)))
        return chosen

    def observe(self, mutation: Mutation | None, saved: bool, seen: Mapping[ArmKey, int]) -> None:
        """Random mutation learns nothing from outcomes."""

    def follow(self, mutation: Mutation, child: ChoiceSequence) -> None:
        """Random mutation makes no opening mutations."""

    def mutate(self, parent: ChoiceSequence, rng: random.Random) -> Mutation:
        if len(parent) == 0:
            return Mutation(prefix=[] if self.mode is ReplayMode.LINEAR else {})
        marker = MINIMAL if rng.random() < MINIMAL_CHILD_PROBABILITY else FRESH
        positions = self.positions(len(parent), rng)
        if marker is MINIMAL and self.change and already_minimal(parent, positions):
            marker = FRESH
        prefix = overwrite(parent, positions, marker, self.mode, change=self.change)
        return Mutation(prefix, positions=len(positions))


def growable(parent: ChoiceSequence, *, counts: bool = False) -> list[int]:
    """Positions of `parent` whose value can grow within its draw (see `core.Grown`): a
    non-empty string or bytes value shorter than its bound, and with `counts` a
    non-negative integer below its bound."""
    kinds = (str, bytes, int) if counts else (str, bytes)
    return [
        i
        for i, c in enumerate(parent.choices)
        if type(c.value) in kinds and can_grow(c.value, c.constraints)
    ]


def grow(
    parent: ChoiceSequence, rng: random.Random, mode: ReplayMode, *, counts: bool = False
) -> Mutation | None:
    """A child with a few of `parent`'s strings (and with `counts`, integers) grown
    (`Grown` markers), the rest kept; None when none can grow.  For the cost objective's
    climb (PerfFuzz): one more character, or a count up to twice as large, at a time,
    where havoc draws a value of any size within its bound.  Counts are chosen by draw
    site first (`rows`, `columns`, `text`, ...), then a draw of that site: a file's one
    row count is otherwise lost among its hundreds of cells (an earlier trial that picked
    integers like any other draw missed csv_dedupe on 3 of 6 seeds that havoc found)."""
    positions = growable(parent, counts=counts)
    if not positions:
        return None
    count = min(len(positions), sample_geometric(rng, MEAN_GROWN_DRAWS))
    if counts:
        by_site: dict[Any, list[int]] = {}
        for i in positions:
            by_site.setdefault(parent.choices[i].ei[-1][0], []).append(i)
        sites = list(by_site)
        chosen = sorted({rng.choice(by_site[rng.choice(sites)]) for _ in range(count)})
        count = len(chosen)
    else:
        chosen = rng.sample(positions, count)
    return Mutation(marked(parent, chosen, mode, Grown), positions=count, mode=mode)
