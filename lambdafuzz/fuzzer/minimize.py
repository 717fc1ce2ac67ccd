"""Shrinking a failing input while the same failure reproduces.

Shrinking works on the choice sequence, not on the world: setting a run of draws to their
constraints' simplest values (`MINIMAL`) turns geometric sizes into their minimum (fewer
objects, rows, entries), integers into 0 or the bound nearest it and strings/bytes into
the shortest legal value; the generator then reads fewer draws, so the recorded sequence
itself gets shorter.  Integers that cannot jump to their simplest value are halved toward
it.  A candidate is kept only if it reproduces the same failure signature and is smaller.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from lambdafuzz.fuzzer.mutation import overwrite
from lambdafuzz.generators.core import (
    MINIMAL,
    Choice,
    ChoiceKind,
    ChoiceSequence,
    PrefixT,
    ReplayMode,
)

#: Run a prefix, return (failure signature or None, recording actually read).
RunT = Callable[[PrefixT], tuple[str | None, ChoiceSequence]]


def distance(c: Choice) -> int:
    """How far a draw is from its constraints' simplest value: |value - simplest| for an
    integer, the length beyond the shortest legal one for strings and bytes, 1 for True and
    for a float other than its simplest value, 0 at the simplest value."""
    simplest = c.constraints.simplest()
    if c.kind is ChoiceKind.INTEGER:
        return abs(c.value - simplest)
    if c.kind is ChoiceKind.BYTES or c.kind is ChoiceKind.STRING:
        return abs(len(c.value) - len(simplest))
    return int(c.value != simplest)


def size_of(sequence: ChoiceSequence) -> tuple[int, int]:
    """Shortlex-like measure: number of draws, then total distance from the simplest values."""
    return len(sequence), sum(distance(c) for c in sequence.choices)


@dataclass(slots=True, frozen=True)
class MinimizeResult:
    sequence: ChoiceSequence
    attempts: int
    accepted: int
    before: tuple[int, int]
    after: tuple[int, int]


def minimize(
    sequence: ChoiceSequence,
    signature: str,
    run: RunT,
    mode: ReplayMode,
    *,
    max_attempts: int = 400,
    max_seconds: float = 120.0,
) -> MinimizeResult:
    """Greedy delta-debugging over runs of draws, then single draws, from large to small."""
    best = sequence
    before = size_of(sequence)
    attempts = accepted = 0
    deadline = time.monotonic() + max_seconds

    def budget() -> bool:
        return attempts < max_attempts and time.monotonic() < deadline

    def try_candidate(prefix: PrefixT) -> bool:
        nonlocal best, attempts, accepted
        attempts += 1
        got, recording = run(prefix)
        if got == signature and size_of(recording) < size_of(best):
            best = recording
            accepted += 1
            return True
        return False

    improved = True
    while improved and budget():
        improved = False
        chunk = max(1, len(best) // 2)
        while chunk >= 1 and budget():
            start = 0
            while start < len(best) and budget():
                positions = [
                    i
                    for i in range(start, min(len(best), start + chunk))
                    if distance(best.choices[i])
                ]
                if positions and try_candidate(overwrite(best, positions, MINIMAL, mode)):
                    improved = True
                    continue  # same start, the sequence changed under it
                start += chunk
            chunk //= 2
        # halve integers toward their simplest value; an accepted candidate may be shorter
        # than `best` was, so the bound is re-read on every step
        i = 0
        while i < len(best) and budget():
            halved = _halved(best.choices[i])
            if halved is not None and try_candidate(_with_value(best, i, halved, mode)):
                improved = True
                continue  # halve the (new) draw at i again
            i += 1
    return MinimizeResult(best, attempts, accepted, before, size_of(best))


def _halved(c: Choice) -> int | None:
    """An integer draw's value halfway to its simplest value (rounded toward it), or None
    for other kinds and for integers already at their simplest value."""
    if c.kind is not ChoiceKind.INTEGER:
        return None
    simplest = c.constraints.simplest()
    gap = c.value - simplest
    if gap == 0:
        return None
    return simplest + (gap // 2 if gap > 0 else -(-gap // 2))


def _with_value(sequence: ChoiceSequence, i: int, value: object, mode: ReplayMode) -> PrefixT:
    if mode is ReplayMode.LINEAR:
        values = sequence.values()
        values[i] = value
        return values
    by_ei = sequence.by_ei()
    by_ei[sequence.choices[i].ei] = value
    return by_ei
